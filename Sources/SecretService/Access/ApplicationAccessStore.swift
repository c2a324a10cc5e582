#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
import KeychainClient
import KeychainVocabulary

/// Where a keychain keeps its per-application access settings: hidden generic passwords of service
/// ``service``. Account ``account`` holds the keychain-wide record (the policy); account
/// ``itemAccountPrefix`` + item id holds that item's list of trusted applications, so adding,
/// changing or deleting one item's list writes that list alone, whatever the number of items.
/// Secrets are encrypted and authenticated in the keychain file, so the lists cannot be read or
/// edited without the keychain's keys; every item of the service is hidden from Secret Service
/// clients (not listed, not found, not addressable, and no client's attributes can map onto its
/// slot), so no client can put itself on a list.
///
/// Keychains written before the lists were per item keep all of them inside the keychain-wide
/// record (version 1): they are read as they are, and the first change moves the lists out
/// (``ensureListsPerItem()``).
///
/// Every write is conditional on a random version tag (`kSecAttrGeneric`), new with each write,
/// so the provider and `keychainctl app-access` (other processes) lose none of each other's
/// changes; every change of a list also gives the keychain-wide record a new tag, which is what
/// tells a reader's cached lists from changed ones (``storedVersion()``).
///
/// `keychainctl app-access` and the provider both use this type.
package struct ApplicationAccessStore {
    /// The hidden items' service.
    package static let service = "org.keychainkit.SecretService.ApplicationAccess"
    /// The keychain-wide record's account.
    static let account = "record"
    /// The prefix of an item's list's account, followed by the item's id.
    package static let itemAccountPrefix = "item:"
    /// The keychain-wide record's label, as `keychainctl dump-keychain` shows it.
    static let label = "Secret Service per-application access (KeychainKit)"
    /// An item's list's label.
    static let itemLabel = "Secret Service trusted applications of one item (KeychainKit)"

    let calls: KeychainCalls
    /// Counts this store's keychain writes, when given (tests and benchmarks).
    let writeCount: ApplicationAccessWriteCount?

    /// The store of the keychain file at `keychainPath`.
    package init(keychainPath: String) throws(SecretServiceError) {
        calls = try KeychainCalls(path: keychainPath)
        writeCount = nil
    }

    init(calls: KeychainCalls, writeCount: ApplicationAccessWriteCount? = nil) {
        self.calls = calls
        self.writeCount = writeCount
    }

    /// The Secret Service id of the keychain item with this persistent reference (what the lists
    /// are keyed by, and the last element of the item's D-Bus path).
    package static func itemID(persistentReference: Data) -> String {
        HexEncoding.string(persistentReference)
    }

    /// The keychain's settings, every item's list included: ``ApplicationAccessRecord/empty``
    /// when it has none yet. Reads every list (one query); the provider reads the lists it needs
    /// one by one instead.
    /// - Throws: `isLocked` while the keychain is locked; `storage` when the record or a list does
    ///   not decode (never read as empty: that would drop lists).
    package func read() throws(SecretServiceError) -> ApplicationAccessRecord {
        let main = try readMain()
        if let lists = main.listsInside { return ApplicationAccessRecord(policy: main.policy, items: lists) }
        return ApplicationAccessRecord(policy: main.policy, items: try allLists().mapValues(\.list))
    }

    /// Replaces the keychain's settings with `record`, whatever they hold now.
    package func write(_ record: ApplicationAccessRecord) throws(SecretServiceError) {
        try update { $0 = record }
    }

    /// Reads the settings, lets `change` edit them, and writes back what changed — the policy,
    /// each changed list — each write conditional on the version read, so that the provider and
    /// `keychainctl` (other processes) changing them at the same moment lose nothing: a write that
    /// finds a newer version starts again from the newer settings (an application taken off a list,
    /// a stricter policy are never lost).
    package func update(_ change: (inout ApplicationAccessRecord) -> Void) throws(SecretServiceError) {
        for _ in 0..<Self.maximumAttempts {
            let main = try ensureListsPerItem()
            let stored = try allLists()
            let before = ApplicationAccessRecord(policy: main.policy, items: stored.mapValues(\.list))
            var after = before
            change(&after)
            if after.policy != before.policy {
                let data = try ApplicationAccessStoredForms.encode(
                    ApplicationAccessStoredForms.Main(version: ApplicationAccessStoredForms.listsPerItemVersion, policy: after.policy))
                guard try replaceMain(version: main.version, with: data) else { continue }
            }
            var conflict = false
            for id in Set(before.items.keys).union(after.items.keys) where before.items[id] != after.items[id] {
                guard try replaceList(of: id, version: stored[id]?.version ?? .absent, with: after.items[id]) else {
                    conflict = true
                    break
                }
            }
            if after.items != before.items { try markListsChanged(from: nil) }
            if !conflict { return }
        }
        throw Self.keptChanging(calls.path)
    }

    /// How often a change starts again when another process changed the settings meanwhile.
    static let maximumAttempts = 32

    static func keptChanging(_ path: String) -> SecretServiceError {
        .storage(status: KeychainStatus.`internal`.rawValue, reason: "the per-application access settings of \(path) kept changing "
                 + "under this change (\(maximumAttempts) attempts); nothing more was changed: try again")
    }

    /// A stored record's version: `kSecAttrGeneric` holds a random tag, new with every write, that
    /// a write must match.
    enum StoredVersion: Equatable {
        /// Nothing is stored yet: a write adds it (and fails if another process added it first).
        case absent
        /// A record with this tag.
        case tagged(Data)
        /// A record written without a tag: replaced unconditionally, once, and tagged from then on.
        case untagged
    }

    /// The keychain-wide record as stored.
    struct StoredMain {
        /// Its form.
        enum Form: Equatable {
            /// None stored: the policy is `allow`, and lists (if any) are per item.
            case absent
            /// Version 1: every list inside.
            case listsInside(ApplicationAccessRecord)
            /// Version 2: the policy; lists per item.
            case perItem(ApplicationAccessPolicy)
        }
        var form: Form
        var version: StoredVersion

        /// The policy for applications not on an item's list.
        var policy: ApplicationAccessPolicy {
            switch form {
            case .absent: .allow
            case .listsInside(let record): record.policy
            case .perItem(let policy): policy
            }
        }

        /// Every list, when the record holds them (version 1); nil when they are per item.
        var listsInside: [String: ItemApplicationList]? {
            if case .listsInside(let record) = form { return record.items }
            return nil
        }
    }

    /// The keychain-wide record's version alone: its attributes, not its data (what tells cached
    /// settings from changed ones, since every change of a list or the policy moves it).
    func storedVersion() throws(SecretServiceError) -> StoredVersion {
        var query = mainQuery()
        query[SecItemKey.returnAttributes] = true
        let (status, result) = KeychainClient.copyMatching(query, in: calls.keychain)
        if status == KeychainStatus.itemNotFound.rawValue { return .absent }
        guard status == KeychainStatus.success.rawValue, let item = result as? [String: Any] else {
            throw calls.error(status == KeychainStatus.success.rawValue ? KeychainStatus.`internal`.rawValue : status)
        }
        return Self.version(of: item)
    }

    /// The keychain-wide record and the version it was read at.
    func readMain() throws(SecretServiceError) -> StoredMain {
        guard let stored = try readData(mainQuery()) else { return StoredMain(form: .absent, version: .absent) }
        let main = try ApplicationAccessStoredForms.decodeMain(stored.data, keychain: calls.path)
        if let items = main.items {
            return StoredMain(form: .listsInside(ApplicationAccessRecord(policy: main.policy, items: items)), version: stored.version)
        }
        return StoredMain(form: .perItem(main.policy), version: stored.version)
    }

    /// Stores the keychain-wide record's `data` if it is still `version`; false when another
    /// process wrote first (the caller reads again).
    func replaceMain(version: StoredVersion, with data: Data) throws(SecretServiceError) -> Bool {
        try replace(mainQuery(), label: Self.label, version: version, with: data)
    }

    /// Gives the keychain-wide record a new tag after lists changed, so that readers holding
    /// lists in memory (the provider) read them again. Conditional on `expected` when given:
    /// returns the new tag when the record still had `expected` (nothing else changed since the
    /// caller read it), else moves the tag unconditionally and returns nil. Only the tag changes,
    /// not the record's data.
    @discardableResult
    func markListsChanged(from expected: Data?) throws(SecretServiceError) -> Data? {
        let tag = Self.newTag()
        if let expected {
            var query = mainQuery()
            query[SecItemKey.generic] = expected
            if try updateItem(query, [SecItemKey.generic: tag]) { return tag }
        }
        _ = try updateItem(mainQuery(), [SecItemKey.generic: tag])
        return nil
    }

    // MARK: - Keychain calls

    /// The data and version of the one item `query` names, nil when there is none.
    func readData(_ query: [String: Any]) throws(SecretServiceError) -> (data: Data, version: StoredVersion)? {
        var query = query
        query[SecItemKey.returnData] = true
        query[SecItemKey.returnAttributes] = true
        let (status, result) = KeychainClient.copyMatching(query, in: calls.keychain)
        if status == KeychainStatus.itemNotFound.rawValue { return nil }
        guard status == KeychainStatus.success.rawValue, let item = result as? [String: Any],
              let stored = item[SecItemKey.valueData] as? Data else {
            throw calls.error(status == KeychainStatus.success.rawValue ? KeychainStatus.`internal`.rawValue : status)
        }
        return (stored, Self.version(of: item))
    }

    /// Stores `data` as the item `query` names if it is still `version` (adding it when absent);
    /// false when another process wrote first.
    func replace(_ query: [String: Any], label: String, version: StoredVersion, with data: Data) throws(SecretServiceError) -> Bool {
        let newTag = Self.newTag()
        var query = query
        switch version {
        case .absent:
            query[SecItemKey.label] = label
            query[SecItemKey.valueData] = data
            query[SecItemKey.generic] = newTag
            writeCount?.count(bytes: data.count)
            let added = KeychainClient.add(query, in: calls.keychain).status
            if added == KeychainStatus.duplicateItem.rawValue { return false }
            guard added == KeychainStatus.success.rawValue else { throw calls.error(added) }
            return true
        case .tagged(let tag):
            query[SecItemKey.generic] = tag
        case .untagged:
            break
        }
        return try updateItem(query, [SecItemKey.valueData: data, SecItemKey.generic: newTag])
    }

    /// Deletes the item `query` names if it is still `version`; false when another process
    /// changed it first (gone already counts as done).
    func delete(_ query: [String: Any], version: StoredVersion) throws(SecretServiceError) -> Bool {
        var query = query
        switch version {
        case .absent: return true
        case .tagged(let tag): query[SecItemKey.generic] = tag
        case .untagged: break
        }
        writeCount?.count(bytes: 0)
        let status = KeychainClient.delete(query, in: calls.keychain)
        if status == KeychainStatus.itemNotFound.rawValue { return false }
        guard status == KeychainStatus.success.rawValue else { throw calls.error(status) }
        return true
    }

    /// `SecItemUpdate`; false when no item matched.
    private func updateItem(_ query: [String: Any], _ changes: [String: Any]) throws(SecretServiceError) -> Bool {
        writeCount?.count(bytes: (changes[SecItemKey.valueData] as? Data)?.count ?? 0)
        let status = KeychainClient.update(query, changes, in: calls.keychain)
        if status == KeychainStatus.itemNotFound.rawValue { return false }
        guard status == KeychainStatus.success.rawValue else { throw calls.error(status) }
        return true
    }

    func mainQuery() -> [String: Any] {
        [SecItemKey.itemClass: SecItemKey.genericPassword,
         SecItemKey.service: Self.service,
         SecItemKey.account: Self.account]
    }

    static func version(of item: [String: Any]) -> StoredVersion {
        (item[SecItemKey.generic] as? Data).map { .tagged($0) } ?? .untagged
    }

    private static func newTag() -> Data {
        Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    }

    /// Whether a keychain item (attributes as `kSecReturnAttributes` gives them, with its class)
    /// is one of the hidden records (the keychain-wide one or an item's list).
    static func isRecord(_ item: [String: Any]) -> Bool {
        item[SecItemKey.itemClass] as? String == SecItemKey.genericPassword
            && AttributeMapping.text(item[SecItemKey.service]) == service
    }
}
