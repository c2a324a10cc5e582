import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing

/// Identities and keys through the service give what the embedded mode gives: the same calls
/// (keychainkit-service-probe: add, find in every result shape, by persistent reference and by
/// value, update, delete) run by one program embedded and then through the service, with the
/// same transcript of statuses and result shapes. Real users, a real service, openssl's key and
/// certificate in a PKCS #12 file.
@Suite("Keychain service: identities and keys equal the embedded mode (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServedIdentityTests {
    /// The probe, copied beside the fixture's keychainctl (readable by the test users).
    static func probe(_ fixture: ServiceFixture) throws -> String {
        let path = fixture.base + "/bin/keychainkit-service-probe"
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.copyItem(atPath: BuiltProducts.path("keychainkit-service-probe"), toPath: path)
        }
        return path
    }

    /// A P-256 key and its self-signed certificate in `user`'s home, as PKCS #12 with password "pw".
    static func pkcs12(_ fixture: ServiceFixture, for user: ServiceFixture.User) throws -> String {
        let openssl = try RequiredTool.openssl.require()
        let home = user.home
        let made = try fixture.run(as: user, [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                              "-keyout", home + "/key.pem", "-out", home + "/cert.pem", "-subj", "/CN=identity.example", "-days", "2"])
        #expect(made.status == 0, "\(made.error)")
        let exported = try fixture.run(as: user, [openssl, "pkcs12", "-export", "-inkey", home + "/key.pem", "-in", home + "/cert.pem",
                                                  "-passout", "pass:pw", "-out", home + "/id.p12"])
        #expect(exported.status == 0, "\(exported.error)")
        return home + "/id.p12"
    }

    /// The probe's transcript for `command` on the same PKCS #12 file, embedded (as Bob, with no
    /// socket) and through the service (as Alice).
    static func transcripts(_ command: String) throws -> (embedded: String, served: String, log: String) {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let probe = try probe(fixture)
        let bobs = try pkcs12(fixture, for: fixture.bob)
        let embedded = try fixture.run(as: fixture.bob, ["/usr/bin/env", "-u", "KEYCHAINKIT_SERVICE_SOCKET", probe, command, bobs, "pw"])
        #expect(embedded.status == 0, "\(embedded.error)")
        #expect(FileManager.default.fileExists(atPath: fixture.bob.home + "/.local/share/keychainkit/login.keychain-db"), "not embedded")
        let alices = try pkcs12(fixture, for: fixture.alice)
        let served = try fixture.run(as: fixture.alice, [probe, command, alices, "pw"])
        #expect(served.status == 0, "\(served.error)")
        #expect(!FileManager.default.fileExists(atPath: fixture.alice.home + "/.local/share/keychainkit/login.keychain-db"), "not served")
        return (embedded.output, served.output, fixture.log)
    }

    @Test("an identity added, found, updated and deleted through the service gives the embedded mode's statuses and result shapes")
    func identities() throws {
        let (embedded, served, log) = try Self.transcripts("identities")
        // The embedded transcript is the reference; it must show the calls working.
        for line in ["add status=0 result=Data(20) prefix=idnt", "add-again status=-25299", "find-ref status=0 result=SecIdentity",
                     "find-ref same-certificate=true", "find-ref same-key=true", "persistent-is-add's=true",
                     "find-by-persistent status=0 result=SecIdentity", "update status=0", "delete status=0",
                     "after-delete status=-25300 result=none", "after-delete-keys status=-25300 result=none", "delete-again status=-25300"] {
            #expect(embedded.contains(line + "\n") || embedded.contains(line + " "), "embedded: \(line)\n\(embedded)")
        }
        #expect(served == embedded, "service:\n\(served)\nembedded:\n\(embedded)\n\(log)")
    }

    @Test("a key added, found as a reference and by persistent reference, updated and deleted through the service gives the embedded results")
    func keys() throws {
        let (embedded, served, log) = try Self.transcripts("keys")
        for line in ["add status=0 result=Data", "find-ref status=0 result=SecKey", "find-ref same-key=true",
                     "find-by-persistent status=0 result=SecKey", "update-by-persistent status=0", "update status=0",
                     "update-missing status=-25300", "delete-by-value status=0", "after-delete status=-25300 result=none",
                     "delete-again status=-25300"] {
            #expect(embedded.contains(line), "embedded: \(line)\n\(embedded)")
        }
        #expect(served == embedded, "service:\n\(served)\nembedded:\n\(embedded)\n\(log)")
    }

    @Test("access control that sets only a protection class is served, as is one asking for the user; a Secure Enclave key is made by the service")
    func accessControlAndTokens() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let served = try fixture.run(as: fixture.alice, [try Self.probe(fixture), "access-control"])
        #expect(served.status == 0, "\(served.error)")
        for line in ["add-class-only status=0", "find-class-only status=0", "find-class-only accc=true", "update-class-only status=0",
                     "add-user-presence status=0", "secure-enclave-key created=true error=0"] {
            #expect(served.output.contains(line + "\n") || served.output.contains(line + " "), "\(line)\n\(served.output)\n\(fixture.log)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.alice.home + "/.local/share/keychainkit/login.keychain-db"))
    }
}
