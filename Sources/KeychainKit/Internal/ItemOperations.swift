import Foundation
import KeychainServices

/// The keychain calls behind the typed API, on one item class within one ``ItemScope``.
///
/// `identity` is the class plus the attributes that name the item or items (service and
/// account, or server, account, port…); `context` names them in errors, never a value.
struct ItemOperations: Sendable {
    let scope: ItemScope

    /// The query for `identity` in this scope, with the authentication context.
    private func query(_ identity: [String: Any]) -> [String: Any] {
        var query = scope.selection().merging(identity) { _, new in new }
        scope.authenticate(&query)
        return query
    }

    /// Reads the secret of the one matching item; `nil` when there is none.
    func readData(_ identity: [String: Any], context: String) throws(KeychainError) -> Data? {
        try scope.validate()
        var query = query(identity)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        let response = scope.backend.copyMatching(query)
        switch response.status {
        case errSecSuccess:
            guard let value = response.value else {
                return Data()
            }
            guard let data = value as? Data else {
                throw KeychainError.unexpectedResult.withContext(context)
            }
            return data
        case errSecItemNotFound:
            return nil
        default:
            throw KeychainError(status: response.status, context: context)
        }
    }

    /// The attribute dictionaries of every matching item (no secrets); empty when none match.
    func attributes(_ identity: [String: Any], context: String) throws(KeychainError) -> [[String: Any]] {
        try scope.validate()
        var query = query(identity)
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        let response = scope.backend.copyMatching(query)
        switch response.status {
        case errSecSuccess:
            return try ResultShape.dictionaries(response.value, context: context)
        case errSecItemNotFound:
            return []
        default:
            throw KeychainError(status: response.status, context: context)
        }
    }

    /// Whether at least one item matches, without reading (or prompting for) a secret.
    func exists(_ identity: [String: Any], context: String) throws(KeychainError) -> Bool {
        try scope.validate()
        var query = query(identity)
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        let status = scope.backend.copyMatching(query).status
        switch status {
        case errSecSuccess: return true
        case errSecItemNotFound: return false
        default: throw KeychainError(status: status, context: context)
        }
    }

    /// Writes `data` as an atomic update-else-add: `SecItemUpdate`, then `SecItemAdd` when no
    /// item exists, then `SecItemUpdate` once more if a concurrent writer added it first.
    /// Never delete-then-add, so a failure never loses the previous value.
    func write(_ data: Data, identity: [String: Any], context: String) throws(KeychainError) {
        try scope.validate()
        var changes = try scope.protection()
        changes[kSecValueData as String] = data
        let status = scope.backend.update(query(identity), changes)
        switch status {
        case errSecSuccess:
            return
        case errSecItemNotFound:
            guard try !add(data, identity: identity, context: context) else {
                return
            }
            let retry = scope.backend.update(query(identity), changes)
            guard retry == errSecSuccess else {
                throw KeychainError(status: retry, context: context)
            }
        default:
            throw KeychainError(status: status, context: context)
        }
    }

    /// Adds a new item; returns `false` (and changes nothing) when one already exists.
    func add(_ data: Data, identity: [String: Any], context: String) throws(KeychainError) -> Bool {
        try scope.validate()
        var attributes = query(identity).merging(try scope.protection()) { _, new in new }
        attributes[kSecValueData as String] = data
        let status = scope.backend.add(attributes).status
        switch status {
        case errSecSuccess: return true
        case errSecDuplicateItem: return false
        default: throw KeychainError(status: status, context: context)
        }
    }

    /// Deletes every matching item; returns whether there was any.
    func delete(_ identity: [String: Any], context: String) throws(KeychainError) -> Bool {
        try scope.validate()
        let status = scope.backend.delete(query(identity))
        switch status {
        case errSecSuccess: return true
        case errSecItemNotFound: return false
        default: throw KeychainError(status: status, context: context)
        }
    }
}
