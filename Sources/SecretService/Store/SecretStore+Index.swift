import Foundation
import KeychainAudit

/// Searching through each unlocked collection's ``CollectionAttributeIndex`` instead of
/// decrypting every item at every search. Every method here runs under the store's lock.
extension SecretStore {
    /// The collection's index, brought in step with its keychain file: built by a full read the
    /// first time (or when the file changed and the last full read is older than
    /// ``CollectionAttributeIndex/fullReadInterval``), refreshed from the list of persistent
    /// references when the file changed, used as it is when it did not.
    /// The caller has checked that the collection is unlocked.
    /// Whether an item's collection is locked (an item's `Locked` property, which clients such as
    /// secretstorage ask before every `GetSecret`), answered from the collection's index (its
    /// references are listed again when the file changed, which decrypts nothing), not by
    /// reading and decrypting the item. - Throws: `noSuchObject` for an unknown item of an
    /// unlocked collection.
    package func isItemLocked(_ ref: SecretItemRef) throws(SecretServiceError) -> Bool {
        try locked { () throws(SecretServiceError) -> Bool in
            guard !(try lockedState(ref.collection)) else { return true }
            let reference = try checkedReference(ref)
            let index = try indexedItems(of: ref.collection, calls: try keychain(ref.collection))
            // An entry without attributes is a hidden item (the access log's key, an access list).
            guard index.entries[reference]?.attributes != nil else { throw .noSuchObject }
            return false
        }
    }

    func indexedItems(of collection: SecretCollectionID, calls: KeychainCalls) throws(SecretServiceError) -> CollectionAttributeIndex {
        // Read before the keychain: a commit after this point moves the next stamp, never this one.
        let stamp = KeychainFileStamp(path: calls.path)
        let now = Date()
        if var index = attributeIndexes[collection] {
            if index.stamp == stamp { return index }
            if now.timeIntervalSince(index.fullReadDate) < CollectionAttributeIndex.fullReadInterval {
                let listed = try calls.allPasswordReferences()
                index.remove(index.references.subtracting(listed))
                for reference in listed where index.entries[reference] == nil {
                    // Gone again since the listing: kept without attributes until the next one drops it.
                    index.set(reference, try entry(reference, calls) ?? .init(id: SecretItemID(persistentReference: reference), attributes: nil))
                }
                index.stamp = stamp
                attributeIndexes[collection] = index
                return index
            }
        }
        let index = CollectionAttributeIndex(fullRead: try calls.allPasswordItems(), stamp: stamp, at: now)
        attributeIndexes[collection] = index
        return index
    }

    /// The matches of `query` in an unlocked collection, each checked against the keychain
    /// before it is returned (an item another process changed in place keeps its reference, so
    /// only its attributes tell): an item that no longer matches is not returned.
    func indexedMatches(of query: [String: String], in collection: SecretCollectionID) throws(SecretServiceError) -> [SecretItemRef] {
        let calls = try keychain(collection)
        var index = try indexedItems(of: collection, calls: calls)
        var found: [SecretItemRef] = []
        for reference in index.matches(query) {
            guard let current = try entry(reference, calls) else {
                index.remove([reference])
                continue
            }
            index.set(reference, current)
            guard let attributes = current.attributes, Self.matches(attributes, query) else { continue }
            found.append(SecretItemRef(collection: collection, item: current.id))
        }
        attributeIndexes[collection] = index
        return found
    }

    /// After the provider's own write to an item: its entry is read again (or removed, for an
    /// item gone), so the next search sees the write without a full read. The write has happened
    /// whatever this finds: an entry that cannot be read drops the index (a full read next time)
    /// rather than failing the write's reply.
    func noteWrite(to ref: SecretItemRef) {
        guard var index = attributeIndexes[ref.collection] else { return }
        let reference = ref.item.persistentReference
        do throws(SecretServiceError) {
            if let current = try entry(reference, try keychain(ref.collection)) {
                index.set(reference, current)
            } else {
                index.remove([reference])
            }
            attributeIndexes[ref.collection] = index
        } catch {
            dropIndex(of: ref.collection)
        }
    }

    /// Forgets a collection's index and cached access record (locked, deleted or replaced): its
    /// attributes and lists leave memory.
    func dropIndex(of collection: SecretCollectionID) {
        attributeIndexes[collection] = nil
        accessRecordCache[collection] = nil
    }

    /// An item's entry as the keychain has it now, or nil when the keychain no longer has it. The
    /// access log's key and the access record are entries without attributes (never a client's item).
    func entry(_ reference: Data, _ calls: KeychainCalls) throws(SecretServiceError) -> CollectionAttributeIndex.Entry? {
        let id = SecretItemID(persistentReference: reference)
        let item: [String: Any]
        do throws(SecretServiceError) {
            item = try calls.attributes(of: reference)
        } catch .noSuchObject {
            return nil
        }
        guard !AccessLog.isLogKeyItem(item), !ApplicationAccessStore.isRecord(item) else { return .init(id: id, attributes: nil) }
        return .init(id: id, attributes: AttributeMapping.decode(item).attributes)
    }
}
