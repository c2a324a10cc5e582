import Crypto
import Foundation
import KeychainServices

/// P-256 private keys kept as `kSecClassKey` items of a keychain's scope, named by application
/// tag: the storage behind ``KeychainSigningKey`` and ``KeychainAgreementKey``.
///
/// The key bytes travel as the item's data (Apple's X9.63 external representation), so the same
/// code works with Apple's keychain and with the engine backend; the SecKey is rebuilt with
/// `SecKeyCreateWithData`. Key items are not scoped by the keychain's service: the tag names them.
struct StoredPrivateKeys {
    let operations: ItemOperations

    /// The suffix under which a rotation keeps the previous key.
    static let previousSuffix = ".previous"

    private func identity(_ tag: String) throws(KeychainError) -> [String: Any] {
        guard !tag.isEmpty else { throw KeychainError.invalidArgument.withContext("A key tag must not be empty") }
        return [
            kSecClass as String: kSecClassKey,
            kSecAttrApplicationTag as String: Data(tag.utf8),
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ]
    }

    /// The stored key tagged `tag`, or nil.
    func read(_ tag: String) throws(KeychainError) -> SecKey? {
        let context = "Reading the key tagged '\(tag)'"
        guard let data = try operations.readData(try identity(tag), context: context) else { return nil }
        return try Self.key(from: data, context: context)
    }

    /// The key tagged `tag`, or a new one stored now; concurrent callers all get the same key
    /// (add-if-absent, the loser reads the winner's).
    func loadOrCreate(_ tag: String) throws(KeychainError) -> SecKey {
        if let existing = try read(tag) { return existing }
        let context = "Creating the key tagged '\(tag)'"
        let (key, data) = try Self.generate(context: context)
        if try operations.add(data, identity: try attributes(tag, for: key), context: context) { return key }
        guard let winner = try read(tag) else { throw KeychainError.itemNotFound.withContext(context) }
        return winner
    }

    /// Replaces the key tagged `tag` by a new one, keeping the old one under `tag.previous`.
    func rotate(_ tag: String) throws(KeychainError) -> (previous: SecKey?, current: SecKey) {
        let context = "Rotating the key tagged '\(tag)'"
        let previousTag = tag + Self.previousSuffix
        let previous = try read(tag)
        let (current, data) = try Self.generate(context: context)
        _ = try operations.delete(try identity(previousTag), context: context)
        if let previous {
            // Keep the old key first: a crash later leaves it in both places, never nowhere.
            guard try operations.add(try Self.externalRepresentation(previous, context: context),
                                     identity: try attributes(previousTag, for: previous), context: context)
            else { throw KeychainError.duplicateItem.withContext(context) }
            _ = try operations.delete(try identity(tag), context: context)
        }
        guard try operations.add(data, identity: try attributes(tag, for: current), context: context) else {
            throw KeychainError.duplicateItem.withContext(context)
        }
        return (previous, current)
    }

    /// Removes the key tagged `tag`; returns whether there was one.
    func remove(_ tag: String) throws(KeychainError) -> Bool {
        try operations.delete(try identity(tag), context: "Removing the key tagged '\(tag)'")
    }

    /// The attributes of a new key item: Apple's key class, type, sizes and application label.
    private func attributes(_ tag: String, for key: SecKey) throws(KeychainError) -> [String: Any] {
        var attributes = try identity(tag)
        attributes[kSecAttrKeyType as String] = kSecAttrKeyTypeECSECPrimeRandom
        attributes[kSecAttrKeySizeInBits as String] = 256
        attributes[kSecAttrEffectiveKeySize as String] = 256
        guard let publicKey = SecKeyCopyPublicKey(key) else {
            throw KeychainError.unexpectedResult.withContext("The new key of tag '\(tag)' has no public key")
        }
        let publicData = try Self.externalRepresentation(publicKey, context: "Labelling the key tagged '\(tag)'")
        // Apple's application label: the SHA-1 of the public key.
        attributes[kSecAttrApplicationLabel as String] = Data(Insecure.SHA1.hash(data: publicData))
        return attributes
    }

    private static func generate(context: String) throws(KeychainError) -> (SecKey, Data) {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
            throw failure(error, context: context)
        }
        return (key, try externalRepresentation(key, context: context))
    }

    static func externalRepresentation(_ key: SecKey, context: String) throws(KeychainError) -> Data {
        var error: Unmanaged<CFError>?
        guard let data = SecKeyCopyExternalRepresentation(key, &error) else { throw failure(error, context: context) }
        return data as Data
    }

    private static func key(from data: Data, context: String) throws(KeychainError) -> SecKey {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                         kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
        guard let key = SecKeyCreateWithData(data as CFData, attributes as CFDictionary, &error) else {
            throw KeychainError.decodingFailed.withContext("\(context) (the stored bytes are not a P-256 private key)")
        }
        return key
    }

    /// The `KeychainError` for a SecKey function's `CFError` (its code is an `OSStatus`).
    static func failure(_ error: Unmanaged<CFError>?, context: String) -> KeychainError {
        guard let error = error?.takeRetainedValue() else { return KeychainError.unexpectedResult.withContext(context) }
        return KeychainError(status: OSStatus(truncatingIfNeeded: CFErrorGetCode(error)), context: context)
    }
}
