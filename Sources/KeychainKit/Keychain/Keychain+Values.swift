import Foundation
import KeychainServices

extension Keychain {
    /// Stores a string as its UTF-8 bytes, replacing any previous value of `key`.
    ///
    /// - Parameters:
    ///   - value: The secret.
    ///   - key: The item's account (`kSecAttrAccount`); must not be empty.
    /// - Throws: ``KeychainError``, for example ``KeychainError/interactionNotAllowed`` while the
    ///   device is locked.
    public func set(_ value: String, forKey key: String) throws(KeychainError) {
        try setData(Data(value.utf8), forKey: key)
    }

    /// Stores bytes, replacing any previous value of `key`.
    ///
    /// - Parameters:
    ///   - value: The secret.
    ///   - key: The item's account (`kSecAttrAccount`); must not be empty.
    /// - Throws: ``KeychainError``.
    public func set(_ value: Data, forKey key: String) throws(KeychainError) {
        try setData(value, forKey: key)
    }

    /// Stores an `Encodable` value as JSON (a `String` as UTF-8, `Data` as itself), replacing any
    /// previous value of `key`.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The item's account (`kSecAttrAccount`); must not be empty.
    ///   - encoder: The JSON encoder to use.
    /// - Throws: ``KeychainError/encodingFailed`` when the value cannot be encoded, otherwise
    ///   ``KeychainError``.
    public func set<Value: Encodable>(_ value: Value, forKey key: String, encoder: JSONEncoder = JSONEncoder()) throws(KeychainError) {
        let data = try ValueCoding.encode(value, encoder: encoder, context: Self.context("Writing", key, service))
        try setData(data, forKey: key)
    }

    /// The string stored for `key`, or `nil` when there is no such item.
    ///
    /// - Parameter key: The item's account.
    /// - Returns: The UTF-8 text of the item, or `nil`.
    /// - Throws: ``KeychainError/decodingFailed`` when the item is not UTF-8 text, otherwise
    ///   ``KeychainError``. A locked keychain throws; it never reads as `nil`.
    public func string(forKey key: String) throws(KeychainError) -> String? {
        try value(String.self, forKey: key)
    }

    /// The bytes stored for `key`, or `nil` when there is no such item.
    ///
    /// - Parameter key: The item's account.
    /// - Returns: The item's data, or `nil`.
    /// - Throws: ``KeychainError``. A locked keychain throws; it never reads as `nil`.
    public func data(forKey key: String) throws(KeychainError) -> Data? {
        try operations.readData(try identity(key), context: Self.context("Reading", key, service))
    }

    /// The `Decodable` value stored for `key` (JSON; a `String` as UTF-8, `Data` as itself), or
    /// `nil` when there is no such item.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The item's account.
    ///   - decoder: The JSON decoder to use.
    /// - Returns: The decoded value, or `nil`.
    /// - Throws: ``KeychainError/decodingFailed`` when the stored bytes are not a `type`,
    ///   otherwise ``KeychainError``.
    public func value<Value: Decodable>(_ type: Value.Type, forKey key: String, decoder: JSONDecoder = JSONDecoder()) throws(KeychainError) -> Value? {
        guard let data = try data(forKey: key) else {
            return nil
        }
        return try ValueCoding.decode(type, from: data, decoder: decoder, context: Self.context("Reading", key, service))
    }

    /// Writes `data` under `key` with an atomic update-else-add.
    func setData(_ data: Data, forKey key: String) throws(KeychainError) {
        try operations.write(data, identity: try identity(key), context: Self.context("Writing", key, service))
    }
}

extension Keychain {
    /// The class, service and account naming the item of `key`.
    func identity(_ key: String) throws(KeychainError) -> [String: Any] {
        guard !service.isEmpty else {
            throw KeychainError.invalidArgument.withContext("A keychain's service must not be empty")
        }
        guard !key.isEmpty else {
            throw KeychainError.invalidArgument.withContext("A key in service '\(service)' must not be empty")
        }
        return [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: key,
        ]
    }

    /// The class and service naming every item of this keychain.
    func serviceIdentity() throws(KeychainError) -> [String: Any] {
        guard !service.isEmpty else {
            throw KeychainError.invalidArgument.withContext("A keychain's service must not be empty")
        }
        return [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
        ]
    }

    /// The error context of an operation on `key`: it names the key and service, never a value.
    static func context(_ operation: String, _ key: String, _ service: String) -> String {
        "\(operation) '\(key)' in service '\(service)'"
    }
}
