// Key items: SecKeyCreateRandomKey with kSecAttrIsPermanent, SecItemAdd by kSecValueRef or by
// kSecValueData, kSecReturnRef / kSecReturnPersistentRef, queries by tag, application label,
// type, size and key class (matched after decryption), duplicates.

import Foundation
import KeychainServices
import KeychainTestSupport
import Testing

/// A fresh keychain file in a temporary directory, passed to every call with kSecUseKeychain.
final class ScratchKeychain {
    let scratch: TemporaryKeychain
    let keychain: SecKeychain

    init() throws {
        scratch = try TemporaryKeychain.forAppleAPI("keys")
        let path = scratch.file("keys.keychain-db")
        var created: SecKeychain?
        try #require(SecKeychainCreate(path, 0, nil, false, nil, &created) == errSecSuccess)
        keychain = try #require(created)
    }

    deinit {
        _ = SecKeychainDelete(keychain)
        scratch.remove()
    }

    func copyMatching(_ query: [CFString: Any]) -> (OSStatus, CFTypeRef?) {
        var query = query
        query[kSecUseKeychain] = keychain
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    func add(_ attributes: [CFString: Any]) -> (OSStatus, CFTypeRef?) {
        var attributes = attributes
        attributes[kSecUseKeychain] = keychain
        var result: CFTypeRef?
        let status = SecItemAdd(attributes as CFDictionary, &result)
        return (status, result)
    }

    func update(_ query: [CFString: Any], _ changes: [CFString: Any]) -> OSStatus {
        var query = query
        query[kSecUseKeychain] = keychain
        return SecItemUpdate(query as CFDictionary, changes as CFDictionary)
    }

    func delete(_ query: [CFString: Any]) -> OSStatus {
        var query = query
        query[kSecUseKeychain] = keychain
        return SecItemDelete(query as CFDictionary)
    }

    /// A permanent EC key made by SecKeyCreateRandomKey in this keychain.
    func permanentKey(tag: String, bits: Int = 256) throws -> SecKey {
        try randomKey(kSecAttrKeyTypeECSECPrimeRandom, bits, extra: [
            kSecUseKeychain: keychain,
            kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data(tag.utf8)] as CFDictionary,
        ])
    }
}

@Suite("Key items in the keychain")
struct KeyItemTests {
    @Test("a permanent key is found again by tag as a SecKey that signs for the original public key")
    func permanentKeyRoundTrip() throws {
        let scratch = try ScratchKeychain()
        let created = try scratch.permanentKey(tag: "com.example.signing")
        let (status, result) = scratch.copyMatching([
            kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("com.example.signing".utf8), kSecReturnRef: true,
        ])
        #expect(status == errSecSuccess)
        let found = try #require(result as? SecKey)
        #expect(found == created)
        let publicKey = try #require(SecKeyCopyPublicKey(created))
        let signature = try #require(sign(found, .ecdsaSignatureMessageX962SHA256, Data("m".utf8)).value)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, Data("m".utf8), signature).value == true)
        // Another tag finds nothing.
        #expect(scratch.copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("other".utf8), kSecReturnRef: true]).0
            == errSecItemNotFound)
    }

    @Test("queries by key class, type, size and application label match after decryption")
    func queriesByKeyAttributes() throws {
        let scratch = try ScratchKeychain()
        let p256 = try scratch.permanentKey(tag: "a")
        let p384 = try scratch.permanentKey(tag: "b", bits: 384)
        func find(_ filters: [CFString: Any]) -> [SecKey] {
            var query: [CFString: Any] = [kSecClass: kSecClassKey, kSecReturnRef: true, kSecMatchLimit: kSecMatchLimitAll]
            query.merge(filters) { $1 }
            let (status, result) = scratch.copyMatching(query)
            return status == errSecSuccess ? (result as? [Any] ?? []).compactMap { $0 as? SecKey } : []
        }
        #expect(Set(find([:])) == [p256, p384])
        #expect(find([kSecAttrKeySizeInBits: 384]) == [p384])
        #expect(find([kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256]) == [p256])
        #expect(find([kSecAttrKeyClass: kSecAttrKeyClassPrivate]).count == 2)
        #expect(find([kSecAttrKeyClass: kSecAttrKeyClassPublic]).isEmpty)
        #expect(find([kSecAttrKeyType: kSecAttrKeyTypeRSA]).isEmpty)
        let label = try #require(SecKeyCopyAttributes(p384) as? [String: Any])[kSecAttrApplicationLabel as String] as? Data
        #expect(find([kSecAttrApplicationLabel: try #require(label)]) == [p384])
    }

    @Test("adding the same key twice is errSecDuplicateItem; the public half is a separate item")
    func duplicates() throws {
        let scratch = try ScratchKeychain()
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)
        #expect(scratch.add([kSecValueRef: key, kSecAttrApplicationTag: Data("t".utf8)]).0 == errSecSuccess)
        #expect(scratch.add([kSecValueRef: key, kSecAttrApplicationTag: Data("t".utf8)]).0 == errSecDuplicateItem)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        #expect(scratch.add([kSecValueRef: publicKey, kSecAttrApplicationTag: Data("t".utf8)]).0 == errSecSuccess)
        #expect(scratch.add([kSecValueRef: publicKey, kSecAttrApplicationTag: Data("t".utf8)]).0 == errSecDuplicateItem)
    }

    @Test("result shapes: ref alone, ref with attributes and persistent ref, arrays; delete by tag")
    func resultShapes() throws {
        let scratch = try ScratchKeychain()
        let key = try randomKey(kSecAttrKeyTypeRSA, 2048)
        let (added, persistent) = scratch.add([kSecValueRef: key, kSecAttrApplicationTag: Data("rsa".utf8),
                                               kSecAttrLabel: "my key", kSecReturnPersistentRef: true])
        #expect(added == errSecSuccess)
        let reference = try #require(persistent as? Data)

        let (status, result) = scratch.copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("rsa".utf8),
                                                     kSecReturnRef: true, kSecReturnAttributes: true, kSecReturnPersistentRef: true])
        #expect(status == errSecSuccess)
        let dictionary = try #require(result as? [String: Any])
        #expect(dictionary[kSecValueRef as String] as? SecKey == key)
        #expect(dictionary[kSecValuePersistentRef as String] as? Data == reference)
        #expect(dictionary[kSecAttrLabel as String] as? String == "my key")
        #expect(dictionary[kSecValueData as String] == nil, "key bytes only when kSecReturnData is asked for")
        #expect((dictionary[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == 2048)

        let byReference = scratch.copyMatching([kSecClass: kSecClassKey, kSecValuePersistentRef: reference, kSecReturnRef: true])
        #expect(byReference.1 as? SecKey == key)

        #expect(scratch.delete([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("rsa".utf8)]) == errSecSuccess)
        #expect(scratch.copyMatching([kSecClass: kSecClassKey, kSecReturnRef: true]).0 == errSecItemNotFound)
    }

    @Test("a key added as kSecValueData with its attributes comes back as a SecKey")
    func addByData() throws {
        let scratch = try ScratchKeychain()
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 384)
        let status = scratch.add([
            kSecClass: kSecClassKey, kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPrivate,
            kSecAttrKeySizeInBits: 384, kSecAttrApplicationTag: Data("by-data".utf8), kSecValueData: try externalRepresentation(key),
        ]).0
        #expect(status == errSecSuccess)
        let found = scratch.copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("by-data".utf8), kSecReturnRef: true])
        #expect(found.1 as? SecKey == key)
    }

    @Test("a kSecValueRef that is not a SecKey, or with another class, is errSecParam")
    func badValueRef() throws {
        let scratch = try ScratchKeychain()
        #expect(scratch.add([kSecValueRef: "not a key"]).0 == errSecParam)
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)
        #expect(scratch.add([kSecClass: kSecClassGenericPassword, kSecValueRef: key]).0 == errSecParam)
    }
}

@Suite("Secure Enclave keys (software-bound on Linux)")
struct SecureEnclaveKeyTests {
    static var parameters: [CFString: Any] {
        [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256, kSecAttrTokenID: kSecAttrTokenIDSecureEnclave]
    }

    @Test("a Secure Enclave key signs and shares its public key, but its private key cannot be exported")
    func nonExportable() throws {
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256, extra: [kSecAttrTokenID: kSecAttrTokenIDSecureEnclave])
        let export = capture { SecKeyCopyExternalRepresentation(key, $0) }
        #expect(export.value == nil && export.code == Int(errSecUnimplemented))
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        #expect(try externalRepresentation(publicKey).count == 65)
        let signature = try #require(sign(key, .ecdsaSignatureMessageX962SHA256, Data("m".utf8)).value)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, Data("m".utf8), signature).value == true)
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
    }

    @Test("only 256-bit EC keys can be Secure Enclave keys")
    func onlyP256() {
        var parameters = Self.parameters
        parameters[kSecAttrKeySizeInBits] = 384
        #expect(capture { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }.code == Int(errSecParam))
        parameters[kSecAttrKeyType] = kSecAttrKeyTypeRSA
        parameters[kSecAttrKeySizeInBits] = 2048
        #expect(capture { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }.code == Int(errSecParam))
    }

    @Test("a stored Secure Enclave key comes back non-exportable, and SecItemCopyMatching never returns its bytes")
    func storedStaysBound() throws {
        let scratch = try ScratchKeychain()
        var parameters = Self.parameters
        parameters[kSecUseKeychain] = scratch.keychain
        parameters[kSecPrivateKeyAttrs] = [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("se".utf8)] as CFDictionary
        let created = try #require(capture { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }.value)
        let query: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("se".utf8)]

        let found = try #require(scratch.copyMatching(query.merging([kSecReturnRef: true]) { $1 }).1 as? SecKey)
        #expect(found == created)
        #expect(capture { SecKeyCopyExternalRepresentation(found, $0) }.code == Int(errSecUnimplemented))

        let data = scratch.copyMatching(query.merging([kSecReturnData: true]) { $1 })
        #expect(data.0 == errSecSuccess && (data.1 as? Data)?.isEmpty == true)
        let both = scratch.copyMatching(query.merging([kSecReturnData: true, kSecReturnAttributes: true]) { $1 })
        let dictionary = try #require(both.1 as? [String: Any])
        #expect((dictionary[kSecValueData as String] as? Data)?.isEmpty == true)
        #expect(dictionary[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
    }

    @Test("an attacker cannot move a Secure Enclave key out of its token: SecItemUpdate naming another kSecAttrTokenID is errSecParam and the key stays bound; repeating its own is accepted")
    func tokenIDIsFixed() throws {
        let scratch = try ScratchKeychain()
        var parameters = Self.parameters
        parameters[kSecUseKeychain] = scratch.keychain
        parameters[kSecPrivateKeyAttrs] = [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("se-fixed".utf8)] as CFDictionary
        let created = try #require(capture { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }.value)
        let query: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("se-fixed".utf8)]

        // Unauthenticated updates that would strip or replace the token binding.
        #expect(scratch.update(query, [kSecAttrTokenID: "com.example.other-token"]) == errSecParam)
        #expect(scratch.update(query, [kSecAttrTokenID: ""]) == errSecParam)
        #expect(scratch.update(query, [kSecAttrTokenID: "com.example.other-token", kSecAttrLabel: "relabel"]) == errSecParam)
        // Nothing changed: the label update in the refused call did not happen either.
        let attributes = try #require(scratch.copyMatching(query.merging([kSecReturnAttributes: true]) { $1 }).1 as? [String: Any])
        #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
        #expect(attributes[kSecAttrLabel as String] as? String != "relabel")
        // Writing back what was read (its own token included) is an ordinary update, as on Apple.
        #expect(scratch.update(query, [kSecAttrTokenID: kSecAttrTokenIDSecureEnclave, kSecAttrLabel: "written back"]) == errSecSuccess)
        let rewritten = try #require(scratch.copyMatching(query.merging([kSecReturnAttributes: true]) { $1 }).1 as? [String: Any])
        #expect(rewritten[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
        #expect(rewritten[kSecAttrLabel as String] as? String == "written back")
        // Other attributes still update, and the key stays non-exportable.
        #expect(scratch.update(query, [kSecAttrLabel: "renamed"]) == errSecSuccess)
        let found = try #require(scratch.copyMatching(query.merging([kSecReturnRef: true]) { $1 }).1 as? SecKey)
        #expect(found == created)
        #expect(capture { SecKeyCopyExternalRepresentation(found, $0) }.code == Int(errSecUnimplemented))
        let data = scratch.copyMatching(query.merging([kSecReturnData: true]) { $1 })
        #expect(data.0 == errSecSuccess && (data.1 as? Data)?.isEmpty == true)

        // A software key cannot be moved into the token either.
        _ = try scratch.permanentKey(tag: "software")
        let software: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("software".utf8)]
        #expect(scratch.update(software, [kSecAttrTokenID: kSecAttrTokenIDSecureEnclave]) == errSecParam)
    }

    @Test("a Secure Enclave key's bytes are not returned by any query shape: persistent reference, class-less, identity-free")
    func bytesNeverReturned() throws {
        let scratch = try ScratchKeychain()
        var parameters = Self.parameters
        parameters[kSecUseKeychain] = scratch.keychain
        parameters[kSecPrivateKeyAttrs] = [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("se-bytes".utf8)] as CFDictionary
        _ = try #require(capture { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }.value)
        let query: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("se-bytes".utf8)]
        let reference = try #require(scratch.copyMatching(query.merging([kSecReturnPersistentRef: true]) { $1 }).1 as? Data)

        // By persistent reference alone (no kSecClass): the engine answers directly.
        let byReference = scratch.copyMatching([kSecValuePersistentRef: reference, kSecReturnData: true])
        #expect(byReference.0 == errSecSuccess && (byReference.1 as? Data)?.isEmpty == true)
        let withAttributes = scratch.copyMatching([kSecValuePersistentRef: reference, kSecReturnData: true, kSecReturnAttributes: true])
        let dictionary = try #require(withAttributes.1 as? [String: Any])
        #expect((dictionary[kSecValueData as String] as? Data)?.isEmpty == true)
        // Every key, all at once.
        let all = scratch.copyMatching([kSecClass: kSecClassKey, kSecMatchLimit: kSecMatchLimitAll, kSecReturnData: true,
                                        kSecAttrTokenID: kSecAttrTokenIDSecureEnclave])
        let items = try #require(all.1 as? [Data])
        #expect(!items.isEmpty && items.allSatisfy(\.isEmpty))
    }
}

@Suite("Key item data returns")
struct KeyItemDataReturnTests {
    @Test("kSecReturnData of an ordinary key item gives its external representation; with a persistent ref, just those two")
    func dataShapes() throws {
        let scratch = try ScratchKeychain()
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)
        #expect(scratch.add([kSecValueRef: key, kSecAttrApplicationTag: Data("d".utf8)]).0 == errSecSuccess)
        let query: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("d".utf8)]
        #expect(scratch.copyMatching(query.merging([kSecReturnData: true]) { $1 }).1 as? Data == (try externalRepresentation(key)))
        let pair = try #require(scratch.copyMatching(query.merging([kSecReturnData: true, kSecReturnPersistentRef: true]) { $1 }).1
            as? [String: Any])
        #expect(Set(pair.keys) == [kSecValueData as String, kSecValuePersistentRef as String])
    }
}
