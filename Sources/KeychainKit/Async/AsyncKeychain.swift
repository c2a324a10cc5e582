import Foundation

extension Keychain {
    /// The same keychain with `async` methods that never block the caller's executor.
    ///
    /// ```swift
    /// let token = try await keychain.async.string(forKey: "token")
    /// ```
    public var async: AsyncKeychain {
        AsyncKeychain(keychain: self)
    }
}

/// A ``Keychain``'s operations as `async` functions.
///
/// Each call runs the synchronous operation on a thread of its own and suspends the
/// caller until it returns, so a keychain call that waits on an authentication prompt or a
/// locked keychain holds neither the main actor nor a thread of Swift's cooperative pool. A
/// call that has started runs to completion, even if the task is cancelled.
public struct AsyncKeychain: Sendable {
    /// The keychain whose operations this runs.
    public let keychain: Keychain

    /// Creates the async view of `keychain`.
    ///
    /// - Parameter keychain: The keychain.
    public init(keychain: Keychain) {
        self.keychain = keychain
    }

    /// Runs any synchronous keychain work off the caller's executor.
    ///
    /// ```swift
    /// let key = try await keychain.async.run { try $0.loadOrCreateKey(SymmetricKey.self, forKey: "db") }
    /// ```
    ///
    /// - Parameter body: The work, given the keychain.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws: a ``KeychainError`` when the closure is declared
    ///   `throws(KeychainError)`, any error otherwise.
    public func run<Result: Sendable, Failure: Error>(
        _ body: @escaping @Sendable (Keychain) throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let keychain = keychain
        return try await BlockingCalls.run { () throws(Failure) -> Result in try body(keychain) }
    }

    /// Stores a string. See ``Keychain/set(_:forKey:)-(String,_)``.
    ///
    /// - Parameters:
    ///   - value: The secret.
    ///   - key: The item's account.
    /// - Throws: ``KeychainError``.
    public func set(_ value: String, forKey key: String) async throws(KeychainError) {
        try await run { keychain throws(KeychainError) in try keychain.set(value, forKey: key) }
    }

    /// Stores bytes. See ``Keychain/set(_:forKey:)-(Data,_)``.
    ///
    /// - Parameters:
    ///   - value: The secret.
    ///   - key: The item's account.
    /// - Throws: ``KeychainError``.
    public func set(_ value: Data, forKey key: String) async throws(KeychainError) {
        try await run { keychain throws(KeychainError) in try keychain.set(value, forKey: key) }
    }

    /// Stores an `Encodable` value as JSON. See ``Keychain/set(_:forKey:encoder:)``.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The item's account.
    /// - Throws: ``KeychainError``.
    public func set<Value: Encodable & Sendable>(_ value: Value, forKey key: String) async throws(KeychainError) {
        try await run { keychain throws(KeychainError) in try keychain.set(value, forKey: key) }
    }

    /// The string stored for `key`, or `nil`. See ``Keychain/string(forKey:)``.
    ///
    /// - Parameter key: The item's account.
    /// - Returns: The text, or `nil`.
    /// - Throws: ``KeychainError``.
    public func string(forKey key: String) async throws(KeychainError) -> String? {
        try await run { keychain throws(KeychainError) in try keychain.string(forKey: key) }
    }

    /// The bytes stored for `key`, or `nil`. See ``Keychain/data(forKey:)``.
    ///
    /// - Parameter key: The item's account.
    /// - Returns: The bytes, or `nil`.
    /// - Throws: ``KeychainError``.
    public func data(forKey key: String) async throws(KeychainError) -> Data? {
        try await run { keychain throws(KeychainError) in try keychain.data(forKey: key) }
    }

    /// The `Decodable` value stored for `key`, or `nil`. See ``Keychain/value(_:forKey:decoder:)``.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The item's account.
    /// - Returns: The value, or `nil`.
    /// - Throws: ``KeychainError``.
    public func value<Value: Decodable & Sendable>(_ type: Value.Type, forKey key: String) async throws(KeychainError) -> Value? {
        try await run { keychain throws(KeychainError) in try keychain.value(type, forKey: key) }
    }

    /// Whether an item exists for `key`. See ``Keychain/contains(_:)``.
    ///
    /// - Parameter key: The item's account.
    /// - Returns: `true` when it exists.
    /// - Throws: ``KeychainError``.
    public func contains(_ key: String) async throws(KeychainError) -> Bool {
        try await run { keychain throws(KeychainError) in try keychain.contains(key) }
    }

    /// The keys of the service's items. See ``Keychain/allKeys()``.
    ///
    /// - Returns: The sorted keys.
    /// - Throws: ``KeychainError``.
    public func allKeys() async throws(KeychainError) -> [String] {
        try await run { keychain throws(KeychainError) in try keychain.allKeys() }
    }

    /// Removes the item of `key`. See ``Keychain/removeValue(forKey:)``.
    ///
    /// - Parameter key: The item's account.
    /// - Returns: `true` when an item was removed.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func removeValue(forKey key: String) async throws(KeychainError) -> Bool {
        try await run { keychain throws(KeychainError) in try keychain.removeValue(forKey: key) }
    }

    /// Removes every item of the service. See ``Keychain/removeAll()``.
    ///
    /// - Throws: ``KeychainError``.
    public func removeAll() async throws(KeychainError) {
        try await run { keychain throws(KeychainError) in try keychain.removeAll() }
    }
}
