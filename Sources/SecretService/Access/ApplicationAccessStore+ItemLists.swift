#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainClient
import KeychainVocabulary

/// Each item's list of trusted applications as a hidden record of its own (account
/// ``ApplicationAccessStore/itemAccountPrefix`` + item id), and the move of a version-1 keychain's
/// lists out of the keychain-wide record.
extension ApplicationAccessStore {
    /// What ``changeList(of:_:)`` did: the item's list now, and the keychain-wide record's tag
    /// before and after the change when nothing but this change moved it (what lets the provider
    /// keep its other cached lists).
    struct ListChange {
        /// The item's list after the change (nil: it has none).
        var list: ItemApplicationList?
        /// Whether anything was written (false: the change left the stored list as it was).
        var written: Bool
        /// The keychain-wide record's tag the change started from, and its new tag; nil when
        /// another process changed the settings meanwhile.
        var tags: (before: Data, after: Data)?
    }

    /// Changes one item's list with `change` (nil removes it), writing that list alone: the cost
    /// does not grow with the number of items. Conditional on the version read, as
    /// ``update(_:)``; moves a version-1 keychain's lists out of the keychain-wide record first.
    func changeList(of itemID: String, _ change: (inout ItemApplicationList?) -> Void) throws(SecretServiceError) -> ListChange {
        for _ in 0..<Self.maximumAttempts {
            let main = try ensureListsPerItem()
            let stored = try storedList(of: itemID)
            var list = stored.list
            change(&list)
            guard list != stored.list else { return ListChange(list: list, written: false, tags: nil) }
            guard try replaceList(of: itemID, version: stored.version, with: list) else { continue }
            let before: Data? = if case .tagged(let tag) = main.version { tag } else { nil }
            let after = try markListsChanged(from: before)
            return ListChange(list: list, written: true, tags: before.flatMap { before in after.map { (before, $0) } })
        }
        throw Self.keptChanging(calls.path)
    }

    /// One item's stored list (nil when it has none) and its version. Meaningful once the lists are
    /// per item (a version-1 keychain's lists are in the keychain-wide record).
    /// - Throws: `storage` when the list does not decode or belongs to another item.
    func storedList(of itemID: String) throws(SecretServiceError) -> (list: ItemApplicationList?, version: StoredVersion) {
        guard let stored = try readData(itemQuery(itemID)) else { return (nil, .absent) }
        return (try ApplicationAccessStoredForms.decodeList(stored.data, itemID: itemID, keychain: calls.path), stored.version)
    }

    /// Every item's stored list with its version, in one query.
    func allLists() throws(SecretServiceError) -> [String: (list: ItemApplicationList, version: StoredVersion)] {
        var query = serviceQuery()
        query[SecItemKey.matchLimit] = SecItemKey.matchLimitAll
        query[SecItemKey.returnAttributes] = true
        query[SecItemKey.returnData] = true
        let (status, result) = KeychainClient.copyMatching(query, in: calls.keychain)
        if status == KeychainStatus.itemNotFound.rawValue { return [:] }
        guard status == KeychainStatus.success.rawValue else { throw calls.error(status) }
        var lists: [String: (list: ItemApplicationList, version: StoredVersion)] = [:]
        for case let item as [String: Any] in (result as? [Any]) ?? [] {
            guard let account = AttributeMapping.text(item[SecItemKey.account]),
                  account.hasPrefix(Self.itemAccountPrefix) else { continue }
            guard let data = item[SecItemKey.valueData] as? Data else { throw calls.error(KeychainStatus.`internal`.rawValue) }
            let itemID = String(account.dropFirst(Self.itemAccountPrefix.count))
            let list = try ApplicationAccessStoredForms.decodeList(data, itemID: itemID, keychain: calls.path)
            lists[itemID] = (list, Self.version(of: item))
        }
        return lists
    }

    /// Stores an item's list (nil deletes it) if it is still `version`; false when another process
    /// wrote first.
    func replaceList(of itemID: String, version: StoredVersion, with list: ItemApplicationList?) throws(SecretServiceError) -> Bool {
        guard let list else { return try delete(itemQuery(itemID), version: version) }
        let data = try ApplicationAccessStoredForms.encode(
            ApplicationAccessStoredForms.ItemList(item: itemID, creator: list.creator, trusted: list.trusted))
        return try replace(itemQuery(itemID), label: Self.itemLabel, version: version, with: data)
    }

    /// Makes the keychain-wide record one whose lists are per item, and returns it: adds it
    /// (policy `allow`) when the keychain has none; moves a version-1 record's lists each to a
    /// record of its own, then rewrites the record as version 2 (once per keychain). Every step is
    /// conditional on the version read: interrupted or raced, it starts again, and a list some
    /// process already wrote per item is never overwritten by the old record's copy.
    func ensureListsPerItem() throws(SecretServiceError) -> StoredMain {
        for _ in 0..<Self.maximumAttempts {
            let main = try readMain()
            let policy: ApplicationAccessPolicy
            switch main.form {
            case .perItem:
                return main
            case .absent:
                policy = .allow
            case .listsInside(let record):
                policy = record.policy
                for (itemID, list) in record.items {
                    try moveOut(list, of: itemID)
                }
            }
            let data = try ApplicationAccessStoredForms.encode(
                ApplicationAccessStoredForms.Main(version: ApplicationAccessStoredForms.listsPerItemVersion, policy: policy))
            _ = try replaceMain(version: main.version, with: data)
        }
        throw Self.keptChanging(calls.path)
    }

    /// The tag of a list written by the move out of a version-1 record: unlike the random tags of
    /// later writes, it tells that the list is still the old record's copy, which a repeated move
    /// (after an interruption, or after `keychainctl` of an older version changed the old record)
    /// may replace; a list written since is left alone.
    static let movedOutTag = Data("moved-from-v1-record".utf8)

    /// Writes one version-1 list as the item's own record, unless one written since exists.
    private func moveOut(_ list: ItemApplicationList, of itemID: String) throws(SecretServiceError) {
        let data = try ApplicationAccessStoredForms.encode(
            ApplicationAccessStoredForms.ItemList(item: itemID, creator: list.creator, trusted: list.trusted))
        var add = itemQuery(itemID)
        add[SecItemKey.label] = Self.itemLabel
        add[SecItemKey.valueData] = data
        add[SecItemKey.generic] = Self.movedOutTag
        writeCount?.count(bytes: data.count)
        let added = KeychainClient.add(add, in: calls.keychain).status
        if added == KeychainStatus.success.rawValue { return }
        guard added == KeychainStatus.duplicateItem.rawValue else { throw calls.error(added) }
        var earlierCopy = itemQuery(itemID)
        earlierCopy[SecItemKey.generic] = Self.movedOutTag
        writeCount?.count(bytes: data.count)
        let updated = KeychainClient.update(earlierCopy, [SecItemKey.valueData: data], in: calls.keychain)
        // Not found: the list was written since the move (another tag), and that one stands.
        guard updated == KeychainStatus.success.rawValue || updated == KeychainStatus.itemNotFound.rawValue else { throw calls.error(updated) }
    }

    private func serviceQuery() -> [String: Any] {
        [SecItemKey.itemClass: SecItemKey.genericPassword,
         SecItemKey.service: Self.service]
    }

    private func itemQuery(_ itemID: String) -> [String: Any] {
        var query = serviceQuery()
        query[SecItemKey.account] = Self.itemAccountPrefix + itemID
        return query
    }
}
