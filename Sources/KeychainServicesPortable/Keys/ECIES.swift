// ECIES as Apple's SecKey performs it (`eciesEncryption{Standard,Cofactor}[VariableIV]X963SHA…AESGCM`):
//
//   ephemeral key pair on the recipient's curve; Z = ECDH(ephemeral private, recipient public);
//   KDF = ANSI X9.63 over the named hash, shared info = ephemeral public key (X9.63 bytes);
//   AES key = first 16 bytes (curves up to 256 bits) or 32 bytes (larger curves);
//   IV = 16 zero bytes, or for the variable-IV variants the next 16 bytes of KDF output;
//   AES-GCM without associated data, 16-byte tag;
//   output = ephemeral public key ‖ ciphertext ‖ tag.
//
// Sources: Apple's SecKey.h comments on the algorithm constants, and the interoperable
// implementations cited in docs/APPLE-API.md ("SecKey").

import Crypto
import Foundation

struct ECIES {
    let hash: KeyHash
    let variableIV: Bool

    private static let ivByteCount = 16
    private static let tagByteCount = 16

    private func aesKeyByteCount(_ curve: EllipticCurve) -> Int { curve.bits > 256 ? 32 : 16 }

    /// The AES key and IV for one message, from the shared secret and the ephemeral public key.
    private func symmetricKeyAndIV(_ secret: SharedSecret, ephemeralPublicKey: Data, curve: EllipticCurve) throws(SecKeyFailure) -> (SymmetricKey, AES.GCM.Nonce) {
        try symmetricKeyAndIV(ephemeralPublicKey: ephemeralPublicKey, curve: curve) { count in
            hash.x963Derive(secret, sharedInfo: ephemeralPublicKey, outputByteCount: count)
        }
    }

    /// The AES key and IV for one message from `derive`, the KDF's first bytes.
    private func symmetricKeyAndIV(ephemeralPublicKey: Data, curve: EllipticCurve,
                                   derive: (Int) -> Data) throws(SecKeyFailure) -> (SymmetricKey, AES.GCM.Nonce) {
        let keyCount = aesKeyByteCount(curve)
        let derived = derive(keyCount + (variableIV ? Self.ivByteCount : 0))
        let iv = variableIV ? derived.suffix(Self.ivByteCount) : Data(count: Self.ivByteCount)
        do {
            return (SymmetricKey(data: derived.prefix(keyCount)), try AES.GCM.Nonce(data: iv))
        } catch {
            throw SecKeyFailure(status: errSecInternalComponent, message: "ECIES: bad IV")
        }
    }

    /// Encrypts `plaintext` to `recipient`.
    func seal(_ plaintext: Data, to recipient: ECPublicKey) throws(SecKeyFailure) -> Data {
        let ephemeral = ECPrivateKey.generate(on: recipient.curve)
        let ephemeralPublicKey = ephemeral.publicKey.x963Representation
        do {
            let secret = try ephemeral.sharedSecret(with: recipient)
            let (key, iv) = try symmetricKeyAndIV(secret, ephemeralPublicKey: ephemeralPublicKey, curve: recipient.curve)
            let box = try AES.GCM.seal(plaintext, using: key, nonce: iv)
            return ephemeralPublicKey + box.ciphertext + box.tag
        } catch let failure as SecKeyFailure {
            throw failure
        } catch {
            throw SecKeyFailure(status: errSecInternalComponent, message: "ECIES encryption failed")
        }
    }

    /// Decrypts `message` with the recipient's private key.
    func open(_ message: Data, with recipient: ECPrivateKey) throws(SecKeyFailure) -> Data {
        try open(message, curve: recipient.curve) { ephemeral, ephemeralPublicKey, count throws in
            hash.x963Derive(try recipient.sharedSecret(with: ephemeral), sharedInfo: ephemeralPublicKey, outputByteCount: count)
        }
    }

    /// Decrypts `message` for the private key the keychain service holds for `recipient`: the
    /// service makes the shared secret, this process the rest.
    func open(_ message: Data, heldBy recipient: ServiceKeyHandle, curve: EllipticCurve) throws(SecKeyFailure) -> Data {
        try open(message, curve: curve) { ephemeral, ephemeralPublicKey, count throws in
            hash.x963Derive(rawSecret: try recipient.sharedSecret(with: ephemeral), sharedInfo: ephemeralPublicKey, outputByteCount: count)
        }
    }

    /// Decrypts `message` with `derive`, the KDF's first bytes for an ephemeral public key.
    private func open(_ message: Data, curve: EllipticCurve,
                      derive: (ECPublicKey, Data, Int) throws -> Data) throws(SecKeyFailure) -> Data {
        let publicKeyCount = 1 + 2 * curve.coordinateByteCount
        guard message.count >= publicKeyCount + Self.tagByteCount else { throw .parameter("ECIES: ciphertext too short") }
        let bytes = Data(message)  // rebase indices to 0
        let ephemeralPublicKey = bytes.prefix(publicKeyCount)
        let ciphertext = bytes[publicKeyCount..<(bytes.count - Self.tagByteCount)]
        let tag = bytes.suffix(Self.tagByteCount)
        // The keychain service's refusal (another application's key, a locked keychain) is
        // reported as it is, not as a bad ciphertext.
        var serviceRefusal: SecKeyFailure?
        do {
            let ephemeral = try ECPublicKey(x963Representation: ephemeralPublicKey)
            var derivationFailed = false
            let (key, iv) = try symmetricKeyAndIV(ephemeralPublicKey: ephemeralPublicKey, curve: curve) { count in
                do {
                    return try derive(ephemeral, ephemeralPublicKey, count)
                } catch {
                    derivationFailed = true
                    if let refusal = error as? SecKeyFailure, refusal.status != errSecParam { serviceRefusal = refusal }
                    return Data()
                }
            }
            if derivationFailed { throw CryptoKitError.incorrectParameterSize }
            let box = try AES.GCM.SealedBox(nonce: iv, ciphertext: ciphertext, tag: tag)
            return try AES.GCM.open(box, using: key)
        } catch {
            if let serviceRefusal { throw serviceRefusal }
            throw .parameter("ECIES: failed to decrypt (wrong key, or the ciphertext was altered)")
        }
    }
}
