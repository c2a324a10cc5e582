// Apple's `SecKey`: an asymmetric key object (EC on P-256/384/521 or RSA) with its attributes.
// The key material lives only in memory here; its description names the key, never its bytes.

import Crypto
import CryptoExtras
import Foundation
import KeychainKeyItems

/// Apple: `SecKey`, an asymmetric cryptographic key (EC P-256/P-384/P-521 or RSA 2048–4096).
///
/// Make one with `SecKeyCreateRandomKey`, `SecKeyCreateWithData` or `SecKeyCopyPublicKey`, and
/// use it with `SecKeyCreateSignature`, `SecKeyCreateEncryptedData` and the other `SecKey…`
/// functions. Two keys are equal when they hold the same key (same class and public key).
public final class SecKey: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// The key itself, as swift-crypto types.
    enum Material: Sendable {
        case ecPrivate(ECPrivateKey)
        case ecPublic(ECPublicKey)
        case rsaPrivate(_RSA.Signing.PrivateKey)
        case rsaPublic(_RSA.Signing.PublicKey)
    }

    let material: Material
    /// `kSecAttrApplicationTag`, if the key was given one.
    let applicationTag: Data?
    /// `kSecAttrLabel`, if the key was given one.
    let label: String?
    /// Made with `kSecAttrTokenIDSecureEnclave`: the private key never leaves the keychain
    /// (`SecKeyCopyExternalRepresentation` refuses it). On Linux this is a software promise of
    /// the library, not hardware: see docs/APPLE-API.md, "Key items".
    let isTokenBound: Bool
    /// For a stored key with `.privateKeyUsage` access control: the check each private-key
    /// operation passes first (nil: operations need no authentication).
    let usageGuard: PrivateKeyUseGuard?
    /// For the private half of a token-bound key the keychain service holds: where to ask for its
    /// operations (``material`` is then its public key: the private bytes are the service's).
    let serviceHandle: ServiceKeyHandle?

    init(_ material: Material, applicationTag: Data? = nil, label: String? = nil, isTokenBound: Bool = false,
         usageGuard: PrivateKeyUseGuard? = nil, serviceHandle: ServiceKeyHandle? = nil) {
        self.material = material
        self.applicationTag = applicationTag
        self.label = label
        self.isTokenBound = isTokenBound || serviceHandle != nil
        self.usageGuard = usageGuard
        self.serviceHandle = serviceHandle
    }

    /// Runs the access-control check of a `.privateKeyUsage` key before a private-key operation.
    func authorizePrivateKeyUse() throws(SecKeyFailure) {
        try usageGuard?.authorize()
    }

    /// Whether this is the private half of a key pair.
    var isPrivate: Bool {
        if serviceHandle != nil { return true }
        switch material {
        case .ecPrivate, .rsaPrivate: return true
        case .ecPublic, .rsaPublic: return false
        }
    }

    /// Whether this is an EC (`kSecAttrKeyTypeECSECPrimeRandom`) key.
    var isEllipticCurve: Bool {
        switch material {
        case .ecPrivate, .ecPublic: true
        case .rsaPrivate, .rsaPublic: false
        }
    }

    /// Key size in bits (`kSecAttrKeySizeInBits`).
    var sizeInBits: Int {
        switch material {
        case .ecPrivate(let key): key.curve.bits
        case .ecPublic(let key): key.curve.bits
        case .rsaPrivate(let key): key.keySizeInBits
        case .rsaPublic(let key): key.keySizeInBits
        }
    }

    /// Apple's block size: bytes of a coordinate for EC keys, of the modulus for RSA keys.
    var blockSize: Int {
        switch material {
        case .ecPrivate(let key): key.curve.coordinateByteCount
        case .ecPublic(let key): key.curve.coordinateByteCount
        case .rsaPrivate, .rsaPublic: (sizeInBits + 7) / 8
        }
    }

    /// The public half (the key itself when it is public).
    var publicMaterial: Material {
        switch material {
        case .ecPrivate(let key): .ecPublic(key.publicKey)
        case .rsaPrivate(let key): .rsaPublic(key.publicKey)
        case .ecPublic, .rsaPublic: material
        }
    }

    /// Apple's external representation of the public half: X9.63 `04 ‖ X ‖ Y` for EC,
    /// PKCS#1 `RSAPublicKey` DER for RSA.
    var publicKeyData: Data {
        switch publicMaterial {
        case .ecPublic(let key): key.x963Representation
        case .rsaPublic(let key): key.pkcs1DERRepresentation
        case .ecPrivate, .rsaPrivate: Data()  // unreachable: publicMaterial is always public
        }
    }

    /// Apple's external representation of the key: the public form above, or for private keys
    /// X9.63 `04 ‖ X ‖ Y ‖ K` (EC) and PKCS#1 `RSAPrivateKey` DER (RSA).
    var externalRepresentation: Data {
        switch material {
        case .ecPrivate(let key): key.x963Representation
        case .rsaPrivate(let key): key.derRepresentation
        case .ecPublic, .rsaPublic: publicKeyData
        }
    }

    /// `kSecAttrApplicationLabel`: the SHA-1 of the public key's external representation, as
    /// Apple computes it for the keys it generates.
    var applicationLabel: Data { AsymmetricKey.applicationLabel(publicKeyData: publicKeyData) }

    /// Equal when both are the same class of the same key pair.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.isPrivate == rhs.isPrivate && lhs.publicKeyData == rhs.publicKeyData
    }

    /// Hashes the key class and the public key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(isPrivate)
        hasher.combine(publicKeyData)
    }

    /// Algorithm, size and class only; never key bytes.
    public var description: String {
        "<SecKey algorithm: \(isEllipticCurve ? "EC" : "RSA"), size: \(sizeInBits), class: \(isPrivate ? "private" : "public")>"
    }
}

/// Apple: `SecKeyGetTypeID()`, the CF type identifier of `SecKey` objects.
@discardableResult
public func SecKeyGetTypeID() -> CFTypeID { cfTypeID(forClass: SecKey.self) }
