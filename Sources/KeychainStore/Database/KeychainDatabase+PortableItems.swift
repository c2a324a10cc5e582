import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// Items that may leave the device, for whatever copies them between keychains (the sync layer
/// above the engine): every such item and tombstone, and writes that keep the copied item's
/// modification date instead of stamping a new one (a new date would make the copy look newer
/// than the original, and the two keychains would trade it back and forth).
///
/// Portable means marked synchronizable (`sync = 1`, Apple's `kSecAttrSynchronizable`) and an
/// accessibility class that may leave the device (not ThisDeviceOnly), as on Apple platforms.
extension KeychainDatabase: SyncableKeychain {
    private static let portableClasses: [ProtectionClass] = [.whenUnlocked, .afterFirstUnlock, .always]

    /// Every portable item and tombstone of `itemClasses`. Items whose class key is not
    /// available (locked) are left out and counted in `lockedCount`.
    package func portableEntries(of itemClasses: [ItemClass]) throws(KeychainStoreError)
        -> (entries: [PortableEntry], lockedCount: Int) {
        try withLock { () throws(KeychainStoreError) in
            let classes = itemClasses.map(\.rawValue)
            let protections = Self.portableClasses.map(\.rawValue)
            let sql = ItemSQL.portableRows(classCount: classes.count, protectionCount: protections.count)
            let rows = try wholeRows(sql, classes.map { .text($0) } + protections.map { .text($0) } + [.blob(syncIndex(true))])
            var entries: [PortableEntry] = []
            var locked = 0
            for row in rows {
                // The local identity is the digest; a row without a well-formed one cannot be
                // named to another keychain (nor decrypted), and is not sent.
                guard let identity = row.primaryKeyDigestData else { continue }
                if row.isTombstone {
                    guard ItemRecord.isGenuineTombstone(row, key: indexKey) else { continue }
                    entries.append(PortableEntry(itemClass: row.itemClass, localIdentity: identity, item: nil,
                                                       deletedAt: ItemRecord.deletionTime(of: row, key: indexKey)))
                    continue
                }
                do throws(KeychainStoreError) {
                    let item = try decryptRow(row)
                    // The blind index said "synchronizable"; the item itself must agree.
                    guard AttributeKind.number.matches(item.attributes["sync"] ?? .number(0), .number(1)) else { continue }
                    entries.append(PortableEntry(itemClass: row.itemClass, localIdentity: identity, item: item, deletedAt: nil))
                } catch .locked {
                    locked += 1
                } catch {
                    continue  // an item that does not decrypt is not sent anywhere
                }
            }
            return (entries, locked)
        }
    }

    /// Stores an item copied from another keychain: its attributes (with their creation and modification
    /// dates) and secret replace the live item with the same primary key, or it is added (replacing
    /// a tombstone of that identity). Returns its local identity.
    @discardableResult
    package func storeItemKeepingDates(_ item: NewItem) throws(KeychainStoreError) -> Data {
        guard Self.portableClasses.contains(item.protection), item.accessControl == nil else {
            throw .invalidParameter("a copied item must have a portable accessibility and no access control")
        }
        return try withLock { () throws(KeychainStoreError) in
            var attributes = ItemRecord.withPrimaryKeyDefaults(item.attributes, for: item.itemClass)
            attributes["sync"] = .number(1)
            if attributes["cdat"] == nil { attributes["cdat"] = .date(currentDate()) }
            if attributes["mdat"] == nil { attributes["mdat"] = attributes["cdat"] }
            return try transaction { () throws(KeychainStoreError) -> Data in
                let classKey = try keybag.classKey(for: item.protection)
                let digest = ItemRecord.primaryKeyDigest(of: attributes, for: item.itemClass, key: indexKey)
                let existing = try wholeRows(ItemSQL.liveRowOfIdentity, [.text(item.itemClass.rawValue), .blob(digest)]).first
                let stored = KeychainItem(itemClass: item.itemClass, persistentID: existing?.persistentID ?? UUID(),
                                          protection: item.protection, accessControl: nil, attributes: attributes,
                                          data: item.data, isDecrypted: true)
                let record = try sealedRecord(for: stored, classKey: classKey)
                if let existing {
                    try run(ItemSQL.updateKeepingIdentity,
                            [.text(stored.protection.rawValue)] + record.indexes + [.blob(record.wrappedKey), .blob(record.ciphertext), .integer(existing.rowID)])
                } else {
                    try removeTombstones(of: item.itemClass, digest: digest)
                    try insertRow(stored, record)
                }
                return digest
            }
        }
    }

    /// Deletes, as another keychain did at `deletedAt`, the portable item with local identity
    /// `localIdentity`: it becomes a tombstone recording that time. Nothing happens if no live
    /// portable item has that identity.
    package func recordDeletionKeepingDate(itemClass: ItemClass, localIdentity: Data, deletedAt: Date) throws(KeychainStoreError) {
        try withLock { () throws(KeychainStoreError) in
            try transaction { () throws(KeychainStoreError) in
                guard let row = try wholeRows(ItemSQL.liveRowOfIdentity, [.text(itemClass.rawValue), .blob(localIdentity)]).first,
                      row.hasSyncIndex(syncIndex(true))
                else { return }
                let marker = ItemRecord.tombstoneMarker(itemClass: row.itemClass, protection: row.protection, persistentID: row.persistentID,
                                                        primaryKeyDigest: localIdentity, deletedAt: deletedAt, key: indexKey)
                try run(ItemSQL.markTombstone, [.blob(marker), .integer(row.rowID)])
            }
        }
    }
}
