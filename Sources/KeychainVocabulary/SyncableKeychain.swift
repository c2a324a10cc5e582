#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One item that may leave this device (marked synchronizable, in a class that is not
/// ThisDeviceOnly): a live item (decrypted) or a deletion.
package struct PortableEntry: Sendable {
    /// The item's class.
    package var itemClass: ItemClass
    /// The item's identity in this keychain (keyed with this keychain's index key, so it means
    /// nothing elsewhere): how a caller finds the item again, also after it was deleted.
    package var localIdentity: Data
    /// The item, decrypted; nil for a deletion.
    package var item: KeychainItem?
    /// When the item was deleted (tombstones only; nil for tombstones older than the marker).
    package var deletedAt: Date?

    /// An entry of `itemClass` with `localIdentity`: `item` when live, `deletedAt` when deleted.
    package init(itemClass: ItemClass, localIdentity: Data, item: KeychainItem?, deletedAt: Date?) {
        self.itemClass = itemClass
        self.localIdentity = localIdentity
        self.item = item
        self.deletedAt = deletedAt
    }
}

/// Where sync keeps a piece of its own state in the keychain: a generic password of this device
/// only (`whenUnlockedThisDeviceOnly`, never synchronizable) in sync's access group.
package struct SyncStateItem: Sendable, Hashable {
    /// Its service (`svce`).
    package var service: String
    /// Its account (`acct`).
    package var account: String
    /// Its access group (`agrp`).
    package var accessGroup: String

    /// The state item `service`/`account` in `accessGroup`.
    package init(service: String, account: String, accessGroup: String) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }
}

/// What synchronizing a keychain needs from it, and nothing more: its portable items read and
/// written keeping their dates, and sync's own state. The keychain file (`KeychainDatabase`)
/// implements it; `KeychainSync` works through it and never reaches the store itself.
///
/// Writes keep the copied item's dates: a new date would make the copy look newer than the
/// original, and two keychains would trade it back and forth.
package protocol SyncableKeychain: AnyObject, Sendable {
    /// Every portable item and tombstone of `itemClasses`. Items whose class key is not available
    /// (locked) are left out and counted in `lockedCount`.
    func portableEntries(of itemClasses: [ItemClass]) throws(KeychainStoreError) -> (entries: [PortableEntry], lockedCount: Int)

    /// Stores an item copied from another keychain, keeping its dates: it replaces the live item with
    /// the same primary key, or is added (replacing a tombstone of that identity). Returns its local
    /// identity. A copied item must have a portable accessibility and no access control.
    @discardableResult
    func storeItemKeepingDates(_ item: NewItem) throws(KeychainStoreError) -> Data

    /// Deletes, as another keychain did at `deletedAt`, the portable item with `localIdentity`: it
    /// becomes a tombstone recording that time. Nothing happens if no live portable item has it.
    func recordDeletionKeepingDate(itemClass: ItemClass, localIdentity: Data, deletedAt: Date) throws(KeychainStoreError)

    /// Now, by the keychain's clock (the dates it stamps items with).
    func currentDate() -> Date

    /// The data of sync's state item `item`, decrypted; nil when there is none. `.locked` while
    /// the keychain is locked.
    func readSyncState(_ item: SyncStateItem) throws(KeychainStoreError) -> Data?

    /// Whether sync's state item `item` exists, without decrypting it (also while locked).
    func containsSyncState(_ item: SyncStateItem) throws(KeychainStoreError) -> Bool

    /// Replaces the data of sync's state item `item`, adding the item the first time.
    func writeSyncState(_ data: Data, to item: SyncStateItem) throws(KeychainStoreError)

    /// Deletes sync's state item `item`; nothing when there is none.
    func removeSyncState(_ item: SyncStateItem) throws(KeychainStoreError)
}
