// Apple's `SecKeyAlgorithm` names with their exact string values (Apple's SecKeyAdaptors.c).
// Which of them this implementation performs is decided in SecKeyAlgorithmSpec.swift; the
// others exist so that code naming them compiles, and report "not supported" as Apple does for
// an algorithm a key cannot perform.

import Foundation

/// Apple: `SecKeyAlgorithm`, the name of a cryptographic operation a `SecKey` may perform.
///
/// As on Apple platforms it wraps a `CFString`; the static members are Apple's
/// `kSecKeyAlgorithm…` constants under their Swift names.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, @unchecked Sendable {
    /// The algorithm's identifier string (for example `"algid:sign:ECDSA:message-X962:SHA256"`).
    public let rawValue: CFString

    /// Wraps an identifier string.
    public init(rawValue: CFString) { self.rawValue = rawValue }

    /// Equal when the identifier strings are equal.
    public static func == (lhs: SecKeyAlgorithm, rhs: SecKeyAlgorithm) -> Bool {
        (lhs.rawValue as String) == (rhs.rawValue as String)
    }

    /// Hashes the identifier string.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }
}

extension SecKeyAlgorithm {
    /// Apple: `rsaSignatureRaw` (`"algid:sign:RSA:raw"`). Raw RSA signature (not supported here).
    public static let rsaSignatureRaw = SecKeyAlgorithm(rawValue: "algid:sign:RSA:raw" as CFString)
    /// Apple: `rsaSignatureDigestPKCS1v15Raw` (`"algid:sign:RSA:digest-PKCS1v15"`). PKCS#1 v1.5 padding of caller-encoded data (not supported here).
    public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15" as CFString)
    /// Apple: `rsaSignatureDigestPKCS1v15SHA1` (`"algid:sign:RSA:digest-PKCS1v15:SHA1"`). RSA PKCS#1 v1.5 signature of a SHA1 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA1" as CFString)
    /// Apple: `rsaSignatureDigestPKCS1v15SHA224` (`"algid:sign:RSA:digest-PKCS1v15:SHA224"`). RSA PKCS#1 v1.5 signature of a SHA224 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA224" as CFString)
    /// Apple: `rsaSignatureDigestPKCS1v15SHA256` (`"algid:sign:RSA:digest-PKCS1v15:SHA256"`). RSA PKCS#1 v1.5 signature of a SHA256 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA256" as CFString)
    /// Apple: `rsaSignatureDigestPKCS1v15SHA384` (`"algid:sign:RSA:digest-PKCS1v15:SHA384"`). RSA PKCS#1 v1.5 signature of a SHA384 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA384" as CFString)
    /// Apple: `rsaSignatureDigestPKCS1v15SHA512` (`"algid:sign:RSA:digest-PKCS1v15:SHA512"`). RSA PKCS#1 v1.5 signature of a SHA512 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA512" as CFString)
    /// Apple: `rsaSignatureMessagePKCS1v15SHA1` (`"algid:sign:RSA:message-PKCS1v15:SHA1"`). RSA PKCS#1 v1.5 signature of a message hashed with SHA1.
    public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA1" as CFString)
    /// Apple: `rsaSignatureMessagePKCS1v15SHA224` (`"algid:sign:RSA:message-PKCS1v15:SHA224"`). RSA PKCS#1 v1.5 signature of a message hashed with SHA224.
    public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA224" as CFString)
    /// Apple: `rsaSignatureMessagePKCS1v15SHA256` (`"algid:sign:RSA:message-PKCS1v15:SHA256"`). RSA PKCS#1 v1.5 signature of a message hashed with SHA256.
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256" as CFString)
    /// Apple: `rsaSignatureMessagePKCS1v15SHA384` (`"algid:sign:RSA:message-PKCS1v15:SHA384"`). RSA PKCS#1 v1.5 signature of a message hashed with SHA384.
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA384" as CFString)
    /// Apple: `rsaSignatureMessagePKCS1v15SHA512` (`"algid:sign:RSA:message-PKCS1v15:SHA512"`). RSA PKCS#1 v1.5 signature of a message hashed with SHA512.
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA512" as CFString)
    /// Apple: `rsaSignatureDigestPSSSHA1` (`"algid:sign:RSA:digest-PSS:SHA1:SHA1:20"`). RSA-PSS signature of a SHA1 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA1:SHA1:20" as CFString)
    /// Apple: `rsaSignatureDigestPSSSHA224` (`"algid:sign:RSA:digest-PSS:SHA224:SHA224:24"`). RSA-PSS signature of a SHA224 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA224:SHA224:24" as CFString)
    /// Apple: `rsaSignatureDigestPSSSHA256` (`"algid:sign:RSA:digest-PSS:SHA256:SHA256:32"`). RSA-PSS signature of a SHA256 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA256:SHA256:32" as CFString)
    /// Apple: `rsaSignatureDigestPSSSHA384` (`"algid:sign:RSA:digest-PSS:SHA384:SHA384:48"`). RSA-PSS signature of a SHA384 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA384:SHA384:48" as CFString)
    /// Apple: `rsaSignatureDigestPSSSHA512` (`"algid:sign:RSA:digest-PSS:SHA512:SHA512:64"`). RSA-PSS signature of a SHA512 digest (not supported here: see docs/APPLE-API.md, "SecKey").
    public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA512:SHA512:64" as CFString)
    /// Apple: `rsaSignatureMessagePSSSHA1` (`"algid:sign:RSA:message-PSS:SHA1:SHA1:20"`). RSA-PSS signature (MGF1 with SHA1, salt as long as the digest) of a message hashed with SHA1.
    public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA1:SHA1:20" as CFString)
    /// Apple: `rsaSignatureMessagePSSSHA224` (`"algid:sign:RSA:message-PSS:SHA224:SHA224:24"`). RSA-PSS signature (MGF1 with SHA224, salt as long as the digest) of a message hashed with SHA224.
    public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA224:SHA224:24" as CFString)
    /// Apple: `rsaSignatureMessagePSSSHA256` (`"algid:sign:RSA:message-PSS:SHA256:SHA256:32"`). RSA-PSS signature (MGF1 with SHA256, salt as long as the digest) of a message hashed with SHA256.
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA256:SHA256:32" as CFString)
    /// Apple: `rsaSignatureMessagePSSSHA384` (`"algid:sign:RSA:message-PSS:SHA384:SHA384:48"`). RSA-PSS signature (MGF1 with SHA384, salt as long as the digest) of a message hashed with SHA384.
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA384:SHA384:48" as CFString)
    /// Apple: `rsaSignatureMessagePSSSHA512` (`"algid:sign:RSA:message-PSS:SHA512:SHA512:64"`). RSA-PSS signature (MGF1 with SHA512, salt as long as the digest) of a message hashed with SHA512.
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA512:SHA512:64" as CFString)
    /// Apple: `ecdsaSignatureRFC4754` (`"algid:sign:ECDSA:RFC4754"`, deprecated by Apple for
    /// `ecdsaSignatureDigestRFC4754`). ECDSA signature as raw r‖s of a caller-computed digest.
    @available(*, deprecated, message: "use ecdsaSignatureDigestRFC4754")
    public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:RFC4754" as CFString)
    /// Apple: `ecdsaSignatureDigestRFC4754` (`"algid:sign:ECDSA:digest-RFC4754"`). ECDSA signature as raw r‖s (RFC 4754) of a caller-computed digest of any length.
    public static let ecdsaSignatureDigestRFC4754 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754" as CFString)
    /// Apple: `ecdsaSignatureDigestRFC4754SHA1` (`"algid:sign:ECDSA:digest-RFC4754:SHA1"`). ECDSA signature as raw r‖s (RFC 4754) of a SHA1 digest.
    public static let ecdsaSignatureDigestRFC4754SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA1" as CFString)
    /// Apple: `ecdsaSignatureDigestRFC4754SHA224` (`"algid:sign:ECDSA:digest-RFC4754:SHA224"`). ECDSA signature as raw r‖s (RFC 4754) of a SHA224 digest (not supported here: swift-crypto has no SHA-224).
    public static let ecdsaSignatureDigestRFC4754SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA224" as CFString)
    /// Apple: `ecdsaSignatureDigestRFC4754SHA256` (`"algid:sign:ECDSA:digest-RFC4754:SHA256"`). ECDSA signature as raw r‖s (RFC 4754) of a SHA256 digest.
    public static let ecdsaSignatureDigestRFC4754SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA256" as CFString)
    /// Apple: `ecdsaSignatureDigestRFC4754SHA384` (`"algid:sign:ECDSA:digest-RFC4754:SHA384"`). ECDSA signature as raw r‖s (RFC 4754) of a SHA384 digest.
    public static let ecdsaSignatureDigestRFC4754SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA384" as CFString)
    /// Apple: `ecdsaSignatureDigestRFC4754SHA512` (`"algid:sign:ECDSA:digest-RFC4754:SHA512"`). ECDSA signature as raw r‖s (RFC 4754) of a SHA512 digest.
    public static let ecdsaSignatureDigestRFC4754SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA512" as CFString)
    /// Apple: `ecdsaSignatureMessageRFC4754SHA1` (`"algid:sign:ECDSA:message-RFC4754:SHA1"`). ECDSA signature as raw r‖s (RFC 4754) of a message hashed with SHA1.
    public static let ecdsaSignatureMessageRFC4754SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA1" as CFString)
    /// Apple: `ecdsaSignatureMessageRFC4754SHA224` (`"algid:sign:ECDSA:message-RFC4754:SHA224"`). ECDSA signature as raw r‖s (RFC 4754) of a message hashed with SHA224 (not supported here: swift-crypto has no SHA-224).
    public static let ecdsaSignatureMessageRFC4754SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA224" as CFString)
    /// Apple: `ecdsaSignatureMessageRFC4754SHA256` (`"algid:sign:ECDSA:message-RFC4754:SHA256"`). ECDSA signature as raw r‖s (RFC 4754) of a message hashed with SHA256.
    public static let ecdsaSignatureMessageRFC4754SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA256" as CFString)
    /// Apple: `ecdsaSignatureMessageRFC4754SHA384` (`"algid:sign:ECDSA:message-RFC4754:SHA384"`). ECDSA signature as raw r‖s (RFC 4754) of a message hashed with SHA384.
    public static let ecdsaSignatureMessageRFC4754SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA384" as CFString)
    /// Apple: `ecdsaSignatureMessageRFC4754SHA512` (`"algid:sign:ECDSA:message-RFC4754:SHA512"`). ECDSA signature as raw r‖s (RFC 4754) of a message hashed with SHA512.
    public static let ecdsaSignatureMessageRFC4754SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA512" as CFString)
    /// Apple: `ecdsaSignatureDigestX962` (`"algid:sign:ECDSA:digest-X962"`). ECDSA DER signature of a caller-provided digest of any length.
    public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962" as CFString)
    /// Apple: `ecdsaSignatureDigestX962SHA1` (`"algid:sign:ECDSA:digest-X962:SHA1"`). ECDSA DER (X9.62) signature of a SHA1 digest.
    public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA1" as CFString)
    /// Apple: `ecdsaSignatureDigestX962SHA224` (`"algid:sign:ECDSA:digest-X962:SHA224"`). ECDSA DER (X9.62) signature of a SHA224 digest.
    public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA224" as CFString)
    /// Apple: `ecdsaSignatureDigestX962SHA256` (`"algid:sign:ECDSA:digest-X962:SHA256"`). ECDSA DER (X9.62) signature of a SHA256 digest.
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA256" as CFString)
    /// Apple: `ecdsaSignatureDigestX962SHA384` (`"algid:sign:ECDSA:digest-X962:SHA384"`). ECDSA DER (X9.62) signature of a SHA384 digest.
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA384" as CFString)
    /// Apple: `ecdsaSignatureDigestX962SHA512` (`"algid:sign:ECDSA:digest-X962:SHA512"`). ECDSA DER (X9.62) signature of a SHA512 digest.
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA512" as CFString)
    /// Apple: `ecdsaSignatureMessageX962SHA1` (`"algid:sign:ECDSA:message-X962:SHA1"`). ECDSA DER (X9.62) signature of a message hashed with SHA1.
    public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA1" as CFString)
    /// Apple: `ecdsaSignatureMessageX962SHA224` (`"algid:sign:ECDSA:message-X962:SHA224"`). ECDSA DER (X9.62) signature of a message hashed with SHA224.
    public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA224" as CFString)
    /// Apple: `ecdsaSignatureMessageX962SHA256` (`"algid:sign:ECDSA:message-X962:SHA256"`). ECDSA DER (X9.62) signature of a message hashed with SHA256.
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA256" as CFString)
    /// Apple: `ecdsaSignatureMessageX962SHA384` (`"algid:sign:ECDSA:message-X962:SHA384"`). ECDSA DER (X9.62) signature of a message hashed with SHA384.
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA384" as CFString)
    /// Apple: `ecdsaSignatureMessageX962SHA512` (`"algid:sign:ECDSA:message-X962:SHA512"`). ECDSA DER (X9.62) signature of a message hashed with SHA512.
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA512" as CFString)
    /// Apple: `rsaEncryptionRaw` (`"algid:encrypt:RSA:raw"`). Raw RSA encryption (not supported here).
    public static let rsaEncryptionRaw = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:raw" as CFString)
    /// Apple: `rsaEncryptionPKCS1` (`"algid:encrypt:RSA:PKCS1"`). RSA PKCS#1 v1.5 encryption (not supported here).
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:PKCS1" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA1` (`"algid:encrypt:RSA:OAEP:SHA1"`). RSA-OAEP encryption with SHA1 (supported).
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA1" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA224` (`"algid:encrypt:RSA:OAEP:SHA224"`). RSA-OAEP encryption with SHA224 (not supported here).
    public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA224" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA256` (`"algid:encrypt:RSA:OAEP:SHA256"`). RSA-OAEP encryption with SHA256 (supported).
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA256" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA384` (`"algid:encrypt:RSA:OAEP:SHA384"`). RSA-OAEP encryption with SHA384 (not supported here).
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA384" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA512` (`"algid:encrypt:RSA:OAEP:SHA512"`). RSA-OAEP encryption with SHA512 (not supported here).
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA512" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA1AESGCM` (`"algid:encrypt:RSA:OAEP:SHA1:AESGCM"`). RSA-OAEP wrapped AES-GCM hybrid encryption (not supported here).
    public static let rsaEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA1:AESGCM" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA224AESGCM` (`"algid:encrypt:RSA:OAEP:SHA224:AESGCM"`). RSA-OAEP wrapped AES-GCM hybrid encryption (not supported here).
    public static let rsaEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA224:AESGCM" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA256AESGCM` (`"algid:encrypt:RSA:OAEP:SHA256:AESGCM"`). RSA-OAEP wrapped AES-GCM hybrid encryption (not supported here).
    public static let rsaEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA256:AESGCM" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA384AESGCM` (`"algid:encrypt:RSA:OAEP:SHA384:AESGCM"`). RSA-OAEP wrapped AES-GCM hybrid encryption (not supported here).
    public static let rsaEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA384:AESGCM" as CFString)
    /// Apple: `rsaEncryptionOAEPSHA512AESGCM` (`"algid:encrypt:RSA:OAEP:SHA512:AESGCM"`). RSA-OAEP wrapped AES-GCM hybrid encryption (not supported here).
    public static let rsaEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA512:AESGCM" as CFString)
    /// Apple: `eciesEncryptionStandardX963SHA1AESGCM` (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM"`). ECIES with ECDH, X9.63 KDF over SHA1, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM" as CFString)
    /// Apple: `eciesEncryptionStandardX963SHA224AESGCM` (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM"`). ECIES with ECDH, X9.63 KDF over SHA224, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM" as CFString)
    /// Apple: `eciesEncryptionStandardX963SHA256AESGCM` (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM"`). ECIES with ECDH, X9.63 KDF over SHA256, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM" as CFString)
    /// Apple: `eciesEncryptionStandardX963SHA384AESGCM` (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM"`). ECIES with ECDH, X9.63 KDF over SHA384, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM" as CFString)
    /// Apple: `eciesEncryptionStandardX963SHA512AESGCM` (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM"`). ECIES with ECDH, X9.63 KDF over SHA512, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM" as CFString)
    /// Apple: `eciesEncryptionStandardVariableIVX963SHA224AESGCM` (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV"`). ECIES with ECDH, X9.63 KDF over SHA224 giving the AES-GCM key and a 16-byte IV.
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV" as CFString)
    /// Apple: `eciesEncryptionStandardVariableIVX963SHA256AESGCM` (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV"`). ECIES with ECDH, X9.63 KDF over SHA256 giving the AES-GCM key and a 16-byte IV.
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV" as CFString)
    /// Apple: `eciesEncryptionStandardVariableIVX963SHA384AESGCM` (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV"`). ECIES with ECDH, X9.63 KDF over SHA384 giving the AES-GCM key and a 16-byte IV.
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV" as CFString)
    /// Apple: `eciesEncryptionStandardVariableIVX963SHA512AESGCM` (`"algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV"`). ECIES with ECDH, X9.63 KDF over SHA512 giving the AES-GCM key and a 16-byte IV.
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV" as CFString)
    /// Apple: `eciesEncryptionCofactorX963SHA1AESGCM` (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM"`). ECIES with ECDHC, X9.63 KDF over SHA1, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM" as CFString)
    /// Apple: `eciesEncryptionCofactorX963SHA224AESGCM` (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM"`). ECIES with ECDHC, X9.63 KDF over SHA224, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM" as CFString)
    /// Apple: `eciesEncryptionCofactorX963SHA256AESGCM` (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM"`). ECIES with ECDHC, X9.63 KDF over SHA256, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM" as CFString)
    /// Apple: `eciesEncryptionCofactorX963SHA384AESGCM` (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM"`). ECIES with ECDHC, X9.63 KDF over SHA384, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM" as CFString)
    /// Apple: `eciesEncryptionCofactorX963SHA512AESGCM` (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM"`). ECIES with ECDHC, X9.63 KDF over SHA512, AES-GCM with an all-zero 16-byte IV.
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM" as CFString)
    /// Apple: `eciesEncryptionCofactorVariableIVX963SHA224AESGCM` (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV"`). ECIES with ECDHC, X9.63 KDF over SHA224 giving the AES-GCM key and a 16-byte IV.
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV" as CFString)
    /// Apple: `eciesEncryptionCofactorVariableIVX963SHA256AESGCM` (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV"`). ECIES with ECDHC, X9.63 KDF over SHA256 giving the AES-GCM key and a 16-byte IV.
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV" as CFString)
    /// Apple: `eciesEncryptionCofactorVariableIVX963SHA384AESGCM` (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV"`). ECIES with ECDHC, X9.63 KDF over SHA384 giving the AES-GCM key and a 16-byte IV.
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV" as CFString)
    /// Apple: `eciesEncryptionCofactorVariableIVX963SHA512AESGCM` (`"algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV"`). ECIES with ECDHC, X9.63 KDF over SHA512 giving the AES-GCM key and a 16-byte IV.
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV" as CFString)
    /// Apple: `ecdhKeyExchangeStandard` (`"algid:keyexchange:ECDH"`). Raw ECDH shared secret (the x-coordinate).
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH" as CFString)
    /// Apple: `ecdhKeyExchangeStandardX963SHA1` (`"algid:keyexchange:ECDH:KDFX963:SHA1"`). ECDH shared secret run through the X9.63 KDF with SHA1.
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA1" as CFString)
    /// Apple: `ecdhKeyExchangeStandardX963SHA224` (`"algid:keyexchange:ECDH:KDFX963:SHA224"`). ECDH shared secret run through the X9.63 KDF with SHA224.
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA224" as CFString)
    /// Apple: `ecdhKeyExchangeStandardX963SHA256` (`"algid:keyexchange:ECDH:KDFX963:SHA256"`). ECDH shared secret run through the X9.63 KDF with SHA256.
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA256" as CFString)
    /// Apple: `ecdhKeyExchangeStandardX963SHA384` (`"algid:keyexchange:ECDH:KDFX963:SHA384"`). ECDH shared secret run through the X9.63 KDF with SHA384.
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA384" as CFString)
    /// Apple: `ecdhKeyExchangeStandardX963SHA512` (`"algid:keyexchange:ECDH:KDFX963:SHA512"`). ECDH shared secret run through the X9.63 KDF with SHA512.
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA512" as CFString)
    /// Apple: `ecdhKeyExchangeCofactor` (`"algid:keyexchange:ECDHC"`). Raw ECDHC shared secret (the x-coordinate).
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC" as CFString)
    /// Apple: `ecdhKeyExchangeCofactorX963SHA1` (`"algid:keyexchange:ECDHC:KDFX963:SHA1"`). ECDHC shared secret run through the X9.63 KDF with SHA1.
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA1" as CFString)
    /// Apple: `ecdhKeyExchangeCofactorX963SHA224` (`"algid:keyexchange:ECDHC:KDFX963:SHA224"`). ECDHC shared secret run through the X9.63 KDF with SHA224.
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA224" as CFString)
    /// Apple: `ecdhKeyExchangeCofactorX963SHA256` (`"algid:keyexchange:ECDHC:KDFX963:SHA256"`). ECDHC shared secret run through the X9.63 KDF with SHA256.
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA256" as CFString)
    /// Apple: `ecdhKeyExchangeCofactorX963SHA384` (`"algid:keyexchange:ECDHC:KDFX963:SHA384"`). ECDHC shared secret run through the X9.63 KDF with SHA384.
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA384" as CFString)
    /// Apple: `ecdhKeyExchangeCofactorX963SHA512` (`"algid:keyexchange:ECDHC:KDFX963:SHA512"`). ECDHC shared secret run through the X9.63 KDF with SHA512.
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA512" as CFString)
}

/// Apple: `SecKeyOperationType`, the operation asked about in `SecKeyIsAlgorithmSupported`.
public enum SecKeyOperationType: Int, Sendable {
    /// Apple: `.sign` (0): `SecKeyCreateSignature`.
    case sign = 0
    /// Apple: `.verify` (1): `SecKeyVerifySignature`.
    case verify = 1
    /// Apple: `.encrypt` (2): `SecKeyCreateEncryptedData`.
    case encrypt = 2
    /// Apple: `.decrypt` (3): `SecKeyCreateDecryptedData`.
    case decrypt = 3
    /// Apple: `.keyExchange` (4): `SecKeyCopyKeyExchangeResult`.
    case keyExchange = 4
}

/// Apple: `SecKeyKeyExchangeParameter`, the keys of `SecKeyCopyKeyExchangeResult`'s parameters
/// dictionary (Swift's name for the C `kSecKeyKeyExchangeParameter…` constants): write
/// `[SecKeyKeyExchangeParameter.requestedSize.rawValue: 32]`.
public struct SecKeyKeyExchangeParameter: RawRepresentable, Hashable, @unchecked Sendable {
    /// The dictionary key.
    public let rawValue: CFString

    /// Wraps a dictionary key.
    public init(rawValue: CFString) { self.rawValue = rawValue }

    /// Equal when the key strings are equal.
    public static func == (lhs: SecKeyKeyExchangeParameter, rhs: SecKeyKeyExchangeParameter) -> Bool {
        (lhs.rawValue as String) == (rhs.rawValue as String)
    }

    /// Hashes the key string.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }
}

extension SecKeyKeyExchangeParameter {
    /// Apple: `requestedSize` (`"requestedSize"`), the number of bytes a KDF-based
    /// `SecKeyCopyKeyExchangeResult` should return (CFNumber, required for those algorithms).
    public static let requestedSize = SecKeyKeyExchangeParameter(rawValue: "requestedSize" as CFString)
    /// Apple: `sharedInfo` (`"sharedInfo"`), the shared info fed to the X9.63 KDF (CFData, optional).
    public static let sharedInfo = SecKeyKeyExchangeParameter(rawValue: "sharedInfo" as CFString)
}

/// Apple: the C name, which Swift renames (it does not compile on Apple platforms either).
@available(*, unavailable, renamed: "SecKeyKeyExchangeParameter.requestedSize")
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterRequestedSize: CFString = "requestedSize"
/// Apple: the C name, which Swift renames (it does not compile on Apple platforms either).
@available(*, unavailable, renamed: "SecKeyKeyExchangeParameter.sharedInfo")
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterSharedInfo: CFString = "sharedInfo"
/// Apple: `kSecPrivateKeyAttrs`, the attributes of the private key in `SecKeyCreateRandomKey` parameters.
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"
/// Apple: `kSecPublicKeyAttrs`, the attributes of the public key in `SecKeyCreateRandomKey` parameters.
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = "public"
