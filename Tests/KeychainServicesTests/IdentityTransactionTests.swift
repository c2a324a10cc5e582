// An identity is two items, a certificate and its private key. Adding, updating or deleting one is
// a single transaction: an I/O failure at any point leaves both halves as they were (neither
// added, the old identity intact, nothing deleted), never half an identity. Checked by failing,
// one run at a time, every SQLite call the operation makes (the IOSeam fault injection of debug
// builds).

#if KEYCHAINKIT_FAULT_INJECTION
import Foundation
import KeychainServices
import KeychainStore
import RequiredToolSupport
import Testing

@Suite("Identities: add, update and delete are one transaction", .integration, .tags(.external, .openssl))
struct IdentityTransactionTests {
    /// SQLite's `SQLITE_IOERR`.
    private static let ioError: Int32 = 10

    /// A self-signed RSA certificate and its private key from openssl.
    private static func makeIdentity() throws -> SecIdentity {
        let workspace = try OpenSSLWorkspace()
        try workspace.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"])
        try workspace.openssl(["req", "-x509", "-new", "-key", "key.pem", "-subj", "/CN=Transaction Leaf", "-days", "2",
                               "-set_serial", "11", "-outform", "DER", "-out", "cert.der"])
        try workspace.openssl(["rsa", "-in", "key.pem", "-traditional", "-outform", "DER", "-out", "key.der"])
        let certificate = try #require(SecCertificateCreateWithData(nil, try workspace.read("cert.der") as CFData))
        let key = try #require(importKey(try workspace.read("key.der"), type: kSecAttrKeyTypeRSA, privateClass: true).value)
        return try #require(SecIdentityCreate(nil, certificate, key))
    }

    /// Runs `body` with the `failing`th SQLite call (counting prepares, steps and execs on this
    /// thread) failing once with an I/O error; nil fails none. Returns `body`'s status and how
    /// many such calls it made.
    private func run(failing target: Int?, _ body: () -> OSStatus) -> (status: OSStatus, calls: Int) {
        var calls = 0
        let observer = IOSeam.Observer { call, _ in
            guard [.sqlitePrepare, .sqliteStep, .sqliteExec].contains(call) else { return nil }
            calls += 1
            return calls == target ? .sqlite(Self.ioError) : nil
        }
        let status = IOSeam.withObserver(observer, body)
        return (status, calls)
    }

    /// The labels of the stored certificates and of the stored private keys.
    private func halves(in scratch: ScratchKeychain) -> (certificates: [String], keys: [String]) {
        func labels(_ query: [CFString: Any]) -> [String] {
            var query = query
            query[kSecReturnAttributes] = true
            query[kSecMatchLimit] = kSecMatchLimitAll
            let items = scratch.copyMatching(query).1 as? [[String: Any]] ?? []
            return items.map { $0[kSecAttrLabel as String] as? String ?? "" }
        }
        return (labels([kSecClass: kSecClassCertificate]), labels([kSecClass: kSecClassKey, kSecAttrKeyClass: kSecAttrKeyClassPrivate]))
    }

    @Test("a failure at any point of an add leaves neither the certificate nor the key")
    func addIsAllOrNothing() throws {
        let identity = try Self.makeIdentity()
        let add = { (scratch: ScratchKeychain) in scratch.add([kSecValueRef: identity, kSecAttrLabel: "old"]).0 }
        let clean = try ScratchKeychain()
        let (status, calls) = run(failing: nil) { add(clean) }
        try #require(status == errSecSuccess)
        #expect(halves(in: clean).certificates == ["old"] && halves(in: clean).keys == ["old"])
        var failures = 0
        for target in 1...calls {
            let scratch = try ScratchKeychain()
            let outcome = run(failing: target) { add(scratch) }.status
            let stored = halves(in: scratch)
            if outcome == errSecSuccess {
                #expect(stored.certificates == ["old"] && stored.keys == ["old"], "call \(target): \(stored)")
            } else {
                failures += 1
                #expect(stored.certificates.isEmpty && stored.keys.isEmpty, "call \(target) failed (\(outcome)) and left \(stored)")
            }
        }
        #expect(failures > 0, "no injected failure reached the add")
    }

    @Test("a failure at any point of an update leaves the old identity intact, both halves")
    func updateIsAllOrNothing() throws {
        let identity = try Self.makeIdentity()
        let update = { (scratch: ScratchKeychain) in
            scratch.update([kSecClass: kSecClassIdentity, kSecAttrLabel: "old"], [kSecAttrLabel: "new"])
        }
        let prepared = { () throws -> ScratchKeychain in
            let scratch = try ScratchKeychain()
            try #require(scratch.add([kSecValueRef: identity, kSecAttrLabel: "old"]).0 == errSecSuccess)
            return scratch
        }
        let clean = try prepared()
        let (status, calls) = run(failing: nil) { update(clean) }
        try #require(status == errSecSuccess)
        #expect(halves(in: clean).certificates == ["new"] && halves(in: clean).keys == ["new"])
        var failures = 0
        for target in 1...calls {
            let scratch = try prepared()
            let outcome = run(failing: target) { update(scratch) }.status
            let stored = halves(in: scratch)
            if outcome == errSecSuccess {
                #expect(stored.certificates == ["new"] && stored.keys == ["new"], "call \(target): \(stored)")
            } else {
                failures += 1
                #expect(stored.certificates == ["old"] && stored.keys == ["old"], "call \(target) failed (\(outcome)) and left \(stored)")
            }
        }
        #expect(failures > 0, "no injected failure reached the update")
    }

    @Test("a failure at any point of a delete deletes nothing")
    func deleteIsAllOrNothing() throws {
        let identity = try Self.makeIdentity()
        let delete = { (scratch: ScratchKeychain) in scratch.delete([kSecClass: kSecClassIdentity, kSecAttrLabel: "old"]) }
        let prepared = { () throws -> ScratchKeychain in
            let scratch = try ScratchKeychain()
            try #require(scratch.add([kSecValueRef: identity, kSecAttrLabel: "old"]).0 == errSecSuccess)
            return scratch
        }
        let clean = try prepared()
        let (status, calls) = run(failing: nil) { delete(clean) }
        try #require(status == errSecSuccess)
        #expect(halves(in: clean).certificates.isEmpty && halves(in: clean).keys.isEmpty)
        var failures = 0
        for target in 1...calls {
            let scratch = try prepared()
            let outcome = run(failing: target) { delete(scratch) }.status
            let stored = halves(in: scratch)
            if outcome == errSecSuccess {
                #expect(stored.certificates.isEmpty && stored.keys.isEmpty, "call \(target): \(stored)")
            } else {
                failures += 1
                #expect(stored.certificates == ["old"] && stored.keys == ["old"], "call \(target) failed (\(outcome)) and left \(stored)")
            }
        }
        #expect(failures > 0, "no injected failure reached the delete")
    }
}
#endif
