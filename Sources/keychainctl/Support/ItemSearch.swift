import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif
#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on the KeychainAudit dependency
import KeychainAudit
#endif

/// `SecItemCopyMatching` for the find, delete and dump commands: every access group, synchronizable
/// or not, unlocking at a terminal prompt if the keychain is locked.
enum ItemSearch {
    /// The items matching `query` in `target` (the first only unless `all`), as attribute
    /// dictionaries with the persistent reference, and the secret under `kSecValueData` when
    /// `withData`. None found is `errSecItemNotFound`, unless `all` (then an empty array).
    /// A warning on standard error names the matching items that could not be decrypted and
    /// were left out (Apple's API skips them silently).
    static func items(_ query: [String: Any], in target: KeychainTarget, all: Bool, withData: Bool) throws -> [[String: Any]] {
        let found = try search(query, in: target, all: all, withData: withData)
        warnAboutUnreadable(found.unreadable, first: found.firstUnreadable)
        return found.items
    }

    /// What a search found, and how many matching items it left out because they could not be
    /// decrypted (damaged, or altered on disk).
    struct Found {
        var items: [[String: Any]]
        var unreadable: Int
        /// Why the first unreadable item could not be read, naming it; nil when none.
        var firstUnreadable: String? = nil
    }

    /// `items(…)` without the warning: the caller decides what unreadable items mean.
    static func search(_ query: [String: Any], in target: KeychainTarget, all: Bool, withData: Bool) throws -> Found {
        if isAccessLogKey(query) { return try notFound(all: all) }
        var search = searching(query, in: target, limit: all ? SecItemKey.matchLimitAll : SecItemKey.matchLimitOne)
        search[SecItemKey.returnAttributes] = true
        search[SecItemKey.returnPersistentRef] = true
        if withData { search[SecItemKey.returnData] = true }
        var result: Any?
        var unreadable = 0
        var firstUnreadable: String?
        do {
            try target.performUnlocking("SecItemCopyMatching") {
                let status: Int32
                (status, result) = KeychainItems.copyMatching(search, in: target)
                (unreadable, firstUnreadable) = KeychainItems.unreadableInLastRead
                return status
            }
        } catch let error as KeychainCallError where all && error.status == StatusCode.itemNotFound {
            return Found(items: [], unreadable: unreadable, firstUnreadable: firstUnreadable)
        } catch let error as KeychainCallError where all && error.status == StatusCode.decode && unreadable > 0 {
            // every matching item was damaged
            return Found(items: [], unreadable: unreadable, firstUnreadable: firstUnreadable ?? error.reason)
        }
        if all, let items = result as? [[String: Any]] {
            return Found(items: items.filter { !isAccessLogKey(item: $0) }, unreadable: unreadable, firstUnreadable: firstUnreadable)
        }
        if !all, let item = result as? [String: Any], isAccessLogKey(item: item) {
            // The log's key came first; another item may match the query as well.
            let others = try Self.search(query, in: target, all: true, withData: withData)
            guard let first = others.items.first else { return try notFound(all: false) }
            return Found(items: [first], unreadable: others.unreadable, firstUnreadable: others.firstUnreadable)
        }
        if !all, let item = result as? [String: Any] { return Found(items: [item], unreadable: unreadable, firstUnreadable: firstUnreadable) }
        throw KeychainCallError(StatusCode.internalError, in: "SecItemCopyMatching")
    }

    /// The words for `count` unreadable items, and what to do about them; `first` names the
    /// first of them and says what is wrong with it.
    static func unreadableSentence(_ count: Int, first: String? = nil) -> String {
        "\(count) matching item\(count == 1 ? "" : "s") could not be decrypted (damaged, or altered on disk) and "
            + "\(count == 1 ? "is" : "are") not shown; restore the keychain from a backup, or delete the damaged items"
            + (first.map { ". \($0)" } ?? "")
    }

    /// Warns on standard error when a read left items out.
    static func warnAboutUnreadable(_ count: Int, first: String? = nil) {
        guard count > 0 else { return }
        Console.error("keychainctl: warning: " + unreadableSentence(count, first: first))
    }

    /// The secret of the first item matching `query` in `target` and that item's attributes:
    /// `find-… -w`, which prints the secret alone and records the item it read (not the query,
    /// which may name none of it). The same item as `items(query, in: target, all: false,
    /// withData: true)` finds.
    static func secretItem(_ query: [String: Any], in target: KeychainTarget) throws -> (secret: Data, attributes: [String: Any]) {
        guard let item = try items(query, in: target, all: false, withData: true).first,
              let secret = item[SecItemKey.valueData] as? Data
        else { throw KeychainCallError(StatusCode.internalError, in: "SecItemCopyMatching") }
        return (secret, item)
    }

    /// Whether `query` names the access log's key item, which keychainctl never shows or hands
    /// out (its reader could forge log entries): such a search finds nothing.
    private static func isAccessLogKey(_ query: [String: Any]) -> Bool {
        #if os(Linux)
        return AccessLog.namesLogKeyItem(query)
        #else
        return false
        #endif
    }

    /// Whether a found item is the access log's key item (left out of every listing).
    private static func isAccessLogKey(item: [String: Any]) -> Bool {
        #if os(Linux)
        return AccessLog.isLogKeyItem(item)
        #else
        return false
        #endif
    }

    /// What a search that found nothing returns: an empty list, or `errSecItemNotFound`.
    private static func notFound(all: Bool) throws -> Found {
        guard all else { throw KeychainCallError(StatusCode.itemNotFound, in: "SecItemCopyMatching") }
        return Found(items: [], unreadable: 0)
    }

    /// `query` as the find commands search: synchronizable or not, up to `limit` (in the target ``KeychainItems`` is given).
    private static func searching(_ query: [String: Any], in target: KeychainTarget, limit: String) -> [String: Any] {
        var search = query
        search[SecItemKey.matchLimit] = limit
        search[SecItemKey.synchronizable] = SecItemKey.synchronizableAny
        return search
    }

    /// Deletes the item with this persistent reference.
    static func delete(_ item: [String: Any], itemClass: String, in target: KeychainTarget) throws {
        guard let reference = item[SecItemKey.valuePersistentRef] as? Data else {
            throw KeychainCallError(StatusCode.internalError, in: "SecItemDelete")
        }
        let query: [String: Any] = [SecItemKey.itemClass: itemClass, SecItemKey.valuePersistentRef: reference]
        try target.performUnlocking("SecItemDelete") { KeychainItems.delete(query, in: target) }
    }
}
