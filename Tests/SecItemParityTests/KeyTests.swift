// Key items: a SecKey added by kSecValueRef, found again as a SecKey, unique by its key attributes.
// Each test's keys carry its service as their application tag, which is how it finds (and, on
// Apple platforms, removes) its own.

import Foundation
import KeychainServices
import Testing

extension SecItemParity {
    @Suite("Key items")
    struct Keys {
        /// A new P-256 private key, not stored.
        private func newKey() throws -> SecKey {
            var error: Unmanaged<CFError>?
            let parameters: [CFString: Any] = [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256]
            let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
            if let error { Issue.record("SecKeyCreateRandomKey: \(error.takeRetainedValue())") }
            return try #require(key)
        }

        /// The X9.63 bytes of `key`'s public key.
        private func publicBytes(_ key: SecKey) -> Data? {
            SecKeyCopyPublicKey(key).flatMap { SecKeyCopyExternalRepresentation($0, nil) } as Data?
        }

        @Test("1.5 a private key added by kSecValueRef is found by its tag as a SecKey of the same key pair; the same key again is errSecDuplicateItem")
        func addAndFind() throws {
            let keychain = try ParityKeychain()
            let key = try newKey()
            let tag = bytes(keychain.service)
            let item: [CFString: Any] = [kSecClass: kSecClassKey, kSecValueRef: key, kSecAttrApplicationTag: tag]
            #expect(keychain.add(item).status == errSecSuccess)
            #expect(keychain.add(item).status == errSecDuplicateItem)
            let query: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecAttrKeyClass: kSecAttrKeyClassPrivate]
            let object = try #require(keychain.copy(query.merging([kSecReturnRef: true]) { $1 }).result)
            #expect(CFGetTypeID(object) == SecKeyGetTypeID())
            let found = unsafeDowncast(object as AnyObject, to: SecKey.self)
            #expect(publicBytes(found) == publicBytes(key))
            #expect(publicBytes(key)?.count == 65)
            // Apple fills the application label with the SHA-1 of the public key.
            let attributes = try #require(keychain.attributes(query))
            #expect((attributes[kSecAttrApplicationLabel as String] as? Data)?.count == 20)
            #expect(attributes[kSecAttrApplicationTag as String] as? Data == tag)
            // Another key with the same tag is another item (the application label differs).
            #expect(keychain.add([kSecClass: kSecClassKey, kSecValueRef: try newKey(), kSecAttrApplicationTag: tag]).status == errSecSuccess)
            #expect(keychain.count(query) == 2)
            #expect(keychain.delete(query) == errSecSuccess)
            #expect(keychain.status(query) == errSecItemNotFound)
        }

        @Test("3.2 a SecKey as kSecValueRef selects its own item in SecItemCopyMatching, SecItemUpdate and SecItemDelete")
        func keyAsQuery() throws {
            let keychain = try ParityKeychain()
            let tag = bytes(keychain.service)
            let first = try newKey(), second = try newKey()
            keychain.mustAdd([kSecClass: kSecClassKey, kSecValueRef: first, kSecAttrApplicationTag: tag, kSecAttrLabel: "first"])
            keychain.mustAdd([kSecClass: kSecClassKey, kSecValueRef: second, kSecAttrApplicationTag: tag, kSecAttrLabel: "second"])
            #expect(text(keychain.attributes([kSecValueRef: first]), kSecAttrLabel) == "first")
            let object = try #require(keychain.copy([kSecClass: kSecClassKey, kSecValueRef: second, kSecReturnRef: true]).result)
            #expect(publicBytes(unsafeDowncast(object as AnyObject, to: SecKey.self)) == publicBytes(second))
            #expect(keychain.update([kSecValueRef: first], [kSecAttrLabel: "renamed"]) == errSecSuccess)
            #expect(text(keychain.attributes([kSecValueRef: first]), kSecAttrLabel) == "renamed")
            #expect(text(keychain.attributes([kSecValueRef: second]), kSecAttrLabel) == "second")
            #expect(keychain.delete([kSecValueRef: first]) == errSecSuccess)
            #expect(keychain.status([kSecValueRef: first]) == errSecItemNotFound)
            #expect(keychain.delete([kSecValueRef: first]) == errSecItemNotFound)
            #expect(keychain.status([kSecValueRef: second]) == errSecSuccess)
        }

        @Test("3.10 a key's persistent reference alone (no kSecClass) with kSecReturnRef gives the SecKey, alone or in a dictionary")
        func persistentReferenceToKey() throws {
            let keychain = try ParityKeychain()
            let key = try newKey()
            let added = keychain.add([kSecClass: kSecClassKey, kSecValueRef: key, kSecAttrApplicationTag: bytes(keychain.service),
                                      kSecReturnPersistentRef: true])
            let reference = try #require(added.result as? Data)
            #expect(added.status == errSecSuccess)
            let alone = keychain.copy([kSecValuePersistentRef: reference, kSecReturnRef: true])
            #expect(alone.status == errSecSuccess)
            let object = try #require(alone.result, "errSecSuccess with no SecKey")
            #expect(CFGetTypeID(object) == SecKeyGetTypeID())
            #expect(publicBytes(unsafeDowncast(object as AnyObject, to: SecKey.self)) == publicBytes(key))
            let withAttributes = keychain.copy([kSecValuePersistentRef: reference, kSecReturnRef: true, kSecReturnAttributes: true])
            let dictionary = try #require(withAttributes.result as? [String: Any])
            let inDictionary = try #require(dictionary[kSecValueRef as String] as AnyObject?)
            #expect(CFGetTypeID(inDictionary) == SecKeyGetTypeID())
            #expect(dictionary[kSecAttrApplicationTag as String] as? Data == bytes(keychain.service))
        }

        @Test("3.3 a key added by kSecValueRef keeps the usage attributes SecKeyCopyAttributes gives it (kSecAttrCanSign, …CanDecrypt, …CanDerive, …)")
        func usageAttributes() throws {
            let keychain = try ParityKeychain()
            let key = try newKey()
            let tag = bytes(keychain.service)
            keychain.mustAdd([kSecClass: kSecClassKey, kSecValueRef: key, kSecAttrApplicationTag: tag])
            let stored = try #require(keychain.attributes([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag]))
            let own = try #require(SecKeyCopyAttributes(key) as? [String: Any])
            let usage = [kSecAttrCanEncrypt, kSecAttrCanDecrypt, kSecAttrCanDerive, kSecAttrCanSign, kSecAttrCanVerify,
                         kSecAttrCanWrap, kSecAttrCanUnwrap]
            for name in usage {
                let expected = try #require(own[name as String] as? Bool, "SecKeyCopyAttributes has no \(name)")
                #expect(stored[name as String] as? Bool == expected, "\(name)")
            }
            // A private P-256 key signs, and does not verify.
            #expect(stored[kSecAttrCanSign as String] as? Bool == true)
            #expect(stored[kSecAttrCanVerify as String] as? Bool == false)
            // What the caller gives wins over the key's own flags.
            let restricted = try newKey()
            keychain.mustAdd([kSecClass: kSecClassKey, kSecValueRef: restricted, kSecAttrApplicationTag: tag, kSecAttrCanSign: false])
            #expect(keychain.attributes([kSecValueRef: restricted])?[kSecAttrCanSign as String] as? Bool == false)
        }

        @Test("3.2 SecKeyCopyAttributes: every key can derive (kSecAttrCanDerive true), public or private, EC or RSA; the other usage flags follow the key's class")
        func derivationFlag() throws {
            var error: Unmanaged<CFError>?
            let rsaParameters: [CFString: Any] = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: 2048]
            let rsa = SecKeyCreateRandomKey(rsaParameters as CFDictionary, &error)
            if let error { Issue.record("SecKeyCreateRandomKey: \(error.takeRetainedValue())") }
            let ec = try newKey()
            for privateKey in [ec, try #require(rsa)] {
                let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
                for (key, isPrivate) in [(privateKey, true), (publicKey, false)] {
                    let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
                    let kind = "\(attributes[kSecAttrKeyType as String] ?? "?") \(isPrivate ? "private" : "public")"
                    #expect(attributes[kSecAttrCanDerive as String] as? Bool == true, "\(kind)")
                    #expect(attributes[kSecAttrCanSign as String] as? Bool == isPrivate, "\(kind)")
                    #expect(attributes[kSecAttrCanVerify as String] as? Bool == !isPrivate, "\(kind)")
                    #expect(attributes[kSecAttrCanDecrypt as String] as? Bool == isPrivate, "\(kind)")
                    #expect(attributes[kSecAttrCanEncrypt as String] as? Bool == !isPrivate, "\(kind)")
                    #expect(attributes[kSecAttrCanUnwrap as String] as? Bool == isPrivate, "\(kind)")
                    #expect(attributes[kSecAttrCanWrap as String] as? Bool == !isPrivate, "\(kind)")
                }
            }
        }

        @Test("6 a password attribute in a key item is errSecNoSuchAttr")
        func foreignAttribute() throws {
            let keychain = try ParityKeychain()
            let item: [CFString: Any] = [kSecClass: kSecClassKey, kSecValueRef: try newKey(), kSecAttrApplicationTag: bytes(keychain.service),
                                         kSecAttrService: "not a key attribute"]
            #expect(keychain.add(item).status == errSecNoSuchAttr)
            #expect(keychain.status([kSecClass: kSecClassKey, kSecAttrApplicationTag: bytes(keychain.service)]) == errSecItemNotFound)
        }
    }
}
