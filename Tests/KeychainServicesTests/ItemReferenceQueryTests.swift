// kSecValueRef in queries (SecKey, SecCertificate, SecIdentity select the item they denote) and
// identities in SecItemCopyMatching (data, persistent references), SecItemUpdate and
// SecItemDelete, with certificates and keys the real openssl command makes.

import Foundation
import KeychainServices
import Testing
import RequiredToolSupport

/// Makes RSA keys and self-signed certificates with openssl.
struct IdentityFactory {
    let workspace: OpenSSLWorkspace

    init() throws { workspace = try OpenSSLWorkspace() }

    /// A new RSA key named `keyName` (PKCS#1 DER read back as a SecKey).
    func key(_ keyName: String) throws -> SecKey {
        try workspace.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(keyName).pem"])
        try workspace.openssl(["rsa", "-in", "\(keyName).pem", "-traditional", "-outform", "DER", "-out", "\(keyName).der"])
        return try #require(importKey(try workspace.read("\(keyName).der"), type: kSecAttrKeyTypeRSA, privateClass: true).value)
    }

    /// A self-signed certificate for the key `keyName`.
    func certificate(key keyName: String, commonName: String, serial: String) throws -> SecCertificate {
        try workspace.openssl(["req", "-x509", "-new", "-key", "\(keyName).pem", "-subj", "/CN=\(commonName)", "-days", "2",
                               "-set_serial", serial, "-outform", "DER", "-out", "cert-\(serial).der"])
        return try #require(SecCertificateCreateWithData(nil, try workspace.read("cert-\(serial).der") as CFData))
    }
}

/// Adds a certificate and its key to `scratch` and returns the identity the keychain makes of them.
private func storedIdentity(_ scratch: ScratchKeychain, _ certificate: SecCertificate, _ key: SecKey) throws -> SecIdentity {
    try #require(scratch.add([kSecValueRef: certificate]).0 == errSecSuccess)
    let keyAdded = scratch.add([kSecValueRef: key]).0
    try #require(keyAdded == errSecSuccess || keyAdded == errSecDuplicateItem)
    let serial = try #require(SecCertificateCopySerialNumberData(certificate, nil) as Data?)
    let found = scratch.copyMatching([kSecClass: kSecClassIdentity, kSecAttrSerialNumber: serial, kSecReturnRef: true])
    return try #require(found.1 as? SecIdentity)
}

/// An identity object for `certificate` and `key` made through a scratch keychain of its own.
private func certificateIdentityProbe(_ certificate: SecCertificate, _ key: SecKey) throws -> SecIdentity {
    let probe = try ScratchKeychain()
    #expect(probe.add([kSecValueRef: certificate]).0 == errSecSuccess)
    #expect(probe.add([kSecValueRef: key]).0 == errSecSuccess)
    return try #require(probe.copyMatching([kSecClass: kSecClassIdentity, kSecReturnRef: true]).1 as? SecIdentity)
}

@Suite("kSecValueRef in queries", .integration, .tags(.external, .openssl))
struct ValueRefQueryTests {
    @Test("a SecKey selects its own key item in SecItemCopyMatching, SecItemUpdate and SecItemDelete")
    func keyReference() throws {
        let scratch = try ScratchKeychain()
        let first = try scratch.permanentKey(tag: "first")
        let second = try scratch.permanentKey(tag: "second")

        let found = scratch.copyMatching([kSecValueRef: first, kSecReturnAttributes: true])
        #expect(found.0 == errSecSuccess)
        #expect((found.1 as? [String: Any])?[kSecAttrApplicationTag as String] as? Data == Data("first".utf8))
        #expect(scratch.copyMatching([kSecClass: kSecClassKey, kSecValueRef: second, kSecReturnRef: true]).1 as? SecKey == second)

        #expect(scratch.update([kSecValueRef: first], [kSecAttrLabel: "renamed"]) == errSecSuccess)
        let labels = scratch.copyMatching([kSecClass: kSecClassKey, kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitAll])
        let byTag = Dictionary(uniqueKeysWithValues: (labels.1 as? [[String: Any]] ?? []).compactMap { item in
            (item[kSecAttrApplicationTag as String] as? Data).map { ($0, item[kSecAttrLabel as String] as? String) }
        })
        #expect(byTag[Data("first".utf8)] == "renamed")
        #expect(byTag[Data("second".utf8)] != "renamed")

        #expect(scratch.delete([kSecValueRef: first]) == errSecSuccess)
        #expect(scratch.copyMatching([kSecValueRef: first]).0 == errSecItemNotFound)
        #expect(scratch.copyMatching([kSecValueRef: second, kSecReturnRef: true]).1 as? SecKey == second)
        #expect(scratch.delete([kSecValueRef: first]) == errSecItemNotFound)
    }

    @Test("a SecCertificate selects its certificate item by issuer and serial number")
    func certificateReference() throws {
        let factory = try IdentityFactory()
        _ = try factory.key("k")
        let one = try factory.certificate(key: "k", commonName: "One", serial: "11")
        let two = try factory.certificate(key: "k", commonName: "Two", serial: "12")
        let scratch = try ScratchKeychain()
        #expect(scratch.add([kSecValueRef: one]).0 == errSecSuccess)
        #expect(scratch.add([kSecValueRef: two]).0 == errSecSuccess)

        #expect(scratch.copyMatching([kSecValueRef: two, kSecReturnRef: true]).1 as? SecCertificate == two)
        #expect(scratch.copyMatching([kSecClass: kSecClassCertificate, kSecValueRef: one, kSecReturnRef: true]).1
            as? SecCertificate == one)
        #expect(scratch.update([kSecValueRef: one], [kSecAttrLabel: "first"]) == errSecSuccess)
        let label = scratch.copyMatching([kSecValueRef: one, kSecReturnAttributes: true]).1 as? [String: Any]
        #expect(label?[kSecAttrLabel as String] as? String == "first")
        #expect(scratch.delete([kSecValueRef: one]) == errSecSuccess)
        #expect(scratch.copyMatching([kSecValueRef: one]).0 == errSecItemNotFound)
        #expect(scratch.copyMatching([kSecValueRef: two, kSecReturnRef: true]).1 as? SecCertificate == two)
    }

    @Test("another object, or a class that is not the object's, is errSecParam and changes nothing")
    func badReferences() throws {
        let scratch = try ScratchKeychain()
        let key = try scratch.permanentKey(tag: "kept")
        #expect(scratch.copyMatching([kSecClass: kSecClassKey, kSecValueRef: "not a key"]).0 == errSecParam)
        #expect(scratch.update([kSecClass: kSecClassKey, kSecValueRef: Data([1])], [kSecAttrLabel: "x"]) == errSecParam)
        #expect(scratch.delete([kSecClass: kSecClassKey, kSecValueRef: NSNumber(value: 1)]) == errSecParam)
        #expect(scratch.delete([kSecClass: kSecClassGenericPassword, kSecValueRef: key]) == errSecParam)
        #expect(scratch.delete([kSecClass: kSecClassCertificate, kSecValueRef: key]) == errSecParam)
        #expect(scratch.copyMatching([kSecValueRef: key, kSecReturnRef: true]).1 as? SecKey == key)
    }
}

@Suite("Identities: references, data, update and delete", .integration, .tags(.external, .openssl))
struct IdentityItemTests {
    @Test("a SecIdentity as kSecValueRef answers as Apple's explode_identity; persistent references round-trip")
    func identityQueries() throws {
        let factory = try IdentityFactory()
        let aliceKey = try factory.key("alice")
        let alice = try factory.certificate(key: "alice", commonName: "Alice", serial: "21")
        let bobKey = try factory.key("bob")
        let bob = try factory.certificate(key: "bob", commonName: "Bob", serial: "22")
        let scratch = try ScratchKeychain()
        let aliceIdentity = try storedIdentity(scratch, alice, aliceKey)
        let bobIdentity = try storedIdentity(scratch, bob, bobKey)
        #expect(aliceIdentity != bobIdentity)

        // Apple's client library runs a SecIdentity query once for the certificate (keeping its
        // result only when it is a persistent reference) and once for the key (for the status),
        // so every other result shape succeeds with no result (OSX/sec/Security/SecItem.m,
        // explode_identity; dm-zharov/swift-security's own tests, run on a device, expect this).
        for returns in [[kSecReturnRef: true], [kSecReturnData: true], [kSecReturnAttributes: true],
                        [kSecReturnRef: true, kSecReturnData: true, kSecReturnAttributes: true, kSecReturnPersistentRef: true],
                        [kSecReturnPersistentRef: true, kSecMatchLimit: kSecMatchLimitAll]] as [[CFString: Any]] {
            let answer = scratch.copyMatching([kSecValueRef: aliceIdentity].merging(returns) { _, asked in asked })
            #expect(answer.0 == errSecSuccess && answer.1 == nil, "\(returns.keys.sorted { "\($0)" < "\($1)" })")
        }
        let classed = scratch.copyMatching([kSecClass: kSecClassIdentity, kSecValueRef: aliceIdentity, kSecReturnRef: true])
        #expect(classed.0 == errSecSuccess && classed.1 == nil)

        let reference = try #require(scratch.copyMatching([kSecValueRef: bobIdentity, kSecReturnPersistentRef: true]).1 as? Data)
        #expect(reference.count == 20 && reference.prefix(4) == Data("idnt".utf8))
        #expect(scratch.copyMatching([kSecValuePersistentRef: reference, kSecReturnRef: true]).1 as? SecIdentity == bobIdentity)
        #expect(scratch.copyMatching([kSecClass: kSecClassIdentity, kSecValuePersistentRef: reference, kSecReturnRef: true]).1
            as? SecIdentity == bobIdentity)
        let byReference = scratch.copyMatching([kSecValuePersistentRef: reference, kSecReturnData: true])
        #expect(byReference.1 as? Data == (try externalRepresentation(bobKey)), "by persistent reference, data is the key's")

        let aliceReference = try #require(scratch.copyMatching([kSecValueRef: aliceIdentity, kSecReturnPersistentRef: true]).1 as? Data)
        #expect(aliceReference != reference)
        #expect(scratch.copyMatching([kSecValuePersistentRef: aliceReference, kSecReturnRef: true]).1 as? SecIdentity == aliceIdentity)
        let everything = scratch.copyMatching([kSecValuePersistentRef: aliceReference, kSecReturnRef: true, kSecReturnData: true,
                                               kSecReturnAttributes: true, kSecReturnPersistentRef: true])
        let entry = try #require(everything.1 as? [String: Any])
        #expect(entry[kSecValueRef as String] as? SecIdentity == aliceIdentity)
        #expect(entry[kSecValueData as String] as? Data == (try externalRepresentation(aliceKey)))
        #expect(entry[kSecAttrLabel as String] as? String == "Alice", "certificate attributes win over the key's")
        #expect(entry[kSecAttrKeyType as String] != nil, "the key's attributes are there too")

        let all = scratch.copyMatching([kSecClass: kSecClassIdentity, kSecReturnPersistentRef: true, kSecMatchLimit: kSecMatchLimitAll])
        #expect(Set((all.1 as? [Data]) ?? []) == [reference, aliceReference])
    }

    @Test("adding a SecIdentity returns the identity's persistent reference; adding it again is a duplicate")
    func addReturnsReference() throws {
        let factory = try IdentityFactory()
        let key = try factory.key("carol")
        let certificate = try factory.certificate(key: "carol", commonName: "Carol", serial: "31")
        let identity = try certificateIdentityProbe(certificate, key)
        let scratch = try ScratchKeychain()
        let added = scratch.add([kSecValueRef: identity, kSecReturnPersistentRef: true])
        #expect(added.0 == errSecSuccess)
        let reference = try #require(added.1 as? Data)
        #expect(reference.prefix(4) == Data("idnt".utf8))
        #expect(scratch.copyMatching([kSecValuePersistentRef: reference, kSecReturnRef: true]).1 as? SecIdentity == identity)
        #expect(scratch.add([kSecValueRef: identity]).0 == errSecDuplicateItem)
    }

    @Test("SecItemUpdate of an identity changes both the certificate and the private key")
    func updateBothHalves() throws {
        let factory = try IdentityFactory()
        let key = try factory.key("dave")
        let certificate = try factory.certificate(key: "dave", commonName: "Dave", serial: "41")
        let otherKey = try factory.key("erin")
        let other = try factory.certificate(key: "erin", commonName: "Erin", serial: "42")
        let scratch = try ScratchKeychain()
        let identity = try storedIdentity(scratch, certificate, key)
        _ = try storedIdentity(scratch, other, otherKey)

        #expect(scratch.update([kSecValueRef: identity], [kSecAttrLabel: "by reference"]) == errSecSuccess)
        func label(_ query: [CFString: Any]) -> String? {
            var query = query
            query[kSecReturnAttributes] = true
            return (scratch.copyMatching(query).1 as? [String: Any])?[kSecAttrLabel as String] as? String
        }
        #expect(label([kSecValueRef: certificate]) == "by reference")
        #expect(label([kSecValueRef: key]) == "by reference")
        #expect(label([kSecValueRef: other]) == "Erin", "the other identity is untouched")

        #expect(scratch.update([kSecClass: kSecClassIdentity, kSecAttrLabel: "by reference"], [kSecAttrLabel: "by query"]) == errSecSuccess)
        #expect(label([kSecValueRef: certificate]) == "by query")
        #expect(label([kSecValueRef: key]) == "by query")
        #expect(label([kSecValueRef: otherKey]) != "by query")
        #expect(scratch.update([kSecClass: kSecClassIdentity, kSecAttrLabel: "nobody"], [kSecAttrLabel: "x"]) == errSecItemNotFound)
    }

    @Test("SecItemDelete of an identity deletes the certificate, and the key once no certificate uses it")
    func deleteBothHalves() throws {
        let factory = try IdentityFactory()
        let key = try factory.key("frank")
        let first = try factory.certificate(key: "frank", commonName: "Frank", serial: "51")
        let second = try factory.certificate(key: "frank", commonName: "Frank again", serial: "52")
        let otherKey = try factory.key("grace")
        let other = try factory.certificate(key: "grace", commonName: "Grace", serial: "53")
        let scratch = try ScratchKeychain()
        let firstIdentity = try storedIdentity(scratch, first, key)
        _ = try storedIdentity(scratch, second, key)
        _ = try storedIdentity(scratch, other, otherKey)

        #expect(scratch.delete([kSecValueRef: firstIdentity]) == errSecSuccess)
        #expect(scratch.copyMatching([kSecValueRef: first]).0 == errSecItemNotFound)
        #expect(scratch.copyMatching([kSecValueRef: key]).0 == errSecSuccess, "the second certificate still uses the key")
        #expect(scratch.delete([kSecValueRef: firstIdentity]) == errSecItemNotFound)

        #expect(scratch.delete([kSecClass: kSecClassIdentity, kSecAttrLabel: "Frank again"]) == errSecSuccess)
        #expect(scratch.copyMatching([kSecValueRef: second]).0 == errSecItemNotFound)
        #expect(scratch.copyMatching([kSecValueRef: key]).0 == errSecItemNotFound, "no certificate uses the key any more")
        #expect(scratch.copyMatching([kSecValueRef: other]).0 == errSecSuccess)
        #expect(scratch.copyMatching([kSecValueRef: otherKey]).0 == errSecSuccess)

        let reference = try #require(scratch.copyMatching([kSecClass: kSecClassIdentity, kSecReturnPersistentRef: true]).1 as? Data)
        #expect(scratch.delete([kSecValuePersistentRef: reference]) == errSecSuccess)
        #expect(scratch.copyMatching([kSecValueRef: other]).0 == errSecItemNotFound)
        #expect(scratch.copyMatching([kSecValueRef: otherKey]).0 == errSecItemNotFound)
    }

    @Test("identity queries filter as securityd's join: label, issuer, serial from the certificate, key attributes from the key")
    func attributesOfEitherHalf() throws {
        let factory = try IdentityFactory()
        let taggedKey = try factory.key("tagged")
        let tagged = try factory.certificate(key: "tagged", commonName: "Tagged", serial: "71")
        let plainKey = try factory.key("plain")
        let plain = try factory.certificate(key: "plain", commonName: "Plain", serial: "72")
        let scratch = try ScratchKeychain()
        #expect(scratch.add([kSecValueRef: taggedKey, kSecAttrApplicationTag: Data("the-tag".utf8), kSecAttrLabel: "key label"]).0
            == errSecSuccess)
        #expect(scratch.add([kSecValueRef: tagged]).0 == errSecSuccess)
        let plainIdentity = try storedIdentity(scratch, plain, plainKey)
        let taggedIdentity = try #require(scratch.copyMatching([kSecClass: kSecClassIdentity, kSecAttrLabel: "Tagged",
                                                                kSecReturnRef: true]).1 as? SecIdentity)

        let byTag = scratch.copyMatching([kSecClass: kSecClassIdentity, kSecAttrApplicationTag: Data("the-tag".utf8),
                                          kSecReturnRef: true, kSecMatchLimit: kSecMatchLimitAll])
        #expect(byTag.0 == errSecSuccess)
        #expect((byTag.1 as? [Any])?.compactMap { $0 as? SecIdentity } == [taggedIdentity])
        let bySize = scratch.copyMatching([kSecClass: kSecClassIdentity, kSecAttrKeySizeInBits: 2048, kSecReturnRef: true,
                                           kSecMatchLimit: kSecMatchLimitAll])
        #expect(Set((bySize.1 as? [Any])?.compactMap { $0 as? SecIdentity } ?? []) == [taggedIdentity, plainIdentity])
        #expect(scratch.copyMatching([kSecClass: kSecClassIdentity, kSecAttrLabel: "key label"]).0 == errSecItemNotFound,
                "the label is the certificate's")
        #expect(scratch.copyMatching([kSecClass: kSecClassIdentity, kSecAttrApplicationTag: Data("other".utf8)]).0 == errSecItemNotFound)

        #expect(scratch.delete([kSecClass: kSecClassIdentity, kSecAttrApplicationTag: Data("the-tag".utf8)]) == errSecSuccess)
        #expect(scratch.copyMatching([kSecValueRef: tagged]).0 == errSecItemNotFound)
        #expect(scratch.copyMatching([kSecValueRef: taggedKey]).0 == errSecItemNotFound)
        let plainReference = scratch.copyMatching([kSecValueRef: plainIdentity, kSecReturnPersistentRef: true])
        #expect(plainReference.0 == errSecSuccess && (plainReference.1 as? Data)?.prefix(4) == Data("idnt".utf8))
    }
}
