#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// A value that stands for an access-control object in a query dictionary (KeychainServices'
/// `SecAccessControl` on Linux conforms). The engine reads the policy through this protocol so
/// it does not depend on the module that declares Apple's names.
package protocol AccessControlConvertible {
    /// The protection class and flags.
    var accessControlPolicy: AccessControlPolicy { get }
}

extension AccessControlPolicy: AccessControlConvertible {
    /// The policy itself.
    package var accessControlPolicy: AccessControlPolicy { self }
}

/// A value that stands for an authentication context (`LAContext`) under
/// `kSecUseAuthenticationContext`. It carries an application password, the prompt text, whether
/// prompts are allowed, and which keychains' owners it has already authenticated, so that one
/// evaluated context is reused without a new prompt.
package protocol AuthenticationContextConvertible: AnyObject, Sendable {
    /// An application password set with `setCredential(_:type: .applicationPassword)`, if any.
    var applicationPasswordCredential: Data? { get }
    /// Whether the context forbids user interaction (`interactionNotAllowed`).
    var forbidsInteraction: Bool { get }
    /// The text shown in prompts (`localizedReason`).
    var authenticationReason: String { get }
    /// Whether the context was invalidated (it can no longer authenticate anything).
    var isInvalidated: Bool { get }
    /// Whether the owner of the keychain with this identity was authenticated with this context.
    func hasAuthenticatedOwner(ofKeychain keychainID: Data) -> Bool
    /// Records a successful owner authentication, for reuse by later calls with this context.
    func recordOwnerAuthentication(ofKeychain keychainID: Data)
    /// The biometric domain state (digest of the enrolled fingers) at this context's last
    /// successful fingerprint verification; nil when it has none.
    var biometricAuthenticationDomainState: Data? { get }
    /// Records a successful fingerprint verification made against `domainState`, for reuse by
    /// later calls with this context.
    func recordBiometricAuthentication(domainState: Data)
}
