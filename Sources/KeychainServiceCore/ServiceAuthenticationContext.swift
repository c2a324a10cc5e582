#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine

/// The authentication context the service hands the engine for one SecItem call: what the
/// service itself established for it, never what a client claims. The keychain password counts
/// only when the service verified it (``PasswordProof``) for this call; an application password
/// is whatever the client sent, and counts only if it opens the sealed secret (a cryptographic
/// check the engine makes). The service never prompts, so nothing here asks for anything.
final class ServiceAuthenticationContext: AuthenticationContextConvertible {
    /// Whether the service verified the caller's keychain password for this call.
    private let ownerVerified: Bool
    let applicationPasswordCredential: Data?
    let isInvalidated: Bool

    init(ownerVerified: Bool, applicationPassword: Data?, invalidated: Bool) {
        self.ownerVerified = ownerVerified
        self.applicationPasswordCredential = applicationPassword
        self.isInvalidated = invalidated
    }

    /// The service has no prompt of its own: the engine reports what it would have asked for.
    var forbidsInteraction: Bool { true }
    var authenticationReason: String { "" }
    /// The engine of a served call opens the caller's own keychain, the one the password was verified for.
    func hasAuthenticatedOwner(ofKeychain keychainID: Data) -> Bool { ownerVerified }
    /// Nothing outlives the call: a later call proves the password again.
    func recordOwnerAuthentication(ofKeychain keychainID: Data) {}
    /// The service verifies no fingerprints.
    var biometricAuthenticationDomainState: Data? { nil }
    func recordBiometricAuthentication(domainState: Data) {}
}
