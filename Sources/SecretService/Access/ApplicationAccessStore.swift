import Foundation
import KeychainServices
import KeychainServicesExtras
import KeychainStore

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
        guard let data = try storedData() else { return .empty }
        do {
            return try JSONDecoder().decode(ApplicationAccessRecord.self, from: data)
        } catch {
            throw .storage(status: errSecDecode, reason: "the per-application access record of \(calls.path) is damaged: "
                           + "\(error); set it again with keychainctl app-access")
        }
    }

    /// Replaces the keychain's record with `record`.
    package func write(_ record: ApplicationAccessRecord) throws(SecretServiceError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data: Data
        do {
            data = try encoder.encode(record)
        } catch {
            throw .invalidArgument("the per-application access record cannot be encoded: \(error)")
        }
        let query = baseQuery()
        let status = SecItemUpdate(query as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        if status == errSecItemNotFound {
            var attributes = query
            attributes[kSecAttrLabel as String] = Self.label
            attributes[kSecValueData as String] = data
            let added = SecItemAdd(attributes as CFDictionary, nil)
            guard added == errSecSuccess else { throw calls.error(added) }
            return
        }
        guard status == errSecSuccess else { throw calls.error(status) }
    }

    /// Reads the record, lets `change` edit it, and writes it back.
    package func update(_ change: (inout ApplicationAccessRecord) -> Void) throws(SecretServiceError) {
        var record = try read()
        change(&record)
        try write(record)
    }

    private func storedData() throws(SecretServiceError) -> Data? {
        var query = baseQuery()
        query[kSecReturnData as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? NSData else { throw calls.error(status == errSecSuccess ? errSecInternal : status) }
        return Data(copyingBytesOf: data)
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
