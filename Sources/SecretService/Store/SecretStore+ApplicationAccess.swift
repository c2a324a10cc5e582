import Foundation
import KeychainServices

/// Per-application access: each collection's ``ApplicationAccessRecord`` (its policy and its items'
/// lists of trusted applications), kept in the collection's keychain by ``ApplicationAccessStore``.
extension SecretStore {
    /// The collection's record: its policy and its items' lists.
    /// - Throws: `isLocked` while the collection is locked (the record is a secret like any other).
    ///
    /// Served from ``accessRecordCache`` while it is current: the keychain file unchanged since it
    /// was read, or else the stored record's version tag unchanged (its attributes read, not its
    /// data). A record another process wrote (`keychainctl app-access`) has a new tag, so the next
    /// decision reads it.
    package func applicationAccessRecord(of collection: SecretCollectionID) throws(SecretServiceError) -> ApplicationAccessRecord {
        try locked { () throws(SecretServiceError) in
            guard !(try lockedState(collection)) else { throw .isLocked }
            let calls = try keychain(collection)
            let store = ApplicationAccessStore(calls: calls)
            // Read before the keychain: a write after this point moves the next stamp, never this one.
            let stamp = KeychainFileStamp(path: calls.path)
            if var cached = accessRecordCache[collection] {
                if cached.stamp == stamp { return cached.record }
                if cached.version != .untagged, try store.storedVersion() == cached.version {
                    cached.stamp = stamp
                    accessRecordCache[collection] = cached
                    return cached.record
                }
            }
            let read = try store.readVersioned()
            accessRecordCache[collection] = CachedAccessRecord(record: read.record, version: read.version, stamp: stamp)
            return read.record
        }
    }

    /// Changes the item's list with `change` (a new item's creator, an application the person
    /// allowed always, an item deleted: nil removes the entry).
    package func changeApplicationList(of ref: SecretItemRef, _ change: @escaping (inout ItemApplicationList?) -> Void) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            guard !(try lockedState(ref.collection)) else { throw .isLocked }
            // Dropped whether or not the write went through: the next decision reads what is stored.
            defer { accessRecordCache[ref.collection] = nil }
            try ApplicationAccessStore(calls: try keychain(ref.collection)).update { record in
                change(&record.items[ref.item.rawValue])
            }
        }
    }

    /// The item `CreateItem` with `replace` would overwrite (so the provider can check that the
    /// caller may change it first), or nil when it would add a new item.
    package func replacementTarget(in collection: SecretCollectionID, attributes: [String: String], contentType: String)
        throws(SecretServiceError) -> SecretItemRef?
    {
        try locked { () throws(SecretServiceError) -> SecretItemRef? in
            guard !(try lockedState(collection)) else { throw .isLocked }
            let natural = try AttributeMapping.natural(attributes, contentType: contentType)
            return try replaceable(in: collection, calls: try keychain(collection), attributes: attributes, natural: natural)
                .map { SecretItemRef(collection: collection, item: $0.item) }
        }
    }
}

/// A collection's per-application access record as last read, with what tells whether it is
/// still the stored one.
struct CachedAccessRecord {
    /// The record.
    let record: ApplicationAccessRecord
    /// The stored version it was read at (`untagged` records are never served from the cache).
    let version: ApplicationAccessStore.StoredVersion
    /// The keychain file's stamp when it was last known current.
    var stamp: KeychainFileStamp
}
