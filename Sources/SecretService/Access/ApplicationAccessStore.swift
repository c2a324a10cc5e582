import Foundation
import KeychainPrimitives
import KeychainServices
import KeychainServicesExtras

/// Where a keychain keeps its ``ApplicationAccessRecord``: the secret of one generic password,
/// service ``service``, account ``account``. Secrets are encrypted and authenticated in the
/// keychain file, so the lists cannot be read or edited without the keychain's keys; the item is
/// hidden from Secret Service clients (not listed, not found, not addressable, and no client's
/// attributes can map onto its slot), so no client can put itself on a list.
///
/// `keychainctl app-access` and the provider both use this type.
package struct ApplicationAccessStore {
    /// The hidden item's service.
    package static let service = "org.keychainkit.SecretService.ApplicationAccess"
    /// The hidden item's account.
    static let account = "record"
    /// Its label, as `keychainctl dump-keychain` shows it.
    static let label = "Secret Service per-application access (KeychainKit)"

    let calls: KeychainCalls

    /// The store of the keychain file at `keychainPath`.
    package init(keychainPath: String) throws(SecretServiceError) {
        calls = try KeychainCalls(path: keychainPath)
    }

    init(calls: KeychainCalls) {
        self.calls = calls
    }

    /// The Secret Service id of the keychain item with this persistent reference (what the lists
    /// are keyed by, and the last element of the item's D-Bus path).
    package static func itemID(persistentReference: Data) -> String {
        HexEncoding.string(persistentReference)
    }

    /// The keychain's record: ``ApplicationAccessRecord/empty`` when it has none yet.
    /// - Throws: `isLocked` while the keychain is locked; `storage` when the record does not decode
    ///   (never read as empty: that would drop every list).
    package func read() throws(SecretServiceError) -> ApplicationAccessRecord {
        try readVersioned().record
    }

    /// Replaces the keychain's record with `record`, whatever it holds now.
    package func write(_ record: ApplicationAccessRecord) throws(SecretServiceError) {
        try update { $0 = record }
    }

    /// Reads the record, lets `change` edit it, and writes it back — as one step even when the
    /// provider and `keychainctl` (other processes) change the record at the same moment: the write
    /// succeeds only if the record is still the version read, and otherwise starts again from the
    /// newer record, so no change (an application taken off a list, a stricter policy) is lost.
    package func update(_ change: (inout ApplicationAccessRecord) -> Void) throws(SecretServiceError) {
        for _ in 0..<Self.maximumAttempts {
            let current = try readVersioned()
            var record = current.record
            change(&record)
            if try replace(version: current.version, with: record) { return }
        }
        throw .storage(status: errSecInternal, reason: "the per-application access record of \(calls.path) kept changing "
                       + "under this change (\(Self.maximumAttempts) attempts); nothing was changed: try again")
    }

    /// How often ``update(_:)`` starts again when another process changed the record meanwhile.
    private static let maximumAttempts = 32

    /// What the stored record's version is: `kSecAttrGeneric` holds a random tag, new with every
    /// write, that a write must match.
    enum StoredVersion: Equatable {
        /// No record is stored yet: a write adds it (and fails if another process added it first).
        case absent
        /// A record with this tag.
        case tagged(Data)
        /// A record written without a tag: replaced unconditionally, once, and tagged from then on.
        case untagged
    }

    /// The stored record's version alone: its attributes, not its data (what tells a cached
    /// record from a changed one without reading and decoding every item's list).
    func storedVersion() throws(SecretServiceError) -> StoredVersion {
        var query = baseQuery()
        query[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return .absent }
        guard status == errSecSuccess, let item = result as? [String: Any] else {
            throw calls.error(status == errSecSuccess ? errSecInternal : status)
        }
        return (item[kSecAttrGeneric as String] as? NSData).map { .tagged(Data(copyingBytesOf: $0)) } ?? .untagged
    }

    /// The record and the version it was read at.
    func readVersioned() throws(SecretServiceError) -> (record: ApplicationAccessRecord, version: StoredVersion) {
        var query = baseQuery()
        query[kSecReturnData as String] = true
        query[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return (.empty, .absent) }
        guard status == errSecSuccess, let item = result as? [String: Any],
              let stored = item[kSecValueData as String] as? NSData else {
            throw calls.error(status == errSecSuccess ? errSecInternal : status)
        }
        let data = Data(copyingBytesOf: stored)
        let version: StoredVersion = (item[kSecAttrGeneric as String] as? NSData).map { .tagged(Data(copyingBytesOf: $0)) } ?? .untagged
        do {
            return (try JSONDecoder().decode(ApplicationAccessRecord.self, from: data), version)
        } catch {
            throw .storage(status: errSecDecode, reason: "the per-application access record of \(calls.path) is damaged: "
                           + "\(error); set it again with keychainctl app-access")
        }
    }

    /// Stores `record` if the stored record is still `version`; false when another process wrote
    /// first (the caller reads again).
    private func replace(version: StoredVersion, with record: ApplicationAccessRecord) throws(SecretServiceError) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data: Data
        do {
            data = try encoder.encode(record)
        } catch {
            throw .invalidArgument("the per-application access record cannot be encoded: \(error)")
        }
        let newTag = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
        var query = baseQuery()
        switch version {
        case .absent:
            query[kSecAttrLabel as String] = Self.label
            query[kSecValueData as String] = data
            query[kSecAttrGeneric as String] = newTag
            let added = SecItemAdd(query as CFDictionary, nil)
            if added == errSecDuplicateItem { return false }
            guard added == errSecSuccess else { throw calls.error(added) }
            return true
        case .tagged(let tag):
            query[kSecAttrGeneric as String] = tag
        case .untagged:
            break
        }
        let status = SecItemUpdate(query as CFDictionary,
                                   [kSecValueData as String: data, kSecAttrGeneric as String: newTag] as CFDictionary)
        if status == errSecItemNotFound { return false }
        guard status == errSecSuccess else { throw calls.error(status) }
        return true
    }

    private func baseQuery() -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword as String,
         kSecAttrService as String: Self.service,
         kSecAttrAccount as String: Self.account,
         kSecUseKeychain as String: calls.keychain]
    }

    /// Whether a keychain item (attributes as `kSecReturnAttributes` gives them, with its class)
    /// is the hidden record.
    static func isRecord(_ item: [String: Any]) -> Bool {
        item[kSecClass as String] as? String == kSecClassGenericPassword as String
            && AttributeMapping.text(item[kSecAttrService as String]) == service
    }
}
