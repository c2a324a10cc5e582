// Apple's `SecIdentity`: a certificate together with the private key of its public key.

import Foundation

/// Apple: `SecIdentity`, a certificate and the matching private key.
public final class SecIdentity: Hashable, @unchecked Sendable, CustomStringConvertible {
    let certificate: SecCertificate
    let privateKey: SecKey

    /// Pairs `certificate` with `privateKey`; nil unless the key is private and its public half
    /// is the certificate's public key.
    init?(certificate: SecCertificate, privateKey: SecKey) {
        guard privateKey.isPrivate, let certificateKey = certificate.publicKey,
              certificateKey.publicKeyData == privateKey.publicKeyData else { return nil }
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Equal when certificate and key are equal.
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }

    /// Hashes the certificate.
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }

    /// The certificate's summary; never key bytes.
    public var description: String { "<SecIdentity \(certificate.subjectSummary ?? "?")>" }
}

/// Apple: `SecIdentityGetTypeID()`.
@discardableResult
public func SecIdentityGetTypeID() -> CFTypeID { cfTypeID(forClass: SecIdentity.self) }

/// Apple: `SecIdentityCreate(_:_:_:)`. An identity pairing `certificate` with `privateKey`, or
/// nil when `privateKey` is not a private key whose public half is the certificate's public key
/// (Apple pairs any two objects; a mismatched identity would only fail later, in a TLS handshake
/// or a signature check). `allocator` is ignored.
@discardableResult
public func SecIdentityCreate(_ allocator: CFAllocator?, _ certificate: SecCertificate, _ privateKey: SecKey) -> SecIdentity? {
    SecIdentity(certificate: certificate, privateKey: privateKey)
}

/// Apple: `SecIdentityCopyCertificate(_:_:)`. Stores the identity's certificate in `certificateRef`.
@discardableResult
public func SecIdentityCopyCertificate(_ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// Apple: `SecIdentityCopyPrivateKey(_:_:)`. Stores the identity's private key in `privateKeyRef`.
@discardableResult
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}
