#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainClient

extension SecretStore {
    /// The items of a collection (its generic and internet passwords).
    /// - Throws: `isLocked` while the collection is locked: the keychain cannot list its items
    ///   then (gnome-keyring lists them; see docs/SECRET-SERVICE.md).
    package func itemIDs(in collection: SecretCollectionID) throws(SecretServiceError) -> [SecretItemID] {
        try locked { () throws(SecretServiceError) -> [SecretItemID] in
            guard !(try lockedState(collection)) else { throw .isLocked }
            // From the index (kept in step with the file's references), not by decrypting every item.
            let index = try indexedItems(of: collection, calls: try keychain(collection))
            return index.order.compactMap { reference in index.entries[reference].flatMap { $0.attributes == nil ? nil : $0.id } }
        }
    }

    /// `SearchItems`: the items of every collection whose attributes include all of
    /// `attributes` (same names, equal values), the default alias's collection first. Locked
    /// collections cannot be searched (their item attributes are encrypted): they are named in
    /// ``SecretSearchResult/lockedCollections``. Unlocked collections are searched through their
    /// in-memory index (``CollectionAttributeIndex``), not by decrypting every item.
    package func search(attributes query: [String: String]) throws(SecretServiceError) -> SecretSearchResult {
        try locked { () throws(SecretServiceError) -> SecretSearchResult in
            var result = SecretSearchResult(unlocked: [], locked: [])
            for id in orderedCollections() {
                let isLocked: Bool
                do throws(SecretServiceError) {
                    isLocked = try lockedState(id)
                } catch .noSuchObject, .keychainFileGone {
                    // A collection whose keychain file was removed by hand: nothing to find
                    // there, and no reason to fail the search of the others.
                    continue
                }
                guard !isLocked else {
                    result.lockedCollections.append(id)
                    continue
                }
                result.unlocked += try indexedMatches(of: query, in: id)
            }
            return result
        }
    }

    /// An item's label, attributes and times.
    /// - Throws: `isLocked` while its collection is locked; `noSuchObject` for an unknown item.
    package func item(_ ref: SecretItemRef) throws(SecretServiceError) -> SecretItemInfo {
        try locked { () throws(SecretServiceError) -> SecretItemInfo in
            let reference = try checkedReference(ref)
            // From the collection's index while nobody else committed since it was read (what a
            // lookup's `GetAll` after its `SearchItems` finds): the item is not decrypted again.
            if let index = try currentIndex(of: ref.collection, calls: try keychain(ref.collection)) {
                // A current index holds every item a client may see; anything else is hidden or gone.
                guard let info = index.entries[reference]?.info else { throw .noSuchObject }
                return info
            }
            return Self.info(of: try attributes(ref))
        }
    }

    /// An item's secret and content type.
    /// - Throws: `isLocked` while its collection is locked; `noSuchObject` for an unknown item.
    package func secret(_ ref: SecretItemRef) throws(SecretServiceError) -> SecretValue {
        try locked { () throws(SecretServiceError) -> SecretValue in
            // One keychain query for the secret and the attributes (its content type): the row
            // is found and decrypted once.
            let reference = try checkedReference(ref)
            let item = try keychain(ref.collection).attributesAndData(of: reference)
            guard !Self.isBookkeeping(item.attributes) else { throw .noSuchObject }
            return SecretValue(bytes: Array(item.data), contentType: AttributeMapping.decode(item.attributes).contentType)
        }
    }

    /// An item's secret with its label and attributes, from the same single keychain query (what a
    /// read needs to be recorded by name before the secret is handed out).
    package func secretAndInfo(_ ref: SecretItemRef) throws(SecretServiceError) -> (secret: SecretValue, label: String, attributes: [String: String]) {
        try locked { () throws(SecretServiceError) in
            let reference = try checkedReference(ref)
            let item = try keychain(ref.collection).attributesAndData(of: reference)
            guard !Self.isBookkeeping(item.attributes) else { throw .noSuchObject }
            let decoded = AttributeMapping.decode(item.attributes)
            return (SecretValue(bytes: Array(item.data), contentType: decoded.contentType),
                    AttributeMapping.text(item.attributes[SecItemKey.label]) ?? "", decoded.attributes)
        }
    }

    /// `CreateItem`: stores a secret with a label and attributes in a collection.
    ///
    /// With `replace`, an item of that collection whose attributes are exactly `attributes` is
    /// updated instead (same id); so is an item that `keychainctl` or an app made in the
    /// natural keychain slot of `attributes` (same service and account, or the same internet
    /// password), which then takes these attributes. Without `replace`, or with nothing to
    /// replace, a new item is added, in its natural slot when free, otherwise in the
    /// collision-free slot (``AttributeMapping/fallback(_:contentType:)``).
    /// - Throws: `isLocked` while the collection is locked.
    package func createItem(in collection: SecretCollectionID, label: String, attributes: [String: String],
                            secret: SecretValue, replace: Bool) throws(SecretServiceError) -> SecretItemRef {
        try locked { () throws(SecretServiceError) -> SecretItemRef in
            guard !(try lockedState(collection)) else { throw .isLocked }
            let calls = try keychain(collection)
            let natural = try AttributeMapping.natural(attributes, contentType: secret.contentType)
            if replace, let existing = try replaceable(in: collection, calls: calls, attributes: attributes, natural: natural) {
                let reference = existing.item.persistentReference
                var changes = try Self.slotChanges(for: existing.itemClass, attributes: attributes, contentType: secret.contentType)
                changes[SecItemKey.label] = label
                changes[SecItemKey.valueData] = Data(secret.bytes)
                try ownWrite(in: collection, calls) { () throws(SecretServiceError) in try calls.update(reference, changes) }
                try touch(collection)
                let ref = SecretItemRef(collection: collection, item: existing.item)
                noteWrite(to: ref)
                return ref
            }
            let reference = try ownWrite(in: collection, calls) { () throws(SecretServiceError) -> Data in
                if let natural {
                    // A Result, not a typed `catch .alreadyExists` that rethrows the rest (Swift 6.3 crashes on that in a closure).
                    switch Result(catching: { () throws(SecretServiceError) -> Data in try calls.add(natural, label: label, secret: Data(secret.bytes)) }) {
                    case .success(let reference): return reference
                    case .failure(.alreadyExists): break  // the slot is taken: the collision-free one
                    case .failure(let error): throw error
                    }
                }
                let fallback = try AttributeMapping.fallback(attributes, contentType: secret.contentType)
                return try calls.add(fallback, label: label, secret: Data(secret.bytes))
            }
            try touch(collection)
            let ref = SecretItemRef(collection: collection, item: SecretItemID(persistentReference: reference))
            noteWrite(to: ref)
            return ref
        }
    }

    /// Replaces an item's secret (and content type).
    /// - Throws: `notSupported` for a content type other than `text/plain` on an item stored as
    ///   an internet password (the keychain has nowhere to keep it).
    package func setSecret(_ ref: SecretItemRef, _ secret: SecretValue) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            let item = try attributes(ref)
            let decoded = AttributeMapping.decode(item)
            var changes: [String: Any] = [SecItemKey.valueData: Data(secret.bytes)]
            if item[SecItemKey.itemClass] as? String == SecItemKey.internetPassword {
                guard secret.contentType == "text/plain" else { throw .notSupported("a content type other than text/plain for this item") }
            } else if decoded.isStored || secret.contentType != decoded.contentType {
                changes[SecItemKey.generic] = try AttributeMapping.encode(.init(attributes: decoded.attributes, contentType: secret.contentType))
            }
            let calls = try keychain(ref.collection)
            try ownWrite(in: ref.collection, calls) { () throws(SecretServiceError) in try calls.update(ref.item.persistentReference, changes) }
            try touch(ref.collection)
            noteWrite(to: ref)
        }
    }

    /// Sets an item's label.
    package func setLabel(_ label: String, of ref: SecretItemRef) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            _ = try attributes(ref)
            let calls = try keychain(ref.collection)
            try ownWrite(in: ref.collection, calls) { () throws(SecretServiceError) in
                try calls.update(ref.item.persistentReference, [SecItemKey.label: label])
            }
            try touch(ref.collection)
            noteWrite(to: ref)
        }
    }

    /// Replaces an item's attributes, keeping its id. A generic password moves to the natural
    /// slot of the new attributes when it is free (else to the collision-free one); an internet
    /// password takes the new server, account, protocol, port and path.
    /// - Throws: `notSupported` when an internet password is given attributes that are not an
    ///   internet password's (see ``AttributeMapping``); `alreadyExists` when another internet
    ///   password already has them.
    package func setAttributes(_ attributes: [String: String], of ref: SecretItemRef) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            let item = try self.attributes(ref)
            let decoded = AttributeMapping.decode(item)
            let calls = try keychain(ref.collection)
            let reference = ref.item.persistentReference
            try ownWrite(in: ref.collection, calls) { () throws(SecretServiceError) in
                if item[SecItemKey.itemClass] as? String == SecItemKey.internetPassword {
                    guard var internet = AttributeMapping.internetAttributes(attributes, contentType: decoded.contentType) else {
                        throw .notSupported("these attributes on an item stored as an internet password")
                    }
                    internet[SecItemKey.itemClass] = nil
                    // Absent port and path are cleared, not kept from before.
                    internet[SecItemKey.port] = internet[SecItemKey.port] ?? 0
                    internet[SecItemKey.path] = internet[SecItemKey.path] ?? ""
                    try calls.update(reference, internet)
                } else {
                    var changes = try Self.slotChanges(for: SecItemKey.genericPassword, attributes: attributes, contentType: decoded.contentType)
                    // Without service and username the item leaves a keychainctl-visible slot for
                    // the collision-free one (keychainctl would otherwise show attributes it no longer has).
                    if changes[SecItemKey.service] == nil,
                       AttributeMapping.text(item[SecItemKey.service]) != AttributeMapping.fallbackService {
                        let fallback = try AttributeMapping.fallback(attributes, contentType: decoded.contentType)
                        changes[SecItemKey.service] = fallback[SecItemKey.service]
                        changes[SecItemKey.account] = fallback[SecItemKey.account]
                    }
                    switch Result(catching: { () throws(SecretServiceError) in try calls.update(reference, changes) }) {
                    case .success: break
                    case .failure(.alreadyExists):
                        let fallback = try AttributeMapping.fallback(attributes, contentType: decoded.contentType)
                        changes[SecItemKey.service] = fallback[SecItemKey.service]
                        changes[SecItemKey.account] = fallback[SecItemKey.account]
                        try calls.update(reference, changes)
                    case .failure(let error): throw error
                    }
                }
            }
            try touch(ref.collection)
            noteWrite(to: ref)
        }
    }

    /// Deletes an item.
    package func deleteItem(_ ref: SecretItemRef) throws(SecretServiceError) {
        try locked { () throws(SecretServiceError) in
            guard !(try lockedState(ref.collection)) else { throw .isLocked }
            _ = try attributes(ref)  // An item of a client's, not the access record.
            let calls = try keychain(ref.collection)
            try ownWrite(in: ref.collection, calls) { () throws(SecretServiceError) in try calls.delete(ref.item.persistentReference) }
            try touch(ref.collection)
            noteWrite(to: ref)
        }
    }

    // MARK: - Helpers

    /// An item's keychain attributes; `isLocked` while its collection is locked.
    /// The per-application access record is not an item to clients: `noSuchObject`.
    func attributes(_ ref: SecretItemRef) throws(SecretServiceError) -> [String: Any] {
        let item = try keychain(ref.collection).attributes(of: try checkedReference(ref))
        guard !Self.isBookkeeping(item) else { throw .noSuchObject }
        return item
    }

    /// Whether an item (its attributes) is the provider's own bookkeeping, which no client may
    /// read even by naming its path: a per-application access record, or the access log's key
    /// item, with which a program could forge the log of its own reads.
    static func isBookkeeping(_ attributes: [String: Any]) -> Bool {
        ApplicationAccessStore.isRecord(attributes) || AccessLog.isLogKeyItem(attributes)
    }

    /// An item's persistent reference, once its collection is known to be unlocked (`isLocked`
    /// otherwise) and the reference names a password item (`noSuchObject` otherwise).
    func checkedReference(_ ref: SecretItemRef) throws(SecretServiceError) -> Data {
        guard !(try lockedState(ref.collection)) else { throw .isLocked }
        let reference = ref.item.persistentReference
        let itemClass = String(decoding: reference.prefix(4), as: UTF8.self)
        guard itemClass == SecItemKey.genericPassword || itemClass == SecItemKey.internetPassword else { throw .noSuchObject }
        return reference
    }

    /// The collections in search order: the `default` alias's first, then the rest.
    func orderedCollections() -> [SecretCollectionID] {
        let all = metadata.collections.keys.sorted().compactMap(SecretCollectionID.init(rawValue:))
        guard let first = metadata.aliases["default"].flatMap(SecretCollectionID.init(rawValue:)) else { return all }
        return [first] + all.filter { $0 != first }
    }

    /// The item `CreateItem(replace: true)` replaces, if any: exactly the same attributes, else
    /// a synthesized item (no stored dictionary) in the natural slot. Found without decrypting the
    /// collection's other items: the first from the collection's attribute index (each candidate
    /// read again, as a search does), the second by one keychain query on the slot's primary key.
    func replaceable(in collection: SecretCollectionID, calls: KeychainCalls, attributes: [String: String], natural: [String: Any]?)
        throws(SecretServiceError) -> (item: SecretItemID, itemClass: String)?
    {
        var index = try indexedItems(of: collection, calls: calls)
        defer { attributeIndexes[collection] = index }
        for reference in index.matches(attributes) {
            if index.mark != nil {
                // Nobody else committed since the entries were read: they are the keychain's.
                guard let known = index.entries[reference], known.attributes == attributes else { continue }
                return (known.id, String(decoding: reference.prefix(4), as: UTF8.self))
            }
            guard let current = try entry(reference, calls) else {
                index.remove([reference])
                continue
            }
            index.set(reference, current)
            if current.attributes == attributes {
                return (current.id, String(decoding: reference.prefix(4), as: UTF8.self))
            }
        }
        guard let natural else { return nil }
        for item in try calls.passwordItems(inSlotOf: natural) {
            guard let id = Self.itemID(item), let itemClass = item[SecItemKey.itemClass] as? String,
                  !AttributeMapping.decode(item).isStored, Self.occupies(item, natural) else { continue }
            return (id, itemClass)
        }
        return nil
    }

    /// Whether a keychain item sits in the slot `natural` describes (same class and primary key).
    private static func occupies(_ item: [String: Any], _ natural: [String: Any]) -> Bool {
        let itemClass = natural[SecItemKey.itemClass] as? String
        guard item[SecItemKey.itemClass] as? String == itemClass else { return false }
        let keys = itemClass == SecItemKey.internetPassword
            ? [SecItemKey.account, SecItemKey.server, SecItemKey.protocol, SecItemKey.path]
            : [SecItemKey.service, SecItemKey.account]
        for key in keys where AttributeMapping.text(item[key]) ?? "" != AttributeMapping.text(natural[key]) ?? "" {
            return false
        }
        if itemClass == SecItemKey.internetPassword {
            let port = AttributeMapping.integer(item[SecItemKey.port]) ?? 0
            return port == (natural[SecItemKey.port] as? Int ?? 0)
        }
        return true
    }

    /// The keychain changes that give an item of `itemClass` these attributes in place.
    private static func slotChanges(for itemClass: String, attributes: [String: String], contentType: String)
        throws(SecretServiceError) -> [String: Any]
    {
        if itemClass == SecItemKey.internetPassword {
            // Replacing an internet password found by exact attributes or by its slot: the slot
            // does not move, so nothing but label and data changes.
            return [:]
        }
        var changes: [String: Any] = [
            SecItemKey.generic: try AttributeMapping.encode(.init(attributes: attributes, contentType: contentType)),
        ]
        // The access record's service is never a client's slot (a client must not reach the lists).
        if let service = attributes["service"], let username = attributes["username"], service != ApplicationAccessStore.service {
            changes[SecItemKey.service] = service
            changes[SecItemKey.account] = username
        }
        return changes
    }

    /// An item's id from its `kSecReturnPersistentRef` value.
    static func itemID(_ item: [String: Any]) -> SecretItemID? {
        (item[SecItemKey.valuePersistentRef] as? Data).map(SecretItemID.init(persistentReference:))
    }

    /// Whether `attributes` contain every pair of `query`.
    static func matches(_ attributes: [String: String], _ query: [String: String]) -> Bool {
        query.allSatisfy { attributes[$0.key] == $0.value }
    }
}
