#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

// Sync's own state in the keychain (``SyncableKeychain``): generic passwords of this device only,
// in sync's access group, found by service and account.
extension KeychainDatabase {
    private static func query(_ item: SyncStateItem) -> ItemQuery {
        var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only([item.accessGroup]))
        query.filters = ["svce": .string(item.service), "acct": .string(item.account)]
        return query
    }

    /// The data of sync's state item `item`, decrypted; nil when there is none.
    package func readSyncState(_ item: SyncStateItem) throws(KeychainStoreError) -> Data? {
        do {
            return try find(Self.query(item), decrypt: true).first?.data
        } catch {
            if error.reason == .itemNotFound { return nil }
            throw error
        }
    }

    /// Whether sync's state item `item` exists, without decrypting it.
    package func containsSyncState(_ item: SyncStateItem) throws(KeychainStoreError) -> Bool {
        do {
            return try !find(Self.query(item), decrypt: false).isEmpty
        } catch {
            if error.reason == .itemNotFound { return false }
            throw error
        }
    }

    /// Replaces the data of sync's state item `item`, adding the item the first time.
    package func writeSyncState(_ data: Data, to item: SyncStateItem) throws(KeychainStoreError) {
        var changes = ItemChanges()
        changes.data = data
        do {
            try update(Self.query(item), with: changes)
        } catch {
            guard error.reason == .itemNotFound else { throw error }
            _ = try insert(NewItem(itemClass: .genericPassword,
                                   attributes: ["svce": .string(item.service), "acct": .string(item.account),
                                                "agrp": .string(item.accessGroup), "sync": .number(0)],
                                   data: data, protection: .whenUnlockedThisDeviceOnly))
        }
    }

    /// Deletes sync's state item `item`; nothing when there is none.
    package func removeSyncState(_ item: SyncStateItem) throws(KeychainStoreError) {
        do {
            _ = try delete(Self.query(item))
        } catch {
            if error.reason == .itemNotFound { return }
            throw error
        }
    }
}
