import KeychainServices

extension Keychain {
    /// Whether an item exists for `key`, without reading its secret (so without prompting for
    /// an access-controlled item).
    ///
    /// - Parameter key: The item's account.
    /// - Returns: `true` when the item exists.
    /// - Throws: ``KeychainError``. A locked keychain throws; it never answers `false`.
    public func contains(_ key: String) throws(KeychainError) -> Bool {
        try operations.exists(try identity(key), context: Self.context("Looking up", key, service))
    }

    /// The keys of every item of this service, sorted, each listed once (a key stored in two
    /// access groups is one key).
    ///
    /// - Returns: The accounts of the service's generic passwords in this keychain's access
    ///   group (or in all the app's groups when it has none).
    /// - Throws: ``KeychainError``.
    public func allKeys() throws(KeychainError) -> [String] {
        let context = "Listing the keys of service '\(service)'"
        let items = try operations.attributes(try serviceIdentity(), context: context)
        let keys = items.compactMap { ResultShape.text($0[kSecAttrAccount as String]) }
        return Set(keys).sorted()
    }

    /// Removes the item of `key`; removing an absent item is not an error.
    ///
    /// - Parameter key: The item's account.
    /// - Returns: `true` when an item was removed, `false` when there was none.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func removeValue(forKey key: String) throws(KeychainError) -> Bool {
        try operations.delete(try identity(key), context: Self.context("Removing", key, service))
    }

    /// Removes every item of this service (in this keychain's access group, or all the app's
    /// groups when it has none); an empty service is not an error.
    ///
    /// Only this service's generic passwords are removed; other services, internet passwords and
    /// keys stay.
    ///
    /// - Throws: ``KeychainError``.
    public func removeAll() throws(KeychainError) {
        _ = try operations.delete(try serviceIdentity(), context: "Removing all items of service '\(service)'")
    }
}
