import Foundation

/// A property backed by one keychain item, with a projected value whose `get`, `set` and
/// `remove` throw.
///
/// ```swift
/// struct Session {
///     @KeychainStored("refresh-token", in: Keychain(service: "com.example.app"))
///     var refreshToken: String?
/// }
///
/// let session = Session()
/// try session.$refreshToken.set("r3fresh")          // throws on failure
/// let token = try session.$refreshToken.get()       // nil when absent, throws on failure
/// if let token = session.refreshToken { … }        // convenience read
/// ```
///
/// The wrapped property is read-only on purpose: a setter could not report a failed write, and a
/// secret that silently fails to save is lost. Reading it returns `nil` both when the item is
/// absent and when the keychain fails (for example while the device is locked); the failure
/// goes to the `onReadFailure` handler if you pass one. Use `try $property.get()` wherever the
/// difference matters.
///
/// `String` is stored as UTF-8, `Data` as itself and other `Codable` values as JSON, exactly as
/// ``Keychain/set(_:forKey:encoder:)`` stores them.
@propertyWrapper
public struct KeychainStored<Value: Codable>: Sendable {
    /// The item's account.
    public let key: String

    /// The keychain holding the item.
    public let keychain: Keychain

    private let onReadFailure: (@Sendable (KeychainError) -> Void)?

    /// Creates a keychain-backed property.
    ///
    /// - Parameters:
    ///   - key: The item's account (`kSecAttrAccount`).
    ///   - keychain: The keychain holding the item.
    ///   - onReadFailure: Called with the error when reading the wrapped property fails (the
    ///     property then reads as `nil`); `nil` to ignore such failures there.
    public init(_ key: String, in keychain: Keychain, onReadFailure: (@Sendable (KeychainError) -> Void)? = nil) {
        self.key = key
        self.keychain = keychain
        self.onReadFailure = onReadFailure
    }

    /// The stored value, or `nil` when it is absent or cannot be read (see `onReadFailure`).
    public var wrappedValue: Value? {
        do {
            return try get()
        } catch {
            onReadFailure?(error)
            return nil
        }
    }

    /// This wrapper, for throwing access: `try $property.get()`, `try $property.set(value)`.
    public var projectedValue: KeychainStored<Value> {
        self
    }

    /// Reads the stored value.
    ///
    /// - Returns: The value, or `nil` when there is no item.
    /// - Throws: ``KeychainError``.
    public func get() throws(KeychainError) -> Value? {
        try keychain.value(Value.self, forKey: key)
    }

    /// Stores a value, or removes the item when `value` is `nil`.
    ///
    /// - Parameter value: The new value.
    /// - Throws: ``KeychainError``.
    public func set(_ value: Value?) throws(KeychainError) {
        guard let value else {
            try remove()
            return
        }
        try keychain.set(value, forKey: key)
    }

    /// Removes the item; removing an absent item is not an error.
    ///
    /// - Throws: ``KeychainError``.
    public func remove() throws(KeychainError) {
        try keychain.removeValue(forKey: key)
    }
}
