#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainClient

/// Searching through each unlocked collection's ``CollectionAttributeIndex`` instead of
/// decrypting every item at every search. Every method here runs under the store's lock.
extension SecretStore {
    /// Whether an item's collection is locked (an item's `Locked` property, which clients such as
    /// secretstorage ask before every `GetSecret`), answered from the collection's index, not by
    /// reading and decrypting the item.
    /// - Throws: `noSuchObject` for an unknown item of an unlocked collection.
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

    /// The collection's index, brought in step with its keychain file
    /// (``CollectionAttributeIndex``). With a change mark (a keychain file of the provider's own):
    /// used as it is while nobody else committed since it was last in step, else built again by a
    /// full read. Without one (the keychain service's keychain): built by a full read the first
    /// time (or when the file changed and the last full read is older than
    /// ``CollectionAttributeIndex/fullReadInterval``), refreshed from the list of persistent
    /// references when the file changed, used as it is when it did not.
    /// The caller has checked that the collection is unlocked.
    func indexedItems(of collection: SecretCollectionID, calls: KeychainCalls) throws(SecretServiceError) -> CollectionAttributeIndex {
        // Read before the keychain: a commit after this point moves the next mark and stamp, never these.
        let mark = try calls.changeMark()
        let stamp = KeychainFileStamp(path: calls.path)
        let now = Date()
        if var index = attributeIndexes[collection] {
            if mark != nil {
                if index.isCurrent(at: mark) { return index }
            } else {
                if index.stamp == stamp { return index }
                if now.timeIntervalSince(index.fullReadDate) < CollectionAttributeIndex.fullReadInterval {
                    let listed = try calls.allPasswordReferences()
                    index.remove(index.references.subtracting(listed))
                    for reference in listed where index.entries[reference] == nil {
                        // Gone again since the listing: kept as hidden until the next listing drops it.
                        index.set(reference, try entry(reference, calls) ?? .init(hidden: SecretItemID(persistentReference: reference)))
                    }
                    index.stamp = stamp
                    attributeIndexes[collection] = index
                    return index
                }
            }
        }
        let index = CollectionAttributeIndex(fullRead: try calls.allPasswordItems(), stamp: stamp, mark: mark, at: now)
        itemReads.countFullRead()
        attributeIndexes[collection] = index
        return index
    }

    /// The collection's index if it is the keychain's as it is now (nobody else committed since it
    /// was last in step), else nil; reads nothing but the change mark.
    func currentIndex(of collection: SecretCollectionID, calls: KeychainCalls) throws(SecretServiceError) -> CollectionAttributeIndex? {
        guard let index = attributeIndexes[collection], index.mark != nil else { return nil }
        return index.isCurrent(at: try calls.changeMark()) ? index : nil
    }

    /// Runs the store's own write `body` on a collection's keychain. When the collection's index
    /// was the keychain's before it and nobody else committed meanwhile (the change mark's
    /// other-process part did not move), the index stays current: the caller brings the written
    /// entry in step (``noteWrite(to:)``). Otherwise its mark stays behind and its next use reads
    /// every item again. Runs under the store's lock, so no other write of the store (nor the access
    /// log's checkpoint, ``accessLogKeyItems(forKeychainAt:)``) comes in between.
    func ownWrite<T>(in collection: SecretCollectionID, _ calls: KeychainCalls,
                     _ body: () throws(SecretServiceError) -> T) throws(SecretServiceError) -> T {
        // Without a current index there is nothing to keep current.
        let before = attributeIndexes[collection]?.mark != nil ? try calls.changeMark() : nil
        let result = try body()
        keepIndexCurrent(of: collection, calls, after: before)
        return result
    }

    /// After a write of the provider's own made under the store's lock: the index's mark follows
    /// it when the index was current at `before` and only this process's handle committed since;
    /// otherwise the index is marked unknown (read again at its next use).
    func keepIndexCurrent(of collection: SecretCollectionID, _ calls: KeychainCalls, after before: Data?) {
        guard var index = attributeIndexes[collection], index.mark != nil else { return }
        let wasCurrent = index.isCurrent(at: before)
        index.mark = nil
        do throws(SecretServiceError) {
            if wasCurrent, let before, let after = try calls.changeMark(),
               KeychainFileCalls.changeMarksOtherProcessesEqual(before, after) {
                index.mark = after
            }
        } catch {
            // The mark could not be read: the index is read again at its next use.
        }
        attributeIndexes[collection] = index
    }

    /// The matches of `query` in an unlocked collection. Without a change mark (the keychain
    /// service's keychain), each is checked against the keychain before it is returned (an item
    /// another process changed in place keeps its reference, so only its attributes tell): an item
    /// that no longer matches is not returned.
    func indexedMatches(of query: [String: String], in collection: SecretCollectionID) throws(SecretServiceError) -> [SecretItemRef] {
        let calls = try keychain(collection)
        var index = try indexedItems(of: collection, calls: calls)
        if index.mark != nil {
            // Nobody else committed since the entries were read: they are the keychain's, and
            // nothing needs decrypting again.
            return index.matches(query).compactMap { index.entries[$0].map { SecretItemRef(collection: collection, item: $0.id) } }
        }
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
        guard !Self.isBookkeeping(item) else { return .init(hidden: id) }
        return .init(id: id, item: item)
    }

    /// An item's label, attributes and times, from its keychain attributes.
    static func info(of item: [String: Any]) -> SecretItemInfo {
        SecretItemInfo(label: AttributeMapping.text(item[SecItemKey.label]) ?? "",
                       attributes: AttributeMapping.decode(item).attributes,
                       created: item[SecItemKey.creationDate] as? Date ?? Date(timeIntervalSince1970: 0),
                       modified: item[SecItemKey.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0))
    }
}
