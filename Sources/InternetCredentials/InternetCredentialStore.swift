#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey
#endif

/// Finds, saves and deletes `InternetCredential`s in the default keychain through the SecItem
/// calls (``KeychainItemCalls``: KeychainClient's, or Apple's Security on Apple platforms), as
/// `kSecClassInternetPassword` items.
package enum InternetCredentialStore {
    /// Credentials matching `query` (nil fields, and an empty scheme or host, match anything),
    /// with their secrets, oldest first. With `exactLocation`, a nil port or path in `query` means
    /// "none": `example.com` is then not `example.com:8443` (git's and Docker's view).
    /// None is an empty array, not an error.
    package static func find(_ query: InternetCredential, exactLocation: Bool = false) throws(KeychainCallError) -> [InternetCredential] {
        try findItems(query, exactLocation: exactLocation).map(\.credential)
    }

    /// Adds `credential`; if an item with the same primary key (account, server, protocol, port,
    /// path) exists, replaces its secret, label and comment.
    package static func save(_ credential: InternetCredential) throws(KeychainCallError) {
        guard let secret = credential.secret, !credential.host.isEmpty, !credential.scheme.isEmpty else {
            throw KeychainCallError(KeychainItemStatus.param, in: "SecItemAdd")
        }
        var item = try attributes(of: credential)
        item[SecItemKey.valueData] = secret
        let added = KeychainItemCalls.add(item)
        guard added == KeychainItemStatus.duplicateItem else { return try check(added, "SecItemAdd") }
        var changes: [String: Any] = [SecItemKey.valueData: secret]
        if let label = credential.label { changes[SecItemKey.label] = label }
        if let comment = credential.comment { changes[SecItemKey.comment] = comment }
        var match = try attributes(of: credential)
        match[SecItemKey.label] = nil
        match[SecItemKey.comment] = nil
        try check(KeychainItemCalls.update(match, changes), "SecItemUpdate")
    }

    /// Deletes the credentials matching `query` (as `find` matches them); with `secret`, only those
    /// whose secret is exactly that (git's `erase` with a password). Returns how many were deleted.
    @discardableResult
    package static func delete(_ query: InternetCredential, exactLocation: Bool = false,
                              onlyWithSecret secret: Data? = nil) throws(KeychainCallError) -> Int {
        var deleted = 0
        for item in try findItems(query, exactLocation: exactLocation) where secret == nil || item.credential.secret == secret {
            let byReference: [String: Any] = [SecItemKey.itemClass: SecItemKey.internetPassword,
                                              SecItemKey.valuePersistentRef: item.persistentReference]
            try check(KeychainItemCalls.delete(byReference), "SecItemDelete")
            deleted += 1
        }
        return deleted
    }

    // MARK: Dictionaries

    private struct FoundItem {
        var credential: InternetCredential
        var persistentReference: Data
    }

    private static func findItems(_ query: InternetCredential, exactLocation: Bool) throws(KeychainCallError) -> [FoundItem] {
        var search = try attributes(of: query)
        search[SecItemKey.matchLimit] = SecItemKey.matchLimitAll
        search[SecItemKey.returnAttributes] = true
        search[SecItemKey.returnData] = true
        search[SecItemKey.returnPersistentRef] = true
        let (status, result) = KeychainItemCalls.copyMatching(search)
        if status == KeychainItemStatus.itemNotFound { return [] }
        try check(status, "SecItemCopyMatching")
        guard let items = result as? [[String: Any]] else { throw KeychainCallError(KeychainItemStatus.internalError, in: "SecItemCopyMatching") }
        return items.compactMap { item in
            guard let reference = item[SecItemKey.valuePersistentRef] as? Data else { return nil }
            let found = FoundItem(credential: credential(from: item), persistentReference: reference)
            if exactLocation && (found.credential.port != query.port || found.credential.path != query.path.flatMap({ $0.isEmpty ? nil : $0 })) {
                return nil
            }
            return found
        }
    }

    /// The SecItem attributes for `credential`'s non-nil, non-empty fields (no secret).
    private static func attributes(of credential: InternetCredential) throws(KeychainCallError) -> [String: Any] {
        var attributes: [String: Any] = [SecItemKey.itemClass: SecItemKey.internetPassword]
        if !credential.scheme.isEmpty {
            guard let code = InternetProtocolCode.code(for: credential.scheme) else {
                throw KeychainCallError(KeychainItemStatus.param, in: "SecItemCopyMatching")
            }
            attributes[SecItemKey.protocol] = code
        }
        if !credential.host.isEmpty { attributes[SecItemKey.server] = credential.host }
        if let port = credential.port { attributes[SecItemKey.port] = port }
        if let path = credential.path, !path.isEmpty { attributes[SecItemKey.path] = path }
        if let account = credential.account { attributes[SecItemKey.account] = account }
        if let label = credential.label { attributes[SecItemKey.label] = label }
        if let comment = credential.comment { attributes[SecItemKey.comment] = comment }
        if let group = credential.accessGroup { attributes[SecItemKey.accessGroup] = group }
        return attributes
    }

    private static func credential(from item: [String: Any]) -> InternetCredential {
        InternetCredential(
            scheme: InternetProtocolCode.scheme(for: text(item[SecItemKey.protocol]) ?? ""),
            host: text(item[SecItemKey.server]) ?? "",
            // The engine returns numbers as NSNumber (Apple: CFNumber); both read as Int.
            port: (item[SecItemKey.port] as? Int).flatMap { $0 == 0 ? nil : $0 },
            path: text(item[SecItemKey.path]).flatMap { $0.isEmpty ? nil : $0 },
            account: text(item[SecItemKey.account]),
            secret: item[SecItemKey.valueData] as? Data,
            label: text(item[SecItemKey.label]),
            comment: text(item[SecItemKey.comment]))
    }

    /// An attribute as text: a string, UTF-8 bytes, or a whole number's digits.
    private static func text(_ value: Any?) -> String? {
        switch value {
        case let string as String: return string
        case let data as Data: return String(validating: data, as: UTF8.self)
        case let number as Int: return String(number)
        default: return nil
        }
    }
}
