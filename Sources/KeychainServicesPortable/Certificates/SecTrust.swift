// `SecTrust` is the result of evaluating a certificate chain. KeychainServices does not evaluate
// trust (nothing here makes a SecTrust: `SecPKCS12Import` leaves `kSecImportItemTrust` out of its
// items), but code that handles Apple's results names the type (`item[kSecImportItemTrust] as!
// SecTrust?`), so it is declared for that code to compile and read nil.

import Foundation

/// Apple: `SecTrust`, a certificate trust evaluation. No instances exist on Linux: nothing in
/// KeychainServices evaluates trust, so every `SecTrust?` it could hand out is nil.
public final class SecTrust: Hashable, Sendable {
    private init() {}

    /// Apple's CF objects compare by identity unless their type says more.
    public static func == (lhs: SecTrust, rhs: SecTrust) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Apple: `SecTrustGetTypeID()`.
@discardableResult
public func SecTrustGetTypeID() -> CFTypeID { cfTypeID(forClass: SecTrust.self) }
