import Crypto
import Foundation

/// A CryptoKit key that KeychainKit stores as a generic password holding its byte
/// representation, the way Apple's CryptoKit keychain sample stores keys that are not `SecKey`s.
///
/// KeychainKit provides conformances for `SymmetricKey`, the Curve25519 signing and
/// key-agreement private keys (raw representation) and the P-256 signing and key-agreement
/// private keys (X9.63 representation). Conform your own key types to store them the same way.
public protocol KeychainKeyConvertible {
    /// Creates the key from the bytes stored in the keychain.
    ///
    /// - Parameter keychainRepresentation: The bytes returned by ``keychainRepresentation``.
    /// - Throws: Any error when the bytes are not a valid key.
    init(keychainRepresentation: Data) throws

    /// The bytes to store. This is secret key material.
    var keychainRepresentation: Data { get }

    /// A new random key, for get-or-create and rotation.
    ///
    /// - Returns: A freshly generated key.
    static func generateForKeychain() -> Self
}

extension SymmetricKey: KeychainKeyConvertible {
    /// Creates the key from its bytes.
    ///
    /// - Parameter keychainRepresentation: The key bytes.
    public init(keychainRepresentation: Data) throws {
        self.init(data: keychainRepresentation)
    }

    /// The key bytes.
    public var keychainRepresentation: Data {
        withUnsafeBytes { Data($0) }
    }

    /// A new random 256-bit key.
    ///
    /// - Returns: `SymmetricKey(size: .bits256)`.
    public static func generateForKeychain() -> SymmetricKey {
        SymmetricKey(size: .bits256)
    }
}

extension Curve25519.Signing.PrivateKey: KeychainKeyConvertible {
    /// Creates the key from its raw representation.
    ///
    /// - Parameter keychainRepresentation: The 32-byte raw representation.
    /// - Throws: CryptoKit's error when the bytes are not a key.
    public init(keychainRepresentation: Data) throws {
        try self.init(rawRepresentation: keychainRepresentation)
    }

    /// The raw representation.
    public var keychainRepresentation: Data { rawRepresentation }

    /// A new random key.
    ///
    /// - Returns: A new private key.
    public static func generateForKeychain() -> Self { Self() }
}

extension Curve25519.KeyAgreement.PrivateKey: KeychainKeyConvertible {
    /// Creates the key from its raw representation.
    ///
    /// - Parameter keychainRepresentation: The 32-byte raw representation.
    /// - Throws: CryptoKit's error when the bytes are not a key.
    public init(keychainRepresentation: Data) throws {
        try self.init(rawRepresentation: keychainRepresentation)
    }

    /// The raw representation.
    public var keychainRepresentation: Data { rawRepresentation }

    /// A new random key.
    ///
    /// - Returns: A new private key.
    public static func generateForKeychain() -> Self { Self() }
}

extension P256.Signing.PrivateKey: KeychainKeyConvertible {
    /// Creates the key from its X9.63 representation.
    ///
    /// - Parameter keychainRepresentation: The X9.63 representation (public point and scalar).
    /// - Throws: CryptoKit's error when the bytes are not a key.
    public init(keychainRepresentation: Data) throws {
        try self.init(x963Representation: keychainRepresentation)
    }

    /// The X9.63 representation.
    public var keychainRepresentation: Data { x963Representation }

    /// A new random key.
    ///
    /// - Returns: A new private key.
    public static func generateForKeychain() -> Self { Self() }
}

extension P256.KeyAgreement.PrivateKey: KeychainKeyConvertible {
    /// Creates the key from its X9.63 representation.
    ///
    /// - Parameter keychainRepresentation: The X9.63 representation (public point and scalar).
    /// - Throws: CryptoKit's error when the bytes are not a key.
    public init(keychainRepresentation: Data) throws {
        try self.init(x963Representation: keychainRepresentation)
    }

    /// The X9.63 representation.
    public var keychainRepresentation: Data { x963Representation }

    /// A new random key.
    ///
    /// - Returns: A new private key.
    public static func generateForKeychain() -> Self { Self() }
}
