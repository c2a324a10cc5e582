import KeychainServices

/// Keychain references told apart by their Core Foundation type.
///
/// On Apple platforms `object as? SecCertificate` succeeds for any CF object (the Swift runtime
/// does not check CF types), so a `SecKey` would pass as a certificate; `CFGetTypeID` is the
/// test that holds on every platform.
enum KeychainReference {
    /// `object` when it is a `SecCertificate`.
    static func certificate(_ object: Any) -> SecCertificate? {
        CFGetTypeID(object as CFTypeRef) == SecCertificateGetTypeID() ? (object as! SecCertificate) : nil
    }

    /// `object` when it is a `SecKey`.
    static func key(_ object: Any) -> SecKey? {
        CFGetTypeID(object as CFTypeRef) == SecKeyGetTypeID() ? (object as! SecKey) : nil
    }

    /// `object` when it is a `SecIdentity`.
    static func identity(_ object: Any) -> SecIdentity? {
        CFGetTypeID(object as CFTypeRef) == SecIdentityGetTypeID() ? (object as! SecIdentity) : nil
    }
}
