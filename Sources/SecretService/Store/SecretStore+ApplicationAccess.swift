#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Per-application access: each collection's policy and its items' lists of trusted
/// applications, kept in the collection's keychain by ``ApplicationAccessStore``.
extension SecretStore {
    /// The collection's policy and the lists of the items `itemIDs` (an item without a list has
    /// no entry): what the access decisions of one call need, read without reading every item's
    /// list.
    /// - Throws: `isLocked` while the collection is locked (the lists are secrets like any other);
    ///   `storage` when the record or a list is damaged.
    ///
    /// Served from ``accessRecordCache`` while it is current: the keychain file unchanged since it
    /// was last checked, or else the keychain-wide record's version tag unchanged (its attributes
    /// read, not its data). Every change of a list or of the policy, by any process (`keychainctl
    /// app-access`), moves that tag, so the next decision reads what changed.
    package func applicationAccessRecord(of collection: SecretCollectionID, items itemIDs: some Sequence<String>)
        throws(SecretServiceError) -> ApplicationAccessRecord
    {
        try locked { () throws(SecretServiceError) -> ApplicationAccessRecord in
            guard !(try lockedState(collection)) else { throw .isLocked }
            let store = try accessStore(collection)
            var cached = try currentAccessCache(collection, store)
            var lists: [String: ItemApplicationList] = [:]
            for itemID in itemIDs {
                if let inside = cached.listsInside {
                    lists[itemID] = inside[itemID]
                    continue
                }
                if let known = cached.lists[itemID] {
                    lists[itemID] = known
                    continue
                }
                let list = try store.storedList(of: itemID).list
                // Bounded: ids a client names that have no item would otherwise pile up.
                if cached.lists.count >= CachedAccessRecord.maximumLists { cached.lists = [:] }
                cached.lists[itemID] = .some(list)
                lists[itemID] = list
            }
            accessRecordCache[collection] = cached
            return ApplicationAccessRecord(policy: cached.policy, items: lists)
        }
    }

    /// Changes the item's list with `change` (a new item's creator, an application the person
    /// allowed always, an item deleted: nil removes the list). Writes that item's list alone and
    /// moves the keychain-wide record's tag: the cost does not grow with the number of items.
    package func changeApplicationList(of ref: SecretItemRef, _ change: @escaping (inout ItemApplicationList?) -> Void) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            guard !(try lockedState(ref.collection)) else { throw .isLocked }
            let cached = accessRecordCache.removeValue(forKey: ref.collection)
            let itemID = ref.item.rawValue
            // One of the store's own writes: the search index stays current across it.
            let store = try accessStore(ref.collection)
            let done = try ownWrite(in: ref.collection, store.calls) { () throws(SecretServiceError) in try store.changeList(of: itemID, change) }
            guard var cached, cached.listsInside == nil else { return }
            if !done.written {
                cached.lists[itemID] = .some(done.list)
            } else if let tags = done.tags, cached.version == .tagged(tags.before) {
                // Nothing but this change moved the tag: the other cached lists are still current.
                cached.lists[itemID] = .some(done.list)
                cached.version = .tagged(tags.after)
            } else {
                return
            }
            accessRecordCache[ref.collection] = cached
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

    /// The collection's access store, counting its writes in ``applicationAccessWrites``.
    private func accessStore(_ collection: SecretCollectionID) throws(SecretServiceError) -> ApplicationAccessStore {
        ApplicationAccessStore(calls: try keychain(collection), writeCount: applicationAccessWrites)
    }

    /// The collection's cached settings, checked to be current (see
    /// ``applicationAccessRecord(of:items:)``), or read again.
    private func currentAccessCache(_ collection: SecretCollectionID, _ store: ApplicationAccessStore)
        throws(SecretServiceError) -> CachedAccessRecord
    {
        // Read before the keychain: a write after this point moves the next stamp, never this one.
        let stamp = KeychainFileStamp(path: store.calls.path)
        if var cached = accessRecordCache[collection] {
            if cached.stamp == stamp { return cached }
            if cached.version != .untagged, try store.storedVersion() == cached.version {
                cached.stamp = stamp
                return cached
            }
        }
        let main = try store.readMain()
        return CachedAccessRecord(policy: main.policy, listsInside: main.listsInside, lists: [:], version: main.version, stamp: stamp)
    }
}

/// A collection's per-application access settings as last read, with what tells whether they are
/// still the stored ones.
struct CachedAccessRecord {
    /// The policy.
    var policy: ApplicationAccessPolicy
    /// Every list, for a keychain whose record still holds them (version 1).
    var listsInside: [String: ItemApplicationList]?
    /// The per-item lists read so far (`.some(nil)`: the item has none), at most ``maximumLists``.
    var lists: [String: ItemApplicationList?]
    /// How many lists are kept before they are all dropped (and read again as needed).
    static let maximumLists = 100_000
    /// The keychain-wide record's version they were read at (`untagged` records are never served
    /// from the cache).
    var version: ApplicationAccessStore.StoredVersion
    /// The keychain file's stamp when they were last known current.
    var stamp: KeychainFileStamp
}
