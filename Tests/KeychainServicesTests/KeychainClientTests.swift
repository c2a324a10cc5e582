#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import Foundation
import KeychainClient
import KeychainServices
import KeychainServicesExtras
import KeychainTestSupport
import Testing

/// KeychainClient (the tools' SecItem calls on Swift dictionaries) against Apple's CF-typed API:
/// one keychain, the same statuses, Swift values in results, and the failure's cause recorded for
/// the calling thread as Apple's API records it.
@Suite("KeychainClient: SecItem on Swift dictionaries")
struct KeychainClientTests {
    /// A new keychain file without a password, made through Apple's API.
    private func withKeychain(_ body: (SecKeychain, String) throws -> Void) throws {
        let scratch = try TemporaryKeychain.forAppleAPI("client")
        defer { scratch.remove() }
        let path = scratch.file("tools.keychain-db")
        var keychain: SecKeychain?
        try #require(SecKeychainCreate(path, 0, nil, false, nil, &keychain) == errSecSuccess)
        let created = try #require(keychain)
        defer { _ = SecKeychainDelete(created) }
        try body(created, path)
    }

    @Test("an item the client adds is Apple's API's item, and the other way round")
    func oneKeychainForBothEdges() throws {
        try withKeychain { keychain, path in
            let client = KeychainClient.Keychain.file(path: path)
            let added = KeychainClient.add([SecItemKey.itemClass: SecItemKey.internetPassword, SecItemKey.server: "registry.example",
                                            SecItemKey.account: "builder", SecItemKey.port: 5000,
                                            SecItemKey.valueData: Data("first secret".utf8)], in: client)
            #expect(added.status == errSecSuccess)
            var result: CFTypeRef?
            let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "registry.example",
                                        kSecUseKeychain as String: keychain, kSecReturnData as String: true]
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("first secret".utf8))

            let second: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "deploy",
                                         kSecAttrAccount as String: "ci", kSecValueData as String: Data("second secret".utf8),
                                         kSecUseKeychain as String: keychain]
            #expect(SecItemAdd(second as CFDictionary, nil) == errSecSuccess)
            let read = KeychainClient.copyMatching([SecItemKey.itemClass: SecItemKey.genericPassword, SecItemKey.service: "deploy",
                                                    SecItemKey.returnData: true], in: client)
            #expect(read.status == errSecSuccess)
            #expect(read.result as? Data == Data("second secret".utf8))
        }
    }

    @Test("results are Swift values: attribute dictionaries, numbers, data and persistent references; a delete by reference removes the item")
    func resultsAreSwiftValues() throws {
        try withKeychain { _, path in
            let client = KeychainClient.Keychain.file(path: path)
            for (account, secret) in [("a", "one"), ("b", "two")] {
                let status = KeychainClient.add([SecItemKey.itemClass: SecItemKey.internetPassword, SecItemKey.server: "git.example",
                                                 SecItemKey.port: 8443, SecItemKey.account: account,
                                                 SecItemKey.valueData: Data(secret.utf8)], in: client).status
                #expect(status == errSecSuccess)
            }
            let all = KeychainClient.copyMatching([SecItemKey.itemClass: SecItemKey.internetPassword, SecItemKey.server: "git.example",
                                                   SecItemKey.matchLimit: SecItemKey.matchLimitAll, SecItemKey.returnAttributes: true,
                                                   SecItemKey.returnData: true, SecItemKey.returnPersistentRef: true], in: client)
            #expect(all.status == errSecSuccess)
            let items = try #require(all.result as? [[String: Any]])
            #expect(Set(items.compactMap { $0[SecItemKey.account] as? String }) == ["a", "b"])
            #expect(items.allSatisfy { $0[SecItemKey.port] as? Int == 8443 })
            let first = try #require(items.first { $0[SecItemKey.account] as? String == "a" })
            #expect(first[SecItemKey.valueData] as? Data == Data("one".utf8))
            let reference = try #require(first[SecItemKey.valuePersistentRef] as? Data)

            let deleted = KeychainClient.delete([SecItemKey.itemClass: SecItemKey.internetPassword, SecItemKey.valuePersistentRef: reference],
                                                in: client)
            #expect(deleted == errSecSuccess)
            let left = KeychainClient.copyMatching([SecItemKey.itemClass: SecItemKey.internetPassword, SecItemKey.matchLimit: SecItemKey.matchLimitAll,
                                                    SecItemKey.returnAttributes: true], in: client)
            #expect((left.result as? [[String: Any]])?.compactMap { $0[SecItemKey.account] as? String } == ["b"])
        }
    }

    @Test("a duplicate, a missing item and a missing keychain give Apple's statuses, an update changes the secret, and a refusal's cause is kept for the thread")
    func statusesAndCauses() throws {
        try withKeychain { _, path in
            let client = KeychainClient.Keychain.file(path: path)
            let item: [String: Any] = [SecItemKey.itemClass: SecItemKey.genericPassword, SecItemKey.service: "svc", SecItemKey.account: "me",
                                       SecItemKey.valueData: Data("old".utf8)]
            #expect(KeychainClient.add(item, in: client).status == errSecSuccess)
            #expect(KeychainClient.add(item, in: client).status == errSecDuplicateItem)
            let match: [String: Any] = [SecItemKey.itemClass: SecItemKey.genericPassword, SecItemKey.service: "svc"]
            #expect(KeychainClient.update(match, [SecItemKey.valueData: Data("new".utf8)], in: client) == errSecSuccess)
            var withData = match
            withData[SecItemKey.returnData] = true
            #expect(KeychainClient.copyMatching(withData, in: client).result as? Data == Data("new".utf8))
            let missing = KeychainClient.copyMatching([SecItemKey.itemClass: SecItemKey.genericPassword, SecItemKey.service: "none"], in: client)
            #expect(missing.status == errSecItemNotFound)
            #expect(missing.result == nil)

            let nowhere = (path as NSString).deletingLastPathComponent + "/absent/none.keychain-db"
            let refused = KeychainClient.copyMatching(match, in: .file(path: nowhere))
            #expect(refused.status != errSecSuccess)
            let reason = try #require(KeychainClient.failureReason(for: refused.status))
            #expect(reason.contains(nowhere))
            #expect(!FileManager.default.fileExists(atPath: nowhere))
            // The cause is the same Apple's API records for the same call.
            #expect(KeychainFailureDetails.reason(for: refused.status) == reason)
        }
    }

    @Test("Apple's message texts, as SecCopyErrorMessageString gives them")
    func statusMessages() {
        #expect(KeychainStatusMessages.message(for: errSecItemNotFound) == "The specified item could not be found in the keychain.")
        #expect(KeychainStatusMessages.message(for: errSecDuplicateItem) == "The specified item already exists in the keychain.")
        #expect(KeychainStatusMessages.message(for: 12345) == "OSStatus 12345")
        #expect(SecCopyErrorMessageString(errSecParam, nil) as String? == KeychainStatusMessages.message(for: errSecParam))
    }
}
#endif
