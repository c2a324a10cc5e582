import Foundation
import RequiredToolSupport
import Testing

/// Keys and certificates through the service, with real users and the real keychainctl: a key
/// and a certificate made by openssl are imported (`SecItemAdd` of a `SecKey` and a
/// `SecCertificate`) and exported again (`SecItemCopyMatching` returning references), as in the
/// embedded mode; another user and another program of the same user see none of them.
@Suite("Keychain service key and certificate items (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServedKeyItemTests {
    @Test("a private key and a certificate stored through the service come back as the same key and certificate, to their owner only")
    func keysAndCertificates() throws {
        let openssl = try RequiredTool.openssl.require()
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let home = fixture.alice.home
        let made = try fixture.run(as: fixture.alice, [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                                       "-nodes", "-keyout", home + "/key.pem", "-out", home + "/cert.pem",
                                                       "-subj", "/CN=served.example", "-days", "2"])
        #expect(made.status == 0, "\(made.error)")
        let publicKey = try fixture.run(as: fixture.alice, [openssl, "pkey", "-in", home + "/key.pem", "-pubout"])
        for file in ["key.pem", "cert.pem"] {
            let imported = try fixture.run(as: fixture.alice, [fixture.program, "import", home + "/" + file, "--tag", "served"])
            #expect(imported.status == 0, "\(file): \(imported.error) \(fixture.log)")
        }
        // Nothing of Alice's keychain is in her home: the service holds it.
        #expect(!FileManager.default.fileExists(atPath: home + "/.local/share/keychainkit/login.keychain-db"))
        let keys = try fixture.run(as: fixture.alice, [fixture.program, "export", "-t", "pubkeys", "--tag", "served"])
        #expect(keys.status == 0 && keys.output == publicKey.output, "\(keys.output) \(keys.error)")
        let certificates = try fixture.run(as: fixture.alice, [fixture.program, "export", "-t", "certs"])
        let pem = try String(contentsOfFile: home + "/cert.pem", encoding: .utf8)
        #expect(certificates.status == 0 && certificates.output == pem, "\(certificates.output) \(certificates.error)")
        // Bob's keychain has neither; Alice's copy of keychainctl is another application.
        let bobs = try fixture.run(as: fixture.bob, [fixture.program, "export", "-t", "pubkeys"])
        #expect(!bobs.output.contains("PUBLIC KEY"), "\(bobs.output)")
        let copy = home + "/keychainctl"
        #expect(try fixture.run(as: fixture.alice, ["/bin/cp", fixture.program, copy]).status == 0)
        let copied = try fixture.run(as: fixture.alice, [copy, "export", "-t", "certs"])
        #expect(!copied.output.contains("CERTIFICATE"), "\(copied.output)")
    }

    @Test("the git credential helper stores and reads through the service when KEYCHAINKIT_SERVICE_SOCKET is set")
    func gitCredentialHelper() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let request = "protocol=https\nhost=git.example\nusername=alice\n"
        let stored = try fixture.run(as: fixture.alice, [fixture.program, "git-credential", "store"], stdin: request + "password=git-secret\n\n")
        #expect(stored.status == 0, "\(stored.error) \(fixture.log)")
        #expect(!FileManager.default.fileExists(atPath: fixture.alice.home + "/.local/share/keychainkit/login.keychain-db"))
        let read = try fixture.run(as: fixture.alice, [fixture.program, "git-credential", "get"], stdin: request + "\n")
        #expect(read.status == 0 && read.output.contains("password=git-secret"), "\(read.output) \(read.error)")
        let bobs = try fixture.run(as: fixture.bob, [fixture.program, "git-credential", "get"], stdin: request + "\n")
        #expect(!bobs.output.contains("git-secret"))
    }
}
