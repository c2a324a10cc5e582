import Crypto
import Foundation
import KeychainServices

/// A P-256 signing key kept in the keychain (ECDSA with SHA-256, DER signatures, as
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256`). Get one with
/// ``Keychain/loadOrCreateSigningKey(tag:)``. Its description never shows key material.
public struct KeychainSigningKey: @unchecked Sendable, CustomStringConvertible {
    // SecKey objects are immutable; sharing one across threads is safe.
    let privateKey: SecKey

    /// The application tag the key is stored under.
    public let tag: String

    /// The public key in X9.63 form (`04 ‖ X ‖ Y`), to give to verifiers.
    ///
    /// - Throws: ``KeychainError`` if the key cannot be exported.
    public func publicKeyX963Representation() throws(KeychainError) -> Data {
        try KeychainPublicKeys.x963(of: privateKey, tag: tag)
    }

    /// Signs `message` (ECDSA P-256 over its SHA-256; DER X9.62 signature).
    ///
    /// - Parameter message: The bytes to sign.
    /// - Returns: The DER signature.
    /// - Throws: ``KeychainError`` when signing fails.
    public func signature(for message: Data) throws(KeychainError) -> Data {
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(privateKey, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) else {
            throw StoredPrivateKeys.failure(error, context: "Signing with the key tagged '\(tag)'")
        }
        return signature as Data
    }

    /// Whether `signature` is this key's signature of `message`.
    ///
    /// - Parameters:
    ///   - signature: A DER ECDSA signature.
    ///   - message: The signed bytes.
    /// - Returns: `true` only for a valid signature.
    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        guard let publicKey = SecKeyCopyPublicKey(privateKey) else { return false }
        return SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, signature as CFData, nil)
    }

    /// The tag and algorithm; never key material.
    public var description: String { "KeychainSigningKey(tag: \"\(tag)\", P-256 ECDSA)" }
}

/// A P-256 key-agreement key kept in the keychain (ECDH, secrets through the X9.63 KDF with
/// SHA-256, as `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256`). Get one with
/// ``Keychain/loadOrCreateAgreementKey(tag:)``. Its description never shows key material.
public struct KeychainAgreementKey: @unchecked Sendable, CustomStringConvertible {
    // SecKey objects are immutable; sharing one across threads is safe.
    let privateKey: SecKey

    /// The application tag the key is stored under.
    public let tag: String

    /// The public key in X9.63 form (`04 ‖ X ‖ Y`), to give to the other party.
    ///
    /// - Throws: ``KeychainError`` if the key cannot be exported.
    public func publicKeyX963Representation() throws(KeychainError) -> Data {
        try KeychainPublicKeys.x963(of: privateKey, tag: tag)
    }

    /// A symmetric key agreed with the holder of `peerPublicKey`: ECDH, then the X9.63 KDF
    /// with SHA-256 over `sharedInfo`.
    ///
    /// - Parameters:
    ///   - peerPublicKey: The other party's P-256 public key in X9.63 form.
    ///   - sharedInfo: Context bound into the derived key (both sides must use the same).
    ///   - byteCount: The derived key's length in bytes.
    /// - Returns: The derived key.
    /// - Throws: ``KeychainError`` for a malformed peer key or a failed exchange.
    public func sharedKey(with peerPublicKey: Data, sharedInfo: Data = Data(), byteCount: Int = 32) throws(KeychainError) -> SymmetricKey {
        let context = "Key agreement with the key tagged '\(tag)'"
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                         kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        guard let peer = SecKeyCreateWithData(peerPublicKey as CFData, attributes as CFDictionary, &error) else {
            throw StoredPrivateKeys.failure(error, context: "\(context) (the peer key is not a P-256 public key)")
        }
        let parameters: [String: Any] = [SecKeyKeyExchangeParameter.requestedSize.rawValue as String: byteCount,
                                         SecKeyKeyExchangeParameter.sharedInfo.rawValue as String: sharedInfo]
        guard let secret = SecKeyCopyKeyExchangeResult(privateKey, .ecdhKeyExchangeStandardX963SHA256, peer,
                                                       parameters as CFDictionary, &error) else {
            throw StoredPrivateKeys.failure(error, context: context)
        }
        return SymmetricKey(data: secret as Data)
    }

    /// The tag and algorithm; never key material.
    public var description: String { "KeychainAgreementKey(tag: \"\(tag)\", P-256 ECDH)" }
}

enum KeychainPublicKeys {
    static func x963(of privateKey: SecKey, tag: String) throws(KeychainError) -> Data {
        guard let publicKey = SecKeyCopyPublicKey(privateKey) else {
            throw KeychainError.unexpectedResult.withContext("The key tagged '\(tag)' has no public key")
        }
        return try StoredPrivateKeys.externalRepresentation(publicKey, context: "Exporting the public key tagged '\(tag)'")
    }
}

extension Keychain {
    private var storedPrivateKeys: StoredPrivateKeys { StoredPrivateKeys(operations: operations) }

    /// The signing key stored under `tag`, or `nil`.
    ///
    /// - Parameter tag: The key's application tag (for example `"com.example.app.signing"`).
    /// - Returns: The key, or `nil` when none is stored.
    /// - Throws: ``KeychainError``.
    public func signingKey(tag: String) throws(KeychainError) -> KeychainSigningKey? {
        try storedPrivateKeys.read(tag).map { KeychainSigningKey(privateKey: $0, tag: tag) }
    }

    /// The signing key stored under `tag`, or a new P-256 key stored there now. Concurrent
    /// callers (threads or processes) all end up with the same key.
    ///
    /// - Parameter tag: The key's application tag.
    /// - Returns: The existing or new key.
    /// - Throws: ``KeychainError``.
    public func loadOrCreateSigningKey(tag: String) throws(KeychainError) -> KeychainSigningKey {
        KeychainSigningKey(privateKey: try storedPrivateKeys.loadOrCreate(tag), tag: tag)
    }

    /// Replaces the signing key under `tag` by a new one; the old one stays under
    /// `tag + ".previous"` (see ``signingKey(tag:)``) until removed.
    ///
    /// - Parameter tag: The key's application tag.
    /// - Returns: The replaced key (if any) and the new one.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func rotateSigningKey(tag: String) throws(KeychainError) -> (previous: KeychainSigningKey?, current: KeychainSigningKey) {
        let rotated = try storedPrivateKeys.rotate(tag)
        return (rotated.previous.map { KeychainSigningKey(privateKey: $0, tag: tag + StoredPrivateKeys.previousSuffix) },
                KeychainSigningKey(privateKey: rotated.current, tag: tag))
    }

    /// The agreement key stored under `tag`, or `nil`.
    ///
    /// - Parameter tag: The key's application tag.
    /// - Returns: The key, or `nil` when none is stored.
    /// - Throws: ``KeychainError``.
    public func agreementKey(tag: String) throws(KeychainError) -> KeychainAgreementKey? {
        try storedPrivateKeys.read(tag).map { KeychainAgreementKey(privateKey: $0, tag: tag) }
    }

    /// The agreement key stored under `tag`, or a new P-256 key stored there now.
    ///
    /// - Parameter tag: The key's application tag.
    /// - Returns: The existing or new key.
    /// - Throws: ``KeychainError``.
    public func loadOrCreateAgreementKey(tag: String) throws(KeychainError) -> KeychainAgreementKey {
        KeychainAgreementKey(privateKey: try storedPrivateKeys.loadOrCreate(tag), tag: tag)
    }

    /// Replaces the agreement key under `tag` by a new one; the old one stays under
    /// `tag + ".previous"` until removed.
    ///
    /// - Parameter tag: The key's application tag.
    /// - Returns: The replaced key (if any) and the new one.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func rotateAgreementKey(tag: String) throws(KeychainError) -> (previous: KeychainAgreementKey?, current: KeychainAgreementKey) {
        let rotated = try storedPrivateKeys.rotate(tag)
        return (rotated.previous.map { KeychainAgreementKey(privateKey: $0, tag: tag + StoredPrivateKeys.previousSuffix) },
                KeychainAgreementKey(privateKey: rotated.current, tag: tag))
    }

    /// Removes the signing or agreement key stored under `tag`.
    ///
    /// - Parameter tag: The key's application tag (use `tag + ".previous"` for a rotated-out key).
    /// - Returns: `true` when a key was removed.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func removePrivateKey(tag: String) throws(KeychainError) -> Bool {
        try storedPrivateKeys.remove(tag)
    }
}
