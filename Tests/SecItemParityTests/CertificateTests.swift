// Certificate items: added by kSecValueRef, returned as SecCertificate objects, data and
// persistent references. The fixture certificate is labelled with the test's service, which is how
// each test finds (and, on Apple platforms, removes) its own.

import Foundation
import KeychainServices
import Testing

extension SecItemParity {
    @Suite("Certificate items")
    struct Certificates {
        private func certificate() throws -> SecCertificate {
            try #require(SecCertificateCreateWithData(nil, fixtureCertificateDER as CFData))
        }

        private func item(_ keychain: ParityKeychain, _ extra: [CFString: Any] = [:]) throws -> [CFString: Any] {
            [kSecClass: kSecClassCertificate, kSecValueRef: try certificate(), kSecAttrLabel: keychain.service].merging(extra) { $1 }
        }

        /// The private key of the fixture certificate, as a SecKey.
        private func fixturePrivateKey() throws -> SecKey {
            var error: Unmanaged<CFError>?
            let key = SecKeyCreateWithData(fixturePrivateKeyX963 as CFData, [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                                                                              kSecAttrKeyClass: kSecAttrKeyClassPrivate] as CFDictionary, &error)
            return try #require(key, "SecKeyCreateWithData: \(String(describing: error?.takeRetainedValue()))")
        }

        private func query(_ keychain: ParityKeychain, _ extra: [CFString: Any] = [:]) -> [CFString: Any] {
            [kSecClass: kSecClassCertificate, kSecAttrLabel: keychain.service].merging(extra) { $1 }
        }

        @Test("5 a key attribute (kSecAttrApplicationTag) with a certificate is errSecNoSuchAttr in add and delete")
        func foreignAttribute() throws {
            let keychain = try ParityKeychain()
            let withTag = try item(keychain, [kSecAttrApplicationTag: bytes("tag")])
            #expect(keychain.add(withTag).status == errSecNoSuchAttr)
            #expect(keychain.delete(withTag) == errSecNoSuchAttr)
            #expect(keychain.status(query(keychain)) == errSecItemNotFound)
        }

        @Test("19 a certificate's persistent reference from add finds its DER with kSecReturnData")
        func persistentReferenceToData() throws {
            let keychain = try ParityKeychain()
            let reference = try #require(keychain.add(try item(keychain, [kSecReturnPersistentRef: true])).result as? Data)
            #expect(keychain.data([kSecValuePersistentRef: reference]) == fixtureCertificateDER)
            #expect(keychain.add(try item(keychain)).status == errSecDuplicateItem)
        }

        @Test("21 add of a certificate with kSecReturnAttributes: no data, object or reference; type and encoding are numbers")
        func returnAttributes() throws {
            let keychain = try ParityKeychain()
            let added = keychain.add(try item(keychain, [kSecReturnAttributes: true]))
            #expect(added.status == errSecSuccess)
            let attributes = try #require(added.result as? [String: Any])
            for key in [kSecValueData, kSecValueRef, kSecValuePersistentRef] {
                #expect(attributes[key as String] == nil, "unexpected \(key)")
            }
            #expect(attributes[kSecAttrCertificateType as String] is NSNumber)
            #expect(attributes[kSecAttrCertificateEncoding as String] is NSNumber)
            #expect(text(attributes, kSecAttrLabel) == keychain.service)
        }

        @Test("22 add of a certificate with all four kSecReturn* keys: data, object, persistent reference and class in one dictionary")
        func returnEverything() throws {
            let keychain = try ParityKeychain()
            let added = keychain.add(try item(keychain, [kSecReturnData: true, kSecReturnAttributes: true, kSecReturnRef: true,
                                                         kSecReturnPersistentRef: true]))
            #expect(added.status == errSecSuccess)
            let dictionary = try #require(added.result as? [String: Any])
            #expect(dictionary[kSecValueData as String] as? Data == fixtureCertificateDER)
            #expect(dictionary[kSecValuePersistentRef as String] is Data)
            #expect(dictionary[kSecClass as String] as? String == kSecClassCertificate as String)
            let object = try #require(dictionary[kSecValueRef as String] as AnyObject?)
            #expect(CFGetTypeID(object) == SecCertificateGetTypeID())
        }

        @Test("3.4 kSecReturnRef of a certificate is a SecCertificate with the stored DER")
        func returnRef() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(try item(keychain))
            let object = try #require(keychain.copy(query(keychain, [kSecReturnRef: true])).result)
            #expect(CFGetTypeID(object) == SecCertificateGetTypeID())
            let found = unsafeDowncast(object as AnyObject, to: SecCertificate.self)
            #expect(SecCertificateCopyData(found) as Data == fixtureCertificateDER)
        }

        @Test("3.10 a certificate's persistent reference alone (no kSecClass) with kSecReturnRef gives the SecCertificate")
        func persistentReferenceToCertificate() throws {
            let keychain = try ParityKeychain()
            let reference = try #require(keychain.add(try item(keychain, [kSecReturnPersistentRef: true])).result as? Data)
            let outcome = keychain.copy([kSecValuePersistentRef: reference, kSecReturnRef: true])
            #expect(outcome.status == errSecSuccess)
            let object = try #require(outcome.result, "errSecSuccess with no SecCertificate")
            #expect(CFGetTypeID(object) == SecCertificateGetTypeID())
            #expect(SecCertificateCopyData(unsafeDowncast(object as AnyObject, to: SecCertificate.self)) as Data == fixtureCertificateDER)
            let both = keychain.copy([kSecValuePersistentRef: reference, kSecReturnRef: true, kSecReturnData: true])
            let dictionary = try #require(both.result as? [String: Any])
            #expect(dictionary[kSecValueData as String] as? Data == fixtureCertificateDER)
            #expect(CFGetTypeID(try #require(dictionary[kSecValueRef as String] as AnyObject?)) == SecCertificateGetTypeID())
        }

        @Test("1.5/3.4 an identity query's kSecMatchLimit: a count other than 1 gives an array, as kSecMatchLimitAll does; 1 and kSecMatchLimitOne one SecIdentity")
        func identityLimit() throws {
            let keychain = try ParityKeychain()
            let privateKey = try fixturePrivateKey()
            keychain.mustAdd([kSecClass: kSecClassKey, kSecValueRef: privateKey, kSecAttrApplicationTag: bytes(keychain.service)])
            keychain.mustAdd(try item(keychain))
            let query: [CFString: Any] = [kSecClass: kSecClassIdentity, kSecAttrLabel: keychain.service, kSecReturnRef: true]
            for limit in [2 as NSNumber, 5 as NSNumber, kSecMatchLimitAll] as [AnyObject] {
                let outcome = keychain.copy(query.merging([kSecMatchLimit: limit]) { $1 })
                #expect(outcome.status == errSecSuccess, "limit \(limit)")
                let identities = try #require(outcome.result as? [Any], "limit \(limit): not an array")
                #expect(identities.count == 1)
                #expect(identities.allSatisfy { CFGetTypeID($0 as AnyObject) == SecIdentityGetTypeID() })
            }
            let attributes = keychain.copy([kSecClass: kSecClassIdentity, kSecAttrLabel: keychain.service, kSecReturnAttributes: true,
                                            kSecMatchLimit: 3 as NSNumber])
            #expect((attributes.result as? [[String: Any]])?.first?[kSecAttrLabel as String] as? String == keychain.service)
            for limit in [1 as NSNumber, kSecMatchLimitOne] as [AnyObject] {
                let object = try #require(keychain.copy(query.merging([kSecMatchLimit: limit]) { $1 }).result, "limit \(limit)")
                #expect(CFGetTypeID(object) == SecIdentityGetTypeID(), "limit \(limit): not one SecIdentity")
            }
        }

        @Test("3.2 a SecCertificate as kSecValueRef selects its item in SecItemCopyMatching, SecItemUpdate and SecItemDelete")
        func certificateAsQuery() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(try item(keychain))
            let reference: [CFString: Any] = [kSecClass: kSecClassCertificate, kSecValueRef: try certificate()]
            #expect(keychain.status(reference) == errSecSuccess)
            #expect(keychain.update(reference, [kSecAttrLabel: keychain.service + ".renamed"]) == errSecSuccess)
            #expect(text(keychain.attributes(reference), kSecAttrLabel) == keychain.service + ".renamed")
            #expect(keychain.delete(reference) == errSecSuccess)
            #expect(keychain.status(reference) == errSecItemNotFound)
        }

        @Test("40 a synchronizable certificate can be added and deleted")
        func synchronizableCertificate() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(try item(keychain, [kSecAttrSynchronizable: true])).status == errSecSuccess)
            #expect(keychain.status(query(keychain)) == errSecItemNotFound)
            #expect(keychain.delete(query(keychain, [kSecAttrSynchronizable: true])) == errSecSuccess)
            #expect(keychain.status(query(keychain, [kSecAttrSynchronizable: kSecAttrSynchronizableAny])) == errSecItemNotFound)
        }

        @Test("1.5 a stored certificate and its stored private key make an identity: found by the certificate's label as a SecIdentity of both; deleting the identity deletes both")
        func identity() throws {
            let keychain = try ParityKeychain()
            let privateKey = try fixturePrivateKey()
            let tag = bytes(keychain.service)
            keychain.mustAdd([kSecClass: kSecClassKey, kSecValueRef: privateKey, kSecAttrApplicationTag: tag])
            let identityQuery: [CFString: Any] = [kSecClass: kSecClassIdentity, kSecAttrLabel: keychain.service]
            // A certificate alone is no identity.
            #expect(keychain.status(identityQuery) == errSecItemNotFound)
            keychain.mustAdd(try item(keychain))
            let object = try #require(keychain.copy(identityQuery.merging([kSecReturnRef: true]) { $1 }).result)
            #expect(CFGetTypeID(object) == SecIdentityGetTypeID())
            let identity = unsafeDowncast(object as AnyObject, to: SecIdentity.self)
            var certificate: SecCertificate?
            #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
            #expect(certificate.map { SecCertificateCopyData($0) as Data } == fixtureCertificateDER)
            var identityKey: SecKey?
            #expect(SecIdentityCopyPrivateKey(identity, &identityKey) == errSecSuccess)
            let publicBytes = { (key: SecKey?) in key.flatMap(SecKeyCopyPublicKey).flatMap { SecKeyCopyExternalRepresentation($0, nil) } as Data? }
            #expect(publicBytes(identityKey) == publicBytes(privateKey))
            #expect(publicBytes(identityKey) == fixturePrivateKeyX963.prefix(65))
            #expect(keychain.delete(identityQuery) == errSecSuccess)
            #expect(keychain.status(query(keychain)) == errSecItemNotFound)
            #expect(keychain.status([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag]) == errSecItemNotFound)
        }

        @Test("3.2 a SecIdentity as kSecValueRef gives only its persistent reference; data, attributes and references come back empty (explode_identity)")
        func identityAsQuery() throws {
            let keychain = try ParityKeychain()
            let privateKey = try fixturePrivateKey()
            keychain.mustAdd([kSecClass: kSecClassKey, kSecValueRef: privateKey, kSecAttrApplicationTag: bytes(keychain.service)])
            keychain.mustAdd(try item(keychain))
            let found = try #require(keychain.copy([kSecClass: kSecClassIdentity, kSecAttrLabel: keychain.service, kSecReturnRef: true]).result)
            let identity = unsafeDowncast(found as AnyObject, to: SecIdentity.self)

            let reference = keychain.copy([kSecValueRef: identity, kSecReturnPersistentRef: true])
            #expect(reference.status == errSecSuccess)
            let persistent = try #require(reference.result as? Data)
            #expect(persistent.prefix(4) == Data("idnt".utf8))
            let again = try #require(keychain.copy([kSecValuePersistentRef: persistent, kSecReturnRef: true]).result)
            #expect(CFGetTypeID(again) == SecIdentityGetTypeID())
            for returns in [[kSecReturnData: true], [kSecReturnAttributes: true], [kSecReturnRef: true],
                            [kSecReturnData: true, kSecReturnAttributes: true, kSecReturnRef: true, kSecReturnPersistentRef: true]] as [[CFString: Any]] {
                let answer = keychain.copy(returns.merging([kSecValueRef: identity]) { $1 })
                #expect(answer.status == errSecSuccess && answer.result == nil, "\(returns.keys.map { $0 as String }.sorted())")
            }
            #expect(keychain.delete([kSecValueRef: identity]) == errSecSuccess)
            #expect(keychain.status([kSecValueRef: identity]) == errSecItemNotFound)
        }

        @Test("54 a certificate added without accessibility is accessible always (\"dk\", the deprecated kSecAttrAccessibleAlways)")
        func defaultAccessibility() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(try item(keychain))
            #expect(text(keychain.attributes(query(keychain)), kSecAttrAccessible) == "dk")
        }
    }
}
