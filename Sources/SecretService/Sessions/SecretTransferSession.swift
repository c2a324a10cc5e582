import Crypto
import CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The transfer encryption of one Secret Service session (one `OpenSession` call): how secrets
/// are encrypted on their way to the client (`GetSecrets`) and decrypted on their way in
/// (`CreateItem`, `SetSecret`). Immutable once opened; the D-Bus layer keeps one per session path.
package final class SecretTransferSession: Sendable {
    /// The session's algorithm.
    package let algorithm: SecretSessionAlgorithm
    /// The AES-128 key (dh), nil for plain.
    private let key: SymmetricKey?

    private init(algorithm: SecretSessionAlgorithm, key: SymmetricKey?) {
        self.algorithm = algorithm
        self.key = key
    }

    /// Opens a session for `OpenSession(algorithm, input)`.
    ///
    /// - Parameters:
    ///   - algorithm: the algorithm name the client asked for.
    ///   - input: the input variant's bytes: empty for `plain`, the client's DH public key
    ///     (big-endian) for the dh algorithm.
    /// - Returns: the session and the output variant's bytes (empty for `plain`, which the D-Bus
    ///   layer sends as `s ""`; our public key, big-endian, 128 bytes, for dh).
    /// - Throws: `.notSupported` for an unknown algorithm; `.invalidArgument` for a public key
    ///   that is not in ]1, p−1[ or longer than 1024 bits.
    package static func open(algorithm name: String, input: [UInt8]) throws(SecretServiceError) -> (session: SecretTransferSession, output: [UInt8]) {
        guard let algorithm = SecretSessionAlgorithm(rawValue: name) else { throw .notSupported("algorithm \(name)") }
        switch algorithm {
        case .plain:
            return (SecretTransferSession(algorithm: .plain, key: nil), [])
        case .dhIETF1024SHA256AES128CBCPKCS7:
            let exchange = try DiffieHellmanExchange(clientPublicKey: input)
            return (SecretTransferSession(algorithm: algorithm, key: exchange.transferKey), exchange.ourPublicKey)
        }
    }

    /// Encrypts `secret` for the client.
    /// - Returns: the `Secret` struct's `parameters` (the 16-byte IV for dh, empty for plain) and
    ///   `value` (AES-128-CBC with PKCS#7 padding for dh, the bytes for plain).
    package func encrypt(_ secret: [UInt8]) throws(SecretServiceError) -> (parameters: [UInt8], value: [UInt8]) {
        guard let key else { return ([], secret) }
        let iv = AES._CBC.IV()
        do {
            let ciphertext = try AES._CBC.encrypt(secret, using: key, iv: iv)
            return (Array(iv), Array(ciphertext))
        } catch {
            throw .invalidArgument("cannot encrypt the secret")
        }
    }

    /// Decrypts a `Secret` struct from the client.
    /// - Throws: `.invalidArgument("malformed secret")` for a wrong IV length, a value that is
    ///   not whole blocks, or bad padding: one message for all, so that it tells nothing about
    ///   the plaintext.
    package func decrypt(parameters: [UInt8], value: [UInt8]) throws(SecretServiceError) -> [UInt8] {
        guard let key else {
            guard parameters.isEmpty else { throw .invalidArgument("malformed secret") }
            return value
        }
        guard parameters.count == 16, !value.isEmpty, value.count % 16 == 0 else { throw .invalidArgument("malformed secret") }
        let padded: [UInt8]
        do {
            let iv = try AES._CBC.IV(ivBytes: parameters)
            padded = Array(try AES._CBC.decrypt(value, using: key, iv: iv, noPadding: true))
        } catch {
            throw .invalidArgument("malformed secret")
        }
        guard let length = PKCS7.unpaddedLength(padded) else { throw .invalidArgument("malformed secret") }
        return Array(padded[0..<length])
    }
}

/// PKCS#7 padding check for 16-byte blocks, looking at all 16 last bytes whatever the pad
/// length, so the time taken does not depend on where the padding goes wrong.
enum PKCS7 {
    /// The plaintext length of a padded buffer, nil when the padding is invalid.
    static func unpaddedLength(_ padded: [UInt8]) -> Int? {
        guard let last = padded.last, padded.count >= 16 else { return nil }
        let pad = Int(last)
        var bad = (pad == 0 || pad > 16) ? 1 : 0
        for offset in 1...16 {
            let byte = padded[padded.count - offset]
            let inPad = offset <= pad ? 1 : 0
            bad |= inPad & (byte != last ? 1 : 0)
        }
        return bad == 0 ? padded.count - pad : nil
    }
}

/// Our side of the `dh-ietf1024-sha256-aes128-cbc-pkcs7` key agreement.
struct DiffieHellmanExchange {
    /// Our public key, 2^x mod p, big-endian, 128 bytes.
    let ourPublicKey: [UInt8]
    /// The derived AES-128 key.
    let transferKey: SymmetricKey

    /// Checks the client's key, draws a 1024-bit private exponent and derives the shared key.
    init(clientPublicKey: [UInt8]) throws(SecretServiceError) {
        let group = IETF1024Group.modulus
        let limbCount = group.limbCount
        guard let client = Limbs.fromBigEndian(clientPublicKey, count: limbCount) else {
            throw .invalidArgument("the DH public key is longer than 1024 bits")
        }
        // 1 < y < p − 1: rejects the keys that force the shared secret to 0, 1 or ±1.
        var pMinusOne = group.modulus
        pMinusOne[0] -= 1  // p is odd
        let isAboveOne = client.dropFirst().contains { $0 != 0 } || client[0] > 1
        guard isAboveOne, group.isBelowModulus(client), client != pMinusOne else {
            throw .invalidArgument("the DH public key is out of range")
        }
        var generator = SystemRandomNumberGenerator()
        var privateExponent = (0..<limbCount).map { _ in generator.next() as UInt64 }
        defer { for index in privateExponent.indices { privateExponent[index] = 0 } }
        var two = [UInt64](repeating: 0, count: limbCount)
        two[0] = 2
        ourPublicKey = Limbs.toBigEndian(group.power(two, privateExponent), length: IETF1024Group.byteCount)
        var shared = Limbs.toBigEndian(group.power(client, privateExponent), length: IETF1024Group.byteCount)
        defer { for index in shared.indices { shared[index] = 0 } }
        transferKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: shared), info: [UInt8](), outputByteCount: 16)
    }
}
