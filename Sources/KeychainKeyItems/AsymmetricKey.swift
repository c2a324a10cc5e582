// An EC (P-256/384/521) or RSA key as the keychain stores it: a `keys` item whose data is
// Apple's external representation of the key and whose attributes say what it is, the same
// whether Apple's CF-typed layer adds a SecKey or a tool adds the key through SecItem calls on
// Swift dictionaries. The private bytes live only in memory and in the item's encrypted data;
// descriptions name the key's kind, never its bytes.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import CryptoExtras

/// An asymmetric key of a kind SecKey supports, with what its keychain item holds.
package enum AsymmetricKey: Sendable, CustomStringConvertible {
    /// An EC private key on P-256.
    case p256Private(P256.Signing.PrivateKey)
    /// An EC private key on P-384.
    case p384Private(P384.Signing.PrivateKey)
    /// An EC private key on P-521.
    case p521Private(P521.Signing.PrivateKey)
    /// An RSA private key.
    case rsaPrivate(_RSA.Signing.PrivateKey)
    /// An EC public key on P-256.
    case p256Public(P256.Signing.PublicKey)
    /// An EC public key on P-384.
    case p384Public(P384.Signing.PublicKey)
    /// An EC public key on P-521.
    case p521Public(P521.Signing.PublicKey)
    /// An RSA public key.
    case rsaPublic(_RSA.Signing.PublicKey)

    /// The key a stored key item holds: `data` in Apple's external representation (X9.63 for
    /// EC, PKCS#1 DER for RSA), of `keyClass` (1 private, 0 public) and `keyType` (73 EC, 42 RSA).
    /// Nil when the class or type is none of those or the bytes are not such a key.
    package init?(itemData data: Data, keyClass: Int, keyType: Int) {
        let parsed: AsymmetricKey?
        switch (keyType, keyClass) {
        case (KeyItemAttributeName.ellipticCurveKeyType, KeyItemAttributeName.privateKeyClass):
            parsed = Self.firstAccepted([
                { .p256Private(try P256.Signing.PrivateKey(x963Representation: data)) },
                { .p384Private(try P384.Signing.PrivateKey(x963Representation: data)) },
                { .p521Private(try P521.Signing.PrivateKey(x963Representation: data)) },
            ])
        case (KeyItemAttributeName.ellipticCurveKeyType, KeyItemAttributeName.publicKeyClass):
            parsed = Self.firstAccepted([
                { .p256Public(try P256.Signing.PublicKey(x963Representation: data)) },
                { .p384Public(try P384.Signing.PublicKey(x963Representation: data)) },
                { .p521Public(try P521.Signing.PublicKey(x963Representation: data)) },
            ])
        case (KeyItemAttributeName.rsaKeyType, KeyItemAttributeName.privateKeyClass):
            parsed = Self.firstAccepted([{ .rsaPrivate(try _RSA.Signing.PrivateKey(derRepresentation: data)) }])
        case (KeyItemAttributeName.rsaKeyType, KeyItemAttributeName.publicKeyClass):
            parsed = Self.firstAccepted([{ .rsaPublic(try _RSA.Signing.PublicKey(derRepresentation: data)) }])
        default:
            parsed = nil
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The EC (P-256/384/521) or RSA private key of a PEM block (PKCS#8, SEC1 or PKCS#1); nil
    /// when it is none of them.
    package static func privateKey(pem: String) -> AsymmetricKey? {
        firstAccepted([
            { .p256Private(try P256.Signing.PrivateKey(pemRepresentation: pem)) },
            { .p384Private(try P384.Signing.PrivateKey(pemRepresentation: pem)) },
            { .p521Private(try P521.Signing.PrivateKey(pemRepresentation: pem)) },
            { .rsaPrivate(try _RSA.Signing.PrivateKey(pemRepresentation: pem)) },
        ])
    }

    /// The EC (P-256/384/521) or RSA private key of DER bytes; nil when they are none of them.
    package static func privateKey(der: Data) -> AsymmetricKey? {
        firstAccepted([
            { .p256Private(try P256.Signing.PrivateKey(derRepresentation: der)) },
            { .p384Private(try P384.Signing.PrivateKey(derRepresentation: der)) },
            { .p521Private(try P521.Signing.PrivateKey(derRepresentation: der)) },
            { .rsaPrivate(try _RSA.Signing.PrivateKey(derRepresentation: der)) },
        ])
    }

    /// The key from the first parser that accepts the bytes; nil when none does. A parser's
    /// error only says "not this kind of key".
    private static func firstAccepted(_ parsers: [() throws -> AsymmetricKey]) -> AsymmetricKey? {
        for parse in parsers {
            do {
                return try parse()
            } catch {
                continue
            }
        }
        return nil
    }

    /// Whether this is the private half of a key pair.
    package var isPrivate: Bool {
        switch self {
        case .p256Private, .p384Private, .p521Private, .rsaPrivate: true
        case .p256Public, .p384Public, .p521Public, .rsaPublic: false
        }
    }

    /// Whether this is an EC (`kSecAttrKeyTypeECSECPrimeRandom`) key.
    package var isEllipticCurve: Bool {
        switch self {
        case .rsaPrivate, .rsaPublic: false
        default: true
        }
    }

    /// Key size in bits (`kSecAttrKeySizeInBits`).
    package var sizeInBits: Int {
        switch self {
        case .p256Private, .p256Public: 256
        case .p384Private, .p384Public: 384
        case .p521Private, .p521Public: 521
        case .rsaPrivate(let key): key.keySizeInBits
        case .rsaPublic(let key): key.keySizeInBits
        }
    }

    /// The public half (the key itself when it is public).
    package var publicKey: AsymmetricKey {
        switch self {
        case .p256Private(let key): .p256Public(key.publicKey)
        case .p384Private(let key): .p384Public(key.publicKey)
        case .p521Private(let key): .p521Public(key.publicKey)
        case .rsaPrivate(let key): .rsaPublic(key.publicKey)
        case .p256Public, .p384Public, .p521Public, .rsaPublic: self
        }
    }

    /// Apple's external representation of the public half: X9.63 `04 ‖ X ‖ Y` for EC,
    /// PKCS#1 `RSAPublicKey` DER for RSA.
    package var publicKeyData: Data {
        switch publicKey {
        case .p256Public(let key): key.x963Representation
        case .p384Public(let key): key.x963Representation
        case .p521Public(let key): key.x963Representation
        case .rsaPublic(let key): key.pkcs1DERRepresentation
        default: Data()  // unreachable: publicKey is always public
        }
    }

    /// Apple's external representation of the key (the item's data): the public form above,
    /// or for private keys X9.63 `04 ‖ X ‖ Y ‖ K` (EC) and PKCS#1 `RSAPrivateKey` DER (RSA). The
    /// result of a private key is secret.
    package var externalRepresentation: Data {
        switch self {
        case .p256Private(let key): key.x963Representation
        case .p384Private(let key): key.x963Representation
        case .p521Private(let key): key.x963Representation
        case .rsaPrivate(let key): key.derRepresentation
        case .p256Public, .p384Public, .p521Public, .rsaPublic: publicKeyData
        }
    }

    /// The public half as PEM SubjectPublicKeyInfo.
    package var publicKeyPEM: String {
        switch publicKey {
        case .p256Public(let key): key.pemRepresentation
        case .p384Public(let key): key.pemRepresentation
        case .p521Public(let key): key.pemRepresentation
        case .rsaPublic(let key): key.pemRepresentation
        default: ""  // unreachable: publicKey is always public
        }
    }

    /// `kSecAttrApplicationLabel`: the SHA-1 of the public key's external representation.
    package var applicationLabel: Data { Self.applicationLabel(publicKeyData: publicKeyData) }

    /// The attributes and data Apple stores a key item with (``itemAttributes(isPrivate:isEllipticCurve:sizeInBits:applicationLabel:externalRepresentation:)``).
    package var itemAttributes: [String: Any] {
        Self.itemAttributes(isPrivate: isPrivate, isEllipticCurve: isEllipticCurve, sizeInBits: sizeInBits,
                            applicationLabel: applicationLabel, externalRepresentation: externalRepresentation)
    }

    /// The attributes that find this key's item: its application label, class and type.
    package var identifyingAttributes: [String: Any] {
        [
            KeyItemAttributeName.itemClass: KeyItemAttributeName.keyClass,
            KeyItemAttributeName.keyClassAttribute: isPrivate ? KeyItemAttributeName.privateKeyClass : KeyItemAttributeName.publicKeyClass,
            KeyItemAttributeName.keyType: isEllipticCurve ? KeyItemAttributeName.ellipticCurveKeyType : KeyItemAttributeName.rsaKeyType,
            KeyItemAttributeName.applicationLabel: applicationLabel,
        ]
    }

    /// Kind, size and class only; never key bytes.
    package var description: String {
        "<AsymmetricKey algorithm: \(isEllipticCurve ? "EC" : "RSA"), size: \(sizeInBits), class: \(isPrivate ? "private" : "public")>"
    }

    /// `kSecAttrApplicationLabel` of a key whose public external representation is `publicKeyData`:
    /// its SHA-1, as Apple computes it for the keys it generates.
    package static func applicationLabel(publicKeyData: Data) -> Data {
        Data(Insecure.SHA1.hash(data: publicKeyData))
    }

    /// What Apple stores a key item with: class `keys`, key class (1 private, 0 public), type
    /// (73 EC, 42 RSA), size and effective size, application label, the usage flags
    /// (``usageAttributes(isPrivate:)``) and the external representation as data.
    package static func itemAttributes(isPrivate: Bool, isEllipticCurve: Bool, sizeInBits: Int, applicationLabel: Data,
                                       externalRepresentation: Data) -> [String: Any] {
        var attributes: [String: Any] = [
            KeyItemAttributeName.itemClass: KeyItemAttributeName.keyClass,
            KeyItemAttributeName.keyClassAttribute: isPrivate ? KeyItemAttributeName.privateKeyClass : KeyItemAttributeName.publicKeyClass,
            KeyItemAttributeName.keyType: isEllipticCurve ? KeyItemAttributeName.ellipticCurveKeyType : KeyItemAttributeName.rsaKeyType,
            KeyItemAttributeName.keySizeInBits: sizeInBits,
            KeyItemAttributeName.effectiveKeySize: sizeInBits,
            KeyItemAttributeName.applicationLabel: applicationLabel,
            KeyItemAttributeName.valueData: externalRepresentation,
        ]
        attributes.merge(usageAttributes(isPrivate: isPrivate)) { current, _ in current }
        return attributes
    }

    /// The `kSecAttrCan…` usage flags by attribute name, as Apple's SecKey gives every key it
    /// holds (its attribute dictionary, and the documented `SecKeyGeneratePair` defaults):
    /// `kSecAttrCanDerive` true for public and private, EC and RSA keys alike; the others by class.
    package static func usageAttributes(isPrivate: Bool) -> [String: Bool] {
        [
            KeyItemAttributeName.canSign: isPrivate,
            KeyItemAttributeName.canVerify: !isPrivate,
            KeyItemAttributeName.canDecrypt: isPrivate,
            KeyItemAttributeName.canEncrypt: !isPrivate,
            KeyItemAttributeName.canDerive: true,
            KeyItemAttributeName.canUnwrap: isPrivate,
            KeyItemAttributeName.canWrap: !isPrivate,
        ]
    }
}
