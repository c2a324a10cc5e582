// Signing, verifying, encrypting, decrypting and key agreement with a SecKey, dispatched on
// the parsed algorithm. Each function checks first that the algorithm is implemented
// (`errSecUnimplemented` otherwise) and that the key can perform it (Apple's `errSecParam`
// "algorithm not supported by the key" otherwise).

import Crypto
import CryptoExtras
import Foundation

/// Apple: `SecKeyIsAlgorithmSupported(_:_:_:)`. Whether `key` can perform `algorithm` for
/// `operation`. Signing, decryption and key exchange need a private key; verifying and
/// encryption a public key (as Apple's, whose private keys do neither).
@discardableResult
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    guard let spec = KeyAlgorithmSpec(algorithm) else { return false }
    return spec.supports(operation, isEllipticCurve: key.isEllipticCurve, isPrivate: key.isPrivate)
}

/// The parsed algorithm; "not implemented" for an algorithm this library does not perform,
/// Apple's "not supported by the key" when the key cannot perform it.
private func spec(_ algorithm: SecKeyAlgorithm, _ key: SecKey, _ operation: SecKeyOperationType) throws(SecKeyFailure) -> KeyAlgorithmSpec {
    guard let spec = KeyAlgorithmSpec(algorithm) else { throw .unimplemented(algorithm) }
    guard spec.supports(operation, isEllipticCurve: key.isEllipticCurve, isPrivate: key.isPrivate) else {
        throw .unsupported(algorithm, key)
    }
    return spec
}

/// The digest an ECDSA algorithm signs: the message's hash, or the caller's digest whose length
/// must match the named hash (Apple: "bad digest size for signing with algorithm").
private func ecdsaDigest(_ data: Data, hash: KeyHash?, isDigest: Bool, _ algorithm: SecKeyAlgorithm) throws(SecKeyFailure) -> [UInt8] {
    guard isDigest else { return hash?.hash(data) ?? Array(data) }
    if let hash, data.count != hash.byteCount {
        throw .parameter("bad digest size for signing with algorithm \(algorithm.rawValue)")
    }
    return Array(data)
}

private func rsaSignaturePadding(_ spec: KeyAlgorithmSpec) -> (KeyHash, _RSA.Signing.Padding)? {
    switch spec {
    case .rsaPKCS1v15Message(let hash): (hash, .insecurePKCS1v1_5)
    case .rsaPSSMessage(let hash): (hash, .PSS)
    default: nil
    }
}

/// Apple: `SecKeyCreateSignature(_:_:_:_:)`. Signs `dataToSign` with the private `key`:
/// ECDSA (message or digest, DER X9.62 output) or RSA PKCS#1 v1.5 / PSS over a message.
/// Returns nil and sets `error` on failure.
@discardableResult
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reportingSecKeyFailure(error) { () throws(SecKeyFailure) -> CFData in
        let spec = try spec(algorithm, key, .sign)
        try key.authorizePrivateKeyUse()
        let data = Data(copyingBytesOf: dataToSign)
        if let held = key.serviceHandle {
            // The service signs the digest; the hashing and the encoding are this process's.
            guard case .ecdsa(let hash, let isDigest, let rawRS) = spec else { throw .unsupported(algorithm, key) }
            let raw = try held.signature(ofDigest: try ecdsaDigest(data, hash: hash, isDigest: isDigest, algorithm))
            if rawRS { return raw as NSData }
            do {
                return try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation as NSData
            } catch {
                throw SecKeyFailure(status: errSecDecode, message: "the keychain service sent a signature that does not parse")
            }
        }
        switch (key.material, spec) {
        case (.ecPrivate(let ecKey), .ecdsa(let hash, let isDigest, let rawRS)):
            let digest = try ecdsaDigest(data, hash: hash, isDigest: isDigest, algorithm)
            do {
                return try (rawRS ? ecKey.rawSignature(ofDigest: digest) : ecKey.derSignature(ofDigest: digest)) as NSData
            } catch {
                throw SecKeyFailure(status: errSecInternalComponent, message: "ECDSA signing failed")
            }
        case (.rsaPrivate(let rsaKey), _):
            guard let (hash, padding) = rsaSignaturePadding(spec) else { throw .unsupported(algorithm, key) }
            do {
                return try rsaSignature(rsaKey, message: data, hash: hash, padding: padding) as NSData
            } catch {
                throw SecKeyFailure(status: errSecInternalComponent, message: "RSA signing failed")
            }
        default:
            throw .unsupported(algorithm, key)
        }
    }
}

/// Apple: `SecKeyVerifySignature(_:_:_:_:_:)`. Whether `signature` is `key`'s signature of
/// `signedData` under `algorithm`. On a mismatch returns false and sets `error` to
/// `errSecVerifyFailed` (-67808), as Apple does.
@discardableResult
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    reportingSecKeyFailure(error) { () throws(SecKeyFailure) -> Bool in
        let spec = try spec(algorithm, key, .verify)
        let data = Data(copyingBytesOf: signedData)
        let signatureBytes = Data(copyingBytesOf: signature)
        switch (key.publicMaterial, spec) {
        case (.ecPublic(let ecKey), .ecdsa(let hash, let isDigest, let rawRS)):
            let digest = try ecdsaDigest(data, hash: hash, isDigest: isDigest, algorithm)
            let valid = rawRS ? ecKey.isValid(rawSignature: signatureBytes, ofDigest: digest)
                : ecKey.isValid(derSignature: signatureBytes, ofDigest: digest)
            guard valid else { throw .verification("EC") }
            return true
        case (.rsaPublic(let rsaKey), _):
            guard let (hash, padding) = rsaSignaturePadding(spec) else { throw .unsupported(algorithm, key) }
            guard isValidRSASignature(rsaKey, signatureBytes, message: data, hash: hash, padding: padding) else {
                throw .verification("RSA")
            }
            return true
        default:
            throw .unsupported(algorithm, key)
        }
    } ?? false
}

/// Apple: `SecKeyCreateEncryptedData(_:_:_:_:)`. Encrypts `plaintext` to the public `key`
/// (a private key is refused with `errSecParam`, as by Apple): RSA-OAEP (SHA-1, SHA-256) or ECIES (`eciesEncryption…X963SHA…AESGCM`, output
/// ephemeral public key ‖ ciphertext ‖ 16-byte tag).
@discardableResult
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reportingSecKeyFailure(error) { () throws(SecKeyFailure) -> CFData in
        let spec = try spec(algorithm, key, .encrypt)
        let data = Data(copyingBytesOf: plaintext)
        switch (key.publicMaterial, spec) {
        case (.rsaPublic(let rsaKey), .rsaOAEP(let hash)):
            do {
                let encryptionKey = try _RSA.Encryption.PublicKey(derRepresentation: rsaKey.derRepresentation)
                let padding = oaepPadding(hash)
                guard data.count <= encryptionKey.maximumEncryptSize(with: padding) else {
                    throw SecKeyFailure.parameter("RSA-OAEP plaintext too long for the key")
                }
                return try encryptionKey.encrypt(data, padding: padding) as NSData
            } catch let failure as SecKeyFailure {
                throw failure
            } catch {
                throw SecKeyFailure(status: errSecInternalComponent, message: "RSA-OAEP encryption failed")
            }
        case (.ecPublic(let ecKey), .ecies(let hash, let variableIV)):
            return try ECIES(hash: hash, variableIV: variableIV).seal(data, to: ecKey) as NSData
        default:
            throw .unsupported(algorithm, key)
        }
    }
}

/// Apple: `SecKeyCreateDecryptedData(_:_:_:_:)`. Decrypts what `SecKeyCreateEncryptedData`
/// made for this private key. Returns nil and sets `error` to `errSecParam` when the
/// ciphertext is malformed, altered or meant for another key.
@discardableResult
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reportingSecKeyFailure(error) { () throws(SecKeyFailure) -> CFData in
        let spec = try spec(algorithm, key, .decrypt)
        try key.authorizePrivateKeyUse()
        let data = Data(copyingBytesOf: ciphertext)
        switch (key.material, spec) {
        case (.rsaPrivate(let rsaKey), .rsaOAEP(let hash)):
            do {
                let decryptionKey = try _RSA.Encryption.PrivateKey(derRepresentation: rsaKey.derRepresentation)
                return try decryptionKey.decrypt(data, padding: oaepPadding(hash)) as NSData
            } catch {
                throw .parameter("RSA-OAEP decryption failed")
            }
        case (.ecPrivate(let ecKey), .ecies(let hash, let variableIV)):
            return try ECIES(hash: hash, variableIV: variableIV).open(data, with: ecKey) as NSData
        case (.ecPublic(let publicKey), .ecies(let hash, let variableIV)) where key.serviceHandle != nil:
            // A key the keychain service holds: the service makes the shared secret.
            return try ECIES(hash: hash, variableIV: variableIV).open(data, heldBy: key.serviceHandle!, curve: publicKey.curve) as NSData
        default:
            throw .unsupported(algorithm, key)
        }
    }
}

/// Apple: `SecKeyCopyKeyExchangeResult(_:_:_:_:_:)`. ECDH between the private key and
/// `publicKey` (same curve). With an `…X963SHA…` algorithm the shared secret goes through the
/// X9.63 KDF: `parameters` must give `SecKeyKeyExchangeParameter.requestedSize` and may give
/// `SecKeyKeyExchangeParameter.sharedInfo`. The result is secret key material.
@discardableResult
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reportingSecKeyFailure(error) { () throws(SecKeyFailure) -> CFData in
        let spec = try spec(algorithm, privateKey, .keyExchange)
        if let held = privateKey.serviceHandle {
            // A key the keychain service holds: the service makes the shared secret, this process derives.
            guard case .ecdh(let hash) = spec, case .ecPublic(let ownKey) = privateKey.material else { throw .unsupported(algorithm, privateKey) }
            guard case .ecPublic(let peerKey) = publicKey.publicMaterial, peerKey.curve == ownKey.curve else {
                throw .parameter("key exchange needs a public key on the same curve")
            }
            let secret = try held.sharedSecret(with: peerKey)
            guard let hash else { return secret as NSData }
            let (size, sharedInfo) = try keyExchangeDerivation(parameters)
            return hash.x963Derive(rawSecret: secret, sharedInfo: sharedInfo, outputByteCount: size) as NSData
        }
        guard case .ecPrivate(let ownKey) = privateKey.material, case .ecdh(let hash) = spec else {
            throw .unsupported(algorithm, privateKey)
        }
        guard case .ecPublic(let peerKey) = publicKey.publicMaterial, peerKey.curve == ownKey.curve else {
            throw .parameter("key exchange needs a public key on the same curve")
        }
        try privateKey.authorizePrivateKeyUse()
        let secret: SharedSecret
        do {
            secret = try ownKey.sharedSecret(with: peerKey)
        } catch {
            throw .parameter("ECDH key exchange failed")
        }
        guard let hash else { return secret.withUnsafeBytes { Data($0) } as NSData }
        let (size, sharedInfo) = try keyExchangeDerivation(parameters)
        return hash.x963Derive(secret, sharedInfo: sharedInfo, outputByteCount: size) as NSData
    }
}

/// The X9.63 KDF's output size and shared info from a key exchange's `parameters`.
private func keyExchangeDerivation(_ parameters: CFDictionary) throws(SecKeyFailure) -> (size: Int, sharedInfo: Data) {
    let options = parameters as? [String: Any] ?? [:]
    guard let size = (options[SecKeyKeyExchangeParameter.requestedSize.rawValue as String] as? NSNumber)?.intValue, size > 0 else {
        throw .parameter("SecKeyKeyExchangeParameter.requestedSize is missing")
    }
    switch options[SecKeyKeyExchangeParameter.sharedInfo.rawValue as String] {
    case nil: return (size, Data())
    case let data as Data: return (size, data)
    default: throw .parameter("SecKeyKeyExchangeParameter.sharedInfo must be data")
    }
}

// MARK: - RSA helpers

private func oaepPadding(_ hash: KeyHash) -> _RSA.Encryption.Padding {
    hash == .sha1 ? .PKCS1_OAEP : .PKCS1_OAEP_SHA256
}

private func rsaSignature(_ key: _RSA.Signing.PrivateKey, message: Data, hash: KeyHash, padding: _RSA.Signing.Padding) throws -> Data {
    switch hash {
    case .sha1: try key.signature(for: Insecure.SHA1.hash(data: message), padding: padding).rawRepresentation
    case .sha256: try key.signature(for: SHA256.hash(data: message), padding: padding).rawRepresentation
    case .sha384: try key.signature(for: SHA384.hash(data: message), padding: padding).rawRepresentation
    case .sha512: try key.signature(for: SHA512.hash(data: message), padding: padding).rawRepresentation
    }
}

private func isValidRSASignature(
    _ key: _RSA.Signing.PublicKey, _ signature: Data, message: Data, hash: KeyHash, padding: _RSA.Signing.Padding
) -> Bool {
    let signature = _RSA.Signing.RSASignature(rawRepresentation: signature)
    return switch hash {
    case .sha1: key.isValidSignature(signature, for: Insecure.SHA1.hash(data: message), padding: padding)
    case .sha256: key.isValidSignature(signature, for: SHA256.hash(data: message), padding: padding)
    case .sha384: key.isValidSignature(signature, for: SHA384.hash(data: message), padding: padding)
    case .sha512: key.isValidSignature(signature, for: SHA512.hash(data: message), padding: padding)
    }
}
