import Foundation

extension Keychain {
    /// Stores a CryptoKit key under `key`, replacing any previous one.
    ///
    /// - Parameters:
    ///   - cryptoKey: The key, for example a `SymmetricKey` or a `P256.Signing.PrivateKey`.
    ///   - key: The item's account.
    /// - Throws: ``KeychainError``.
    public func setKey<Key: KeychainKeyConvertible>(_ cryptoKey: Key, forKey key: String) throws(KeychainError) {
        try setData(cryptoKey.keychainRepresentation, forKey: key)
    }

    /// The CryptoKit key stored under `key`, or `nil` when there is none.
    ///
    /// - Parameters:
    ///   - type: The key type, for example `SymmetricKey.self`.
    ///   - key: The item's account.
    /// - Returns: The key, or `nil`.
    /// - Throws: ``KeychainError/decodingFailed`` when the stored bytes are not a `type`,
    ///   otherwise ``KeychainError``.
    public func key<Key: KeychainKeyConvertible>(_ type: Key.Type, forKey key: String) throws(KeychainError) -> Key? {
        guard let data = try data(forKey: key) else {
            return nil
        }
        return try Self.makeKey(type, from: data, context: Self.context("Reading key", key, service))
    }

    /// The key stored under `key`, or a new random one stored there now.
    ///
    /// Safe against concurrent callers and other processes: the new key is added only if no item
    /// exists (`SecItemAdd`, never an overwrite), and a caller that loses the race returns the
    /// winner's key, so every caller ends up with the same key.
    ///
    /// - Parameters:
    ///   - type: The key type.
    ///   - key: The item's account.
    /// - Returns: The existing or the new key.
    /// - Throws: ``KeychainError``.
    public func loadOrCreateKey<Key: KeychainKeyConvertible>(_ type: Key.Type, forKey key: String) throws(KeychainError) -> Key {
        if let existing = try self.key(type, forKey: key) {
            return existing
        }
        let created = Key.generateForKeychain()
        let context = Self.context("Creating key", key, service)
        if try operations.add(created.keychainRepresentation, identity: try identity(key), context: context) {
            return created
        }
        guard let winner = try self.key(type, forKey: key) else {
            throw KeychainError.itemNotFound.withContext(context)
        }
        return winner
    }

    /// Replaces the key stored under `key` with a new random one, keeping the old one under
    /// ``previousKeyName(forKey:)`` until you call ``removePreviousKey(forKey:)``.
    ///
    /// Re-encrypt what the previous key protects, then remove it. A crash between the two writes
    /// leaves the old key in both places, never none; run one rotation at a time per key.
    ///
    /// - Parameters:
    ///   - type: The key type.
    ///   - key: The item's account.
    /// - Returns: The previous key (if there was one) and the new one.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func rotateKey<Key: KeychainKeyConvertible>(_ type: Key.Type, forKey key: String) throws(KeychainError) -> KeyRotation<Key> {
        let previous = try self.key(type, forKey: key)
        if let previous {
            try setData(previous.keychainRepresentation, forKey: Self.previousKeyName(forKey: key))
        }
        let current = Key.generateForKeychain()
        try setKey(current, forKey: key)
        return KeyRotation(previous: previous, current: current)
    }

    /// The key that the last ``rotateKey(_:forKey:)`` replaced, or `nil`.
    ///
    /// - Parameters:
    ///   - type: The key type.
    ///   - key: The rotated item's account.
    /// - Returns: The previous key, or `nil` once removed.
    /// - Throws: ``KeychainError``.
    public func previousKey<Key: KeychainKeyConvertible>(_ type: Key.Type, forKey key: String) throws(KeychainError) -> Key? {
        try self.key(type, forKey: Self.previousKeyName(forKey: key))
    }

    /// Removes the key kept by the last rotation, once nothing needs it any more.
    ///
    /// - Parameter key: The rotated item's account.
    /// - Returns: `true` when a previous key was removed.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func removePreviousKey(forKey key: String) throws(KeychainError) -> Bool {
        try removeValue(forKey: Self.previousKeyName(forKey: key))
    }

    /// The key under which a rotation keeps the previous key: `key` followed by `.previous`.
    ///
    /// - Parameter key: The rotated item's account.
    /// - Returns: The account of the previous key's item.
    public static func previousKeyName(forKey key: String) -> String {
        "\(key).previous"
    }

    private static func makeKey<Key: KeychainKeyConvertible>(_ type: Key.Type, from data: Data, context: String) throws(KeychainError) -> Key {
        do {
            return try Key(keychainRepresentation: data)
        } catch {
            throw KeychainError.decodingFailed.withContext("\(context) (the stored bytes are not a \(Key.self))")
        }
    }
}

/// The outcome of ``Keychain/rotateKey(_:forKey:)``: the key that was replaced and the new one.
///
/// Its descriptions never show key material.
public struct KeyRotation<Key: KeychainKeyConvertible> {
    /// The key that was stored before, or `nil` when there was none.
    public let previous: Key?

    /// The newly generated key, now stored.
    public let current: Key
}

extension KeyRotation: Sendable where Key: Sendable {}

extension KeyRotation: CustomStringConvertible, CustomReflectable {
    /// Names the key type and whether a previous key exists; never key material.
    public var description: String {
        "KeyRotation<\(Key.self)>(previous: \(previous == nil ? "none" : "<redacted>"), current: <redacted>)"
    }

    /// A mirror without children, so that `dump` shows no key material.
    public var customMirror: Mirror {
        Mirror(self, children: [:], displayStyle: .struct)
    }
}
