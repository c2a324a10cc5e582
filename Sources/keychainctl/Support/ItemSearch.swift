import CredentialStore
import Foundation
import KeychainServices

/// `SecItemCopyMatching` for the find, delete and dump commands: every access group, synchronizable
/// or not, unlocking at a terminal prompt if the keychain is locked.
enum ItemSearch {
    /// The items matching `query` in `target` (the first only unless `all`), as attribute
    /// dictionaries with the persistent reference, and the secret under `kSecValueData` when
    /// `withData`. None found is `errSecItemNotFound`, unless `all` (then an empty array).
    static func items(_ query: [String: Any], in target: KeychainTarget, all: Bool, withData: Bool) throws -> [[String: Any]] {
        var search = searching(query, in: target, limit: all ? kSecMatchLimitAll : kSecMatchLimitOne)
        search[kSecReturnAttributes as String] = true
        search[kSecReturnPersistentRef as String] = true
        if withData { search[kSecReturnData as String] = true }
        var result: CFTypeRef?
        do {
            try target.performUnlocking("SecItemCopyMatching") { SecItemCopyMatching(search as CFDictionary, &result) }
        } catch let error as KeychainCallError where all && error.status == errSecItemNotFound {
            return []
        }
        if all, let items = result as? [[String: Any]] { return items }
        if !all, let item = result as? [String: Any] { return [item] }
        throw KeychainCallError(errSecInternalError, in: "SecItemCopyMatching")
    }

    /// The secret of the first item matching `query` in `target`: `find-… -w`, which prints the
    /// secret alone. Only the data is asked for, so no attribute dictionary is built, bridged and
    /// cast back (at a process's first call those casts scan the runtime's conformance tables:
    /// about 5.5 million instructions of a 39-million-instruction lookup, issue 11). The same item
    /// as `items(query, in: target, all: false, withData: true)` finds.
    static func secret(_ query: [String: Any], in target: KeychainTarget) throws -> Data {
        var search = searching(query, in: target, limit: kSecMatchLimitOne)
        search[kSecReturnData as String] = true
        var result: CFTypeRef?
        try target.performUnlocking("SecItemCopyMatching") { SecItemCopyMatching(search as CFDictionary, &result) }
        // A class cast (no bridging search), and the bytes copied at once.
        guard let data = result as? NSData else { throw KeychainCallError(errSecInternalError, in: "SecItemCopyMatching") }
        return Data(bytes: data.bytes, count: data.length)
    }

    /// `query` as the find commands search: in `target`, synchronizable or not, up to `limit`.
    private static func searching(_ query: [String: Any], in target: KeychainTarget, limit: CFString) -> [String: Any] {
        var search = query
        search[kSecUseKeychain as String] = target.keychain
        search[kSecMatchLimit as String] = limit
        search[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        return search
    }

    /// Deletes the item with this persistent reference.
    static func delete(_ item: [String: Any], itemClass: CFString, in target: KeychainTarget) throws {
        guard let reference = item[kSecValuePersistentRef as String] as? Data else {
            throw KeychainCallError(errSecInternalError, in: "SecItemDelete")
        }
        let query: [String: Any] = [kSecClass as String: itemClass, kSecValuePersistentRef as String: reference,
                                    kSecUseKeychain as String: target.keychain]
        try target.performUnlocking("SecItemDelete") { SecItemDelete(query as CFDictionary) }
    }
}
