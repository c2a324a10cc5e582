// The NIST curves a SecKey can be on, over swift-crypto's P256/P384/P521 types. One switch per
// operation here keeps the SecKey functions free of per-curve code.

import Crypto
import Foundation

/// A NIST prime curve that `kSecAttrKeyTypeECSECPrimeRandom` keys may use.
enum EllipticCurve: Sendable, Equatable {
    case p256, p384, p521

    /// The curve of a key of `bits` bits (Apple's `kSecAttrKeySizeInBits`), if it is one we support.
    init?(bits: Int) {
        switch bits {
        case 256: self = .p256
        case 384: self = .p384
        case 521: self = .p521
        default: return nil
        }
    }

    /// The curve whose X9.63 public key (`04 ‖ X ‖ Y`) is `count` bytes long.
    init?(publicX963Count count: Int) {
        switch count {
        case 65: self = .p256
        case 97: self = .p384
        case 133: self = .p521
        default: return nil
        }
    }

    /// The curve whose X9.63 private key (`04 ‖ X ‖ Y ‖ K`) is `count` bytes long.
    init?(privateX963Count count: Int) {
        switch count {
        case 97: self = .p256
        case 145: self = .p384
        case 199: self = .p521
        default: return nil
        }
    }

    /// The key size in bits, as `kSecAttrKeySizeInBits` reports it.
    var bits: Int {
        switch self {
        case .p256: 256
        case .p384: 384
        case .p521: 521
        }
    }

    /// Bytes of one coordinate (and of the scalar): Apple's block size for EC keys.
    var coordinateByteCount: Int { (bits + 7) / 8 }
}

/// A caller-supplied digest handed to swift-crypto's ECDSA, which signs and verifies the bytes of
/// any `Digest` as they are (ECDSA itself truncates a digest longer than the curve order).
struct CallerDigest: Digest {
    /// Not used by ECDSA; the real length is that of `bytes`.
    static var byteCount: Int { 64 }

    let bytes: [UInt8]

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

    /// Digests are not secrets, but there is no need to print them either.
    var description: String { "CallerDigest(\(bytes.count) bytes)" }
}

/// An EC private key on one of the supported curves.
enum ECPrivateKey: Sendable {
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)
    case p521(P521.Signing.PrivateKey)

    /// A fresh random key on `curve`.
    static func generate(on curve: EllipticCurve) -> ECPrivateKey {
        switch curve {
        case .p256: .p256(P256.Signing.PrivateKey(compactRepresentable: false))
        case .p384: .p384(P384.Signing.PrivateKey(compactRepresentable: false))
        case .p521: .p521(P521.Signing.PrivateKey(compactRepresentable: false))
        }
    }

    /// Reads Apple's private-key external representation, `04 ‖ X ‖ Y ‖ K`.
    init(x963Representation data: Data) throws {
        switch EllipticCurve(privateX963Count: data.count) {
        case .p256: self = .p256(try P256.Signing.PrivateKey(x963Representation: data))
        case .p384: self = .p384(try P384.Signing.PrivateKey(x963Representation: data))
        case .p521: self = .p521(try P521.Signing.PrivateKey(x963Representation: data))
        case nil: throw CryptoKitError.incorrectKeySize
        }
    }

    var curve: EllipticCurve {
        switch self {
        case .p256: .p256
        case .p384: .p384
        case .p521: .p521
        }
    }

    /// `04 ‖ X ‖ Y ‖ K`, Apple's external representation of an EC private key.
    var x963Representation: Data {
        switch self {
        case .p256(let key): key.x963Representation
        case .p384(let key): key.x963Representation
        case .p521(let key): key.x963Representation
        }
    }

    var publicKey: ECPublicKey {
        switch self {
        case .p256(let key): .p256(key.publicKey)
        case .p384(let key): .p384(key.publicKey)
        case .p521(let key): .p521(key.publicKey)
        }
    }

    /// The RFC 4754 ECDSA signature of `digest`: r and s, big-endian, each the curve's size.
    func rawSignature(ofDigest digest: [UInt8]) throws -> Data {
        let digest = CallerDigest(bytes: digest)
        switch self {
        case .p256(let key): return try key.signature(for: digest).rawRepresentation
        case .p384(let key): return try key.signature(for: digest).rawRepresentation
        case .p521(let key): return try key.signature(for: digest).rawRepresentation
        }
    }

    /// The DER (X9.62) ECDSA signature of `digest`.
    func derSignature(ofDigest digest: [UInt8]) throws -> Data {
        let digest = CallerDigest(bytes: digest)
        switch self {
        case .p256(let key): return try key.signature(for: digest).derRepresentation
        case .p384(let key): return try key.signature(for: digest).derRepresentation
        case .p521(let key): return try key.signature(for: digest).derRepresentation
        }
    }

    /// The raw ECDH shared secret (the x-coordinate of the shared point) with `peer`.
    func sharedSecret(with peer: ECPublicKey) throws -> SharedSecret {
        switch (self, peer) {
        case (.p256(let key), .p256(let other)):
            return try P256.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                .sharedSecretFromKeyAgreement(with: P256.KeyAgreement.PublicKey(rawRepresentation: other.rawRepresentation))
        case (.p384(let key), .p384(let other)):
            return try P384.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                .sharedSecretFromKeyAgreement(with: P384.KeyAgreement.PublicKey(rawRepresentation: other.rawRepresentation))
        case (.p521(let key), .p521(let other)):
            return try P521.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                .sharedSecretFromKeyAgreement(with: P521.KeyAgreement.PublicKey(rawRepresentation: other.rawRepresentation))
        default:
            throw CryptoKitError.incorrectParameterSize
        }
    }
}

/// An EC public key on one of the supported curves.
enum ECPublicKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)

    /// Reads Apple's public-key external representation, `04 ‖ X ‖ Y`.
    init(x963Representation data: Data) throws {
        switch EllipticCurve(publicX963Count: data.count) {
        case .p256: self = .p256(try P256.Signing.PublicKey(x963Representation: data))
        case .p384: self = .p384(try P384.Signing.PublicKey(x963Representation: data))
        case .p521: self = .p521(try P521.Signing.PublicKey(x963Representation: data))
        case nil: throw CryptoKitError.incorrectKeySize
        }
    }

    var curve: EllipticCurve {
        switch self {
        case .p256: .p256
        case .p384: .p384
        case .p521: .p521
        }
    }

    /// `04 ‖ X ‖ Y`, Apple's external representation of an EC public key.
    var x963Representation: Data {
        switch self {
        case .p256(let key): key.x963Representation
        case .p384(let key): key.x963Representation
        case .p521(let key): key.x963Representation
        }
    }

    /// Whether `raw` is a valid RFC 4754 (r‖s) ECDSA signature of `digest`; false for a wrong size too.
    func isValid(rawSignature raw: Data, ofDigest digest: [UInt8]) -> Bool {
        let digest = CallerDigest(bytes: digest)
        do {
            switch self {
            case .p256(let key): return key.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: raw), for: digest)
            case .p384(let key): return key.isValidSignature(try P384.Signing.ECDSASignature(rawRepresentation: raw), for: digest)
            case .p521(let key): return key.isValidSignature(try P521.Signing.ECDSASignature(rawRepresentation: raw), for: digest)
            }
        } catch {
            // A signature of the wrong size is simply not a valid signature.
            return false
        }
    }

    /// Whether `der` is a valid DER ECDSA signature of `digest`; false for malformed DER too.
    func isValid(derSignature der: Data, ofDigest digest: [UInt8]) -> Bool {
        let digest = CallerDigest(bytes: digest)
        do {
            switch self {
            case .p256(let key): return key.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: der), for: digest)
            case .p384(let key): return key.isValidSignature(try P384.Signing.ECDSASignature(derRepresentation: der), for: digest)
            case .p521(let key): return key.isValidSignature(try P521.Signing.ECDSASignature(derRepresentation: der), for: digest)
            }
        } catch {
            // A signature that is not even DER is simply not a valid signature.
            return false
        }
    }
}
