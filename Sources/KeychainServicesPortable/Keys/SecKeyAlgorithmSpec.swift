// What a `SecKeyAlgorithm` name asks for, parsed once from Apple's identifier string
// ("algid:sign:ECDSA:message-X962:SHA256" → ECDSA over a SHA-256 message). Names this
// implementation cannot perform parse to nil, and the callers report Apple's "not supported".

import Crypto
import Foundation

/// A hash function named in an algorithm identifier.
enum KeyHash: Sendable {
    case sha1, sha256, sha384, sha512

    init?(name: Substring) {
        switch name {
        case "SHA1": self = .sha1
        case "SHA256": self = .sha256
        case "SHA384": self = .sha384
        case "SHA512": self = .sha512
        default: return nil  // SHA224 and MD5: swift-crypto has no SHA-224, MD5 is not offered
        }
    }

    /// Digest length in bytes.
    var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The digest of `data`.
    func hash(_ data: Data) -> [UInt8] {
        switch self {
        case .sha1: Array(Insecure.SHA1.hash(data: data))
        case .sha256: Array(SHA256.hash(data: data))
        case .sha384: Array(SHA384.hash(data: data))
        case .sha512: Array(SHA512.hash(data: data))
        }
    }

    /// The ANSI X9.63 KDF over this hash: `outputByteCount` bytes from `secret` and `sharedInfo`.
    func x963Derive(_ secret: SharedSecret, sharedInfo: Data, outputByteCount: Int) -> Data {
        let key = switch self {
        case .sha1: secret.x963DerivedSymmetricKey(using: Insecure.SHA1.self, sharedInfo: sharedInfo, outputByteCount: outputByteCount)
        case .sha256: secret.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: sharedInfo, outputByteCount: outputByteCount)
        case .sha384: secret.x963DerivedSymmetricKey(using: SHA384.self, sharedInfo: sharedInfo, outputByteCount: outputByteCount)
        case .sha512: secret.x963DerivedSymmetricKey(using: SHA512.self, sharedInfo: sharedInfo, outputByteCount: outputByteCount)
        }
        return key.withUnsafeBytes { Data($0) }
    }
}

/// The operation an algorithm identifier names, for the algorithms this implementation performs.
enum KeyAlgorithmSpec: Sendable {
    /// ECDSA: a DER (X9.62) signature, or with `rawRS` the fixed-size r‖s of RFC 4754. `hash`
    /// nil with `isDigest` means a digest of any length.
    case ecdsa(hash: KeyHash?, isDigest: Bool, rawRS: Bool)
    /// RSA PKCS#1 v1.5 signature of a message.
    case rsaPKCS1v15Message(KeyHash)
    /// RSA-PSS signature of a message (MGF1 with the same hash, salt as long as the digest).
    case rsaPSSMessage(KeyHash)
    /// RSA-OAEP encryption (MGF1 with the same hash, empty label).
    case rsaOAEP(KeyHash)
    /// ECIES as Apple defines it: ephemeral ECDH, X9.63 KDF with the ephemeral public key as
    /// shared info, AES-GCM with a zero IV or (variable IV) one taken from the KDF output.
    case ecies(KeyHash, variableIV: Bool)
    /// ECDH; with a hash, the shared secret goes through the X9.63 KDF.
    case ecdh(KeyHash?)

    /// Parses Apple's identifier; nil for identifiers this implementation does not perform.
    init?(_ algorithm: SecKeyAlgorithm) {
        let parts = (algorithm.rawValue as String).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "algid" else { return nil }
        switch (parts[1], parts[2]) {
        case ("sign", "ECDSA"):
            guard parts.count >= 4 else { return nil }
            switch (parts[3], parts.count) {
            case ("digest-X962", 4): self = .ecdsa(hash: nil, isDigest: true, rawRS: false)
            // Apple's deprecated ecdsaSignatureRFC4754 signs a caller-computed digest, as digest-RFC4754.
            case ("digest-RFC4754", 4), ("RFC4754", 4): self = .ecdsa(hash: nil, isDigest: true, rawRS: true)
            case ("digest-X962", 5), ("message-X962", 5), ("digest-RFC4754", 5), ("message-RFC4754", 5):
                guard let hash = KeyHash(name: parts[4]) else { return nil }
                self = .ecdsa(hash: hash, isDigest: parts[3].hasPrefix("digest-"), rawRS: parts[3].hasSuffix("RFC4754"))
            default: return nil
            }
        case ("sign", "RSA"):
            // RSA digest variants are not offered: swift-crypto signs only digests it computed.
            guard parts.count >= 5, let hash = KeyHash(name: parts[4]) else { return nil }
            switch parts[3] {
            case "message-PKCS1v15" where parts.count == 5: self = .rsaPKCS1v15Message(hash)
            case "message-PSS" where parts.count == 7 && parts[5] == parts[4] && Int(parts[6]) == hash.byteCount:
                self = .rsaPSSMessage(hash)
            default: return nil
            }
        case ("encrypt", "RSA"):
            // swift-crypto's RSA-OAEP offers SHA-1 and SHA-256 only.
            guard parts.count == 5, parts[3] == "OAEP", let hash = KeyHash(name: parts[4]),
                  hash == .sha1 || hash == .sha256 else { return nil }
            self = .rsaOAEP(hash)
        case ("encrypt", "ECIES"):
            // For the NIST prime curves the cofactor is 1, so ECDH and cofactor ECDH agree.
            guard parts.count == 7, parts[3] == "ECDH" || parts[3] == "ECDHC", parts[4] == "KDFX963",
                  let hash = KeyHash(name: parts[5]) else { return nil }
            switch parts[6] {
            case "AESGCM": self = .ecies(hash, variableIV: false)
            case "AESGCM-KDFIV": self = .ecies(hash, variableIV: true)
            default: return nil
            }
        case ("keyexchange", "ECDH"), ("keyexchange", "ECDHC"):
            if parts.count == 3 {
                self = .ecdh(nil)
            } else if parts.count == 5, parts[3] == "KDFX963", let hash = KeyHash(name: parts[4]) {
                self = .ecdh(hash)
            } else {
                return nil
            }
        default:
            return nil
        }
    }

    /// Whether a key of this type (`isEllipticCurve`) and class (`isPrivate`) can perform
    /// `operation` with this algorithm. Signing, decrypting and key exchange need the private
    /// key; verifying and encrypting use the public half, which a private key also carries.
    func supports(_ operation: SecKeyOperationType, isEllipticCurve: Bool, isPrivate: Bool) -> Bool {
        let (privateOperation, publicOperation, forEllipticCurve): (SecKeyOperationType, SecKeyOperationType?, Bool) =
            switch self {
            case .ecdsa: (.sign, .verify, true)
            case .rsaPKCS1v15Message, .rsaPSSMessage: (.sign, .verify, false)
            case .rsaOAEP: (.decrypt, .encrypt, false)
            case .ecies: (.decrypt, .encrypt, true)
            case .ecdh: (.keyExchange, nil, true)
            }
        guard isEllipticCurve == forEllipticCurve else { return false }
        // Apple's private keys sign, decrypt and agree; only public keys verify and encrypt.
        return isPrivate ? operation == privateOperation : operation == publicOperation
    }
}
