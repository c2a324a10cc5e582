import Foundation
import KeychainServices

/// Finds, saves and deletes `InternetCredential`s in the default keychain through Apple's SecItem
/// API (so the same code runs on macOS), as `kSecClassInternetPassword` items.
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
        guard let secret = credential.secret, !credential.host.isEmpty, !credential.scheme.isEmpty else { throw KeychainCallError(errSecParam, in: "SecItemAdd") }
        var item = try attributes(of: credential)
        item[kSecValueData as String] = secret
        let added = SecItemAdd(item as CFDictionary, nil)
        guard added == errSecDuplicateItem else { return try check(added, "SecItemAdd") }
        var changes: [String: Any] = [kSecValueData as String: secret]
        if let label = credential.label { changes[kSecAttrLabel as String] = label }
        if let comment = credential.comment { changes[kSecAttrComment as String] = comment }
        var match = try attributes(of: credential)
        match[kSecAttrLabel as String] = nil
        match[kSecAttrComment as String] = nil
        try check(SecItemUpdate(match as CFDictionary, changes as CFDictionary), "SecItemUpdate")
    }

    /// Deletes the credentials matching `query` (as `find` matches them); with `secret`, only those
    /// whose secret is exactly that (git's `erase` with a password). Returns how many were deleted.
    @discardableResult
    package static func delete(_ query: InternetCredential, exactLocation: Bool = false,
                              onlyWithSecret secret: Data? = nil) throws(KeychainCallError) -> Int {
        var deleted = 0
        for item in try findItems(query, exactLocation: exactLocation) where secret == nil || item.credential.secret == secret {
            let byReference: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                              kSecValuePersistentRef as String: item.persistentReference]
            try check(SecItemDelete(byReference as CFDictionary), "SecItemDelete")
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
        search[kSecMatchLimit as String] = kSecMatchLimitAll
        search[kSecReturnAttributes as String] = true
        search[kSecReturnData as String] = true
        search[kSecReturnPersistentRef as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        try check(status, "SecItemCopyMatching")
        guard let items = result as? [[String: Any]] else { throw KeychainCallError(errSecInternalError, in: "SecItemCopyMatching") }
        return items.compactMap { item in
            guard let reference = item[kSecValuePersistentRef as String] as? Data else { return nil }
            let found = FoundItem(credential: credential(from: item), persistentReference: reference)
            if exactLocation && (found.credential.port != query.port || found.credential.path != query.path.flatMap({ $0.isEmpty ? nil : $0 })) {
                return nil
            }
            return found
        }
    }

    /// The SecItem attributes for `credential`'s non-nil, non-empty fields (no secret).
    private static func attributes(of credential: InternetCredential) throws(KeychainCallError) -> [String: Any] {
        var attributes: [String: Any] = [kSecClass as String: kSecClassInternetPassword]
        if !credential.scheme.isEmpty {
            guard let code = InternetProtocolCode.code(for: credential.scheme) else {
                throw KeychainCallError(errSecParam, in: "SecItemCopyMatching")
            }
            attributes[kSecAttrProtocol as String] = code
        }
        if !credential.host.isEmpty { attributes[kSecAttrServer as String] = credential.host }
        if let port = credential.port { attributes[kSecAttrPort as String] = port }
        if let path = credential.path, !path.isEmpty { attributes[kSecAttrPath as String] = path }
        if let account = credential.account { attributes[kSecAttrAccount as String] = account }
        if let label = credential.label { attributes[kSecAttrLabel as String] = label }
        if let comment = credential.comment { attributes[kSecAttrComment as String] = comment }
        if let group = credential.accessGroup { attributes[kSecAttrAccessGroup as String] = group }
        return attributes
    }

    private static func credential(from item: [String: Any]) -> InternetCredential {
        InternetCredential(
            scheme: InternetProtocolCode.scheme(for: text(item[kSecAttrProtocol as String]) ?? ""),
            host: text(item[kSecAttrServer as String]) ?? "",
            port: (item[kSecAttrPort as String] as? NSNumber).map(\.intValue).flatMap { $0 == 0 ? nil : $0 },
            path: text(item[kSecAttrPath as String]).flatMap { $0.isEmpty ? nil : $0 },
            account: text(item[kSecAttrAccount as String]),
            secret: item[kSecValueData as String] as? Data,
            label: text(item[kSecAttrLabel as String]),
            comment: text(item[kSecAttrComment as String]))
    }

    /// An attribute as text: a string, UTF-8 bytes, or a number's digits.
    private static func text(_ value: Any?) -> String? {
        switch value {
        case let string as String: return string
        case let data as Data: return String(data: data, encoding: .utf8)
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }
}
