import Foundation
import KeychainAudit
import KeychainLinux
import KeychainServices
import KeychainTestSupport
import KeychainToolSupport
@testable import SecretService
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The access log's key item lives in the same keychain as the Secret Service's items. A search
/// never shows it, and a client that names it by its own object path (the hex of its persistent
/// reference) must not get its secret either: with the key, a program could forge or rewrite the
/// log of its own reads.
@Suite("Secret Service store: the access log's key item is no Secret Service item", .serialized)
struct LogKeyItemHiddenTests {
    @Test("GetSecret and GetAll of the log key item's own reference answer NoSuchObject")
    func logKeyItemNotReadableByReference() throws {
        if !KeychainRegistryGroups.includesLogGroup {
            KeychainToolSettings.ofThisProcess().grantAccessGroup(AccessLog.keyAccessGroup)
            KeychainRegistryGroups.includesLogGroup = true
        }
        try IsolatedKeychains.withStore { store, directory in
            _ = try store.createItem(in: .login, label: "an item", attributes: ["service": "log-key"],
                                     secret: SecretValue(bytes: Array("secret".utf8)), replace: false)
            let loginPath = directory + "/login.keychain-db"
            // The provider's log, as `keychainctl secret-service` makes it: its key item is written
            // into this keychain by the first record.
            let logs = KeychainAccessLogs(defaultKeychainPath: loginPath, settings: .success(AccessLogSettings()),
                                          keyItems: { store.accessLogKeyItems(forKeychainAt: $0) })
            try logs.record(AccessEvent(time: Date(), operation: .read, item: .init(label: "an item", service: "log-key", account: nil),
                                        caller: try ProcessLineage.current(), callerUID: getuid(), channel: .secretService,
                                        decision: .allowedByPolicy))
            try logs.flush()

            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: AccessLog.keyAccessGroup,
                                        kSecReturnAttributes as String: true, kSecReturnPersistentRef as String: true,
                                        kSecMatchLimit as String: kSecMatchLimitAll,
                                        kSecUseKeychain as String: IsolatedKeychains.open(loginPath) as Any]
            var result: CFTypeRef?
            try #require(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let keyItem = try #require((result as? [[String: Any]])?.first(where: AccessLog.isLogKeyItem), "the log wrote no key item")
            let reference = try #require(keyItem[kSecValuePersistentRef as String] as? Data)
            let named = SecretItemRef(collection: .login, item: SecretItemID(persistentReference: reference))

            #expect(throws: SecretServiceError.noSuchObject) { _ = try store.secret(named) }
            #expect(throws: SecretServiceError.noSuchObject) { _ = try store.secretAndInfo(named) }
            #expect(throws: SecretServiceError.noSuchObject) { _ = try store.item(named) }
        }
    }
}
