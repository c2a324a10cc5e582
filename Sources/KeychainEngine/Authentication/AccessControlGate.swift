#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainStore
import KeychainVocabulary

/// Enforces an item's access control when its secret is read, and applies the application
/// password when a protected secret is written. One gate serves one SecItem call, so a call that
/// reads several items asks for the password once.
///
/// Flags and what satisfies them here:
/// - `devicePasscode`, `userPresence`: the keychain password, typed into a pinentry prompt, or a
///   context that already authenticated this keychain's owner;
/// - `userPresence` also accepts a fingerprint (fprintd) first, falling back to the password;
/// - `biometryAny`: a fingerprint verified by fprintd, or a context that verified one;
/// - `biometryCurrentSet`: the same, while the enrolled fingers are those the item was stored
///   with (otherwise the item is invalidated: reads fail without asking for a finger);
/// - `companion`: nothing (no paired device), so it fails as "biometry not available";
/// - `applicationPassword`: the password in the context's credential (or typed), which must
///   decrypt the sealed secret — a cryptographic check, not a comparison;
/// - several constraints: all of them, or any one with `.or`.
final class AccessControlGate {
    private let database: KeychainDatabase
    private let authenticator: OwnerAuthenticator
    private let context: AuthenticationContextConvertible?
    private let interactionAllowed: Bool
    private let reason: String
    /// The owner was authenticated during this call (when no context was passed).
    private var ownerAuthenticatedInThisCall = false
    /// An application password typed during this call.
    private var typedApplicationPassword: Data?
    /// Fingerprint checks, shared by every item this call reads (made when first needed).
    private lazy var biometry = BiometricCheck(authenticator: authenticator.biometric, context: context)

    init(database: KeychainDatabase, authenticator: OwnerAuthenticator, request: ParsedRequest) {
        self.database = database
        self.authenticator = authenticator
        self.context = request.authenticationContext
        self.interactionAllowed = request.authenticationUI == .allow && !(request.authenticationContext?.forbidsInteraction ?? false)
        self.reason = request.authenticationContext?.authenticationReason ?? ""
    }

    deinit {
        // Best-effort wipe of the only copy this gate holds (Data may have made others).
        if let count = typedApplicationPassword?.count { typedApplicationPassword?.resetBytes(in: 0..<count) }
    }

    /// The item's secret after its access control is satisfied; throws the failure otherwise.
    func revealData(of item: KeychainItem, interactionAllowed allowPrompt: Bool? = nil) throws(OwnerAuthenticationFailure) -> Data? {
        guard let policy = item.accessControl, policy.hasConstraints else { return item.data }
        let mayPrompt = allowPrompt ?? interactionAllowed
        if context?.isInvalidated == true { throw .failed }
        try satisfyConstraints(of: policy, mayPrompt: mayPrompt)
        guard policy.flags & AccessControlPolicy.applicationPassword != 0, let sealed = item.data else { return item.data }
        let password = try applicationPassword(mayPrompt: mayPrompt)
        do {
            return try ApplicationPasswordSeal.open(sealed, password: password, allowTestingKDF: database.allowsTestingKDF)
        } catch {
            throw .failed
        }
    }

    /// Satisfies the item's constraints without revealing its secret: what each operation with
    /// the private key of a `.privateKeyUsage` key needs.
    func authorizeUse(of item: KeychainItem) throws(OwnerAuthenticationFailure) {
        guard let policy = item.accessControl, policy.hasConstraints else { return }
        if context?.isInvalidated == true { throw .failed }
        try satisfyConstraints(of: policy, mayPrompt: interactionAllowed)
    }

    /// The secret to store for an item with `policy`: sealed under the application password when
    /// the policy asks for one, unchanged otherwise.
    func protectForStorage(_ data: Data?, policy: AccessControlPolicy?) throws(KeychainStoreError) -> Data? {
        guard let data, let policy, policy.flags & AccessControlPolicy.applicationPassword != 0 else { return data }
        do {
            let password = try applicationPassword(mayPrompt: interactionAllowed)
            return try ApplicationPasswordSeal.seal(data, password: password, testing: database.allowsTestingKDF)
        } catch let failure as OwnerAuthenticationFailure {
            throw KeychainStoreError(status: failure.status)
        } catch let failure as KeychainStoreError {
            throw failure
        } catch {
            throw KeychainStoreError(status: .internal)
        }
    }

    /// `policy` bound to the current biometric domain state when it is `.biometryCurrentSet`
    /// (what a new or updated item stores), alone or combined with any other constraint;
    /// unchanged otherwise. Without an enrolled set to bind to (no fingerprint service answered,
    /// no reader, no finger enrolled) it throws `biometrySetUnavailable`, naming what is missing:
    /// such an item could never be read, and Apple's keychain refuses it too (`errSecAuthFailed`).
    func policyForStorage(_ policy: AccessControlPolicy?) throws(KeychainStoreError) -> AccessControlPolicy? {
        guard let policy, policy.flags & AccessControlPolicy.biometryCurrentSet != 0 else { return policy }
        return policy.binding(biometryDomainState: try biometry.domainStateForNewItem())
    }

    /// One constraint of an item's access control.
    private enum Constraint {
        case biometry(BiometricCheck.Requirement)
        case companion
        case userPresence
        case devicePasscode
    }

    /// The constraints of `policy`: those that never prompt for a password first.
    private func constraints(of policy: AccessControlPolicy) -> [Constraint] {
        let flags = policy.flags
        var constraints: [Constraint] = []
        if flags & AccessControlPolicy.biometryCurrentSet != 0 {
            constraints.append(.biometry(.currentSet(boundTo: policy.biometryDomainState)))
        } else if flags & AccessControlPolicy.biometryAny != 0 {
            constraints.append(.biometry(.anyFinger))
        }
        if flags & AccessControlPolicy.companion != 0 { constraints.append(.companion) }
        if flags & AccessControlPolicy.userPresence != 0 { constraints.append(.userPresence) }
        if flags & AccessControlPolicy.devicePasscode != 0 { constraints.append(.devicePasscode) }
        return constraints
    }

    private func satisfyConstraints(of policy: AccessControlPolicy, mayPrompt: Bool) throws(OwnerAuthenticationFailure) {
        let constraints = constraints(of: policy)
        guard policy.flags & AccessControlPolicy.or != 0 else {
            for constraint in constraints { try satisfy(constraint, mayPrompt: mayPrompt) }
            return
        }
        guard !constraints.isEmpty else { return }
        // Any one suffices: first one already satisfied (by the context or earlier in this call),
        // then each in turn with a prompt; a cancel or "no prompt allowed" ends the search.
        var lastFailure = OwnerAuthenticationFailure.failed
        for pass in mayPrompt ? [false, true] : [false] {
            for constraint in constraints {
                do {
                    try satisfy(constraint, mayPrompt: pass)
                    return
                } catch {
                    switch error {
                    case .cancelled, .appCancelled, .systemCancelled: throw error
                    case .notInteractive where pass: throw error
                    default: lastFailure = error
                    }
                }
            }
        }
        throw lastFailure
    }

    private func satisfy(_ constraint: Constraint, mayPrompt: Bool) throws(OwnerAuthenticationFailure) {
        switch constraint {
        case .biometry(let requirement): try biometry.satisfy(requirement, mayPrompt: mayPrompt)
        case .companion: throw .biometryNotAvailable
        case .devicePasscode: try authenticateOwner(mayPrompt: mayPrompt)
        case .userPresence: try authenticatePresence(mayPrompt: mayPrompt)
        }
    }

    /// User presence: a fingerprint when one is enrolled (or a context that verified one), else
    /// the keychain password; after fingerprints that did not match, the password (when a
    /// prompt program exists), as Apple falls back to the passcode.
    private func authenticatePresence(mayPrompt: Bool) throws(OwnerAuthenticationFailure) {
        if ownerAuthenticatedInThisCall { return }
        if let context, context.hasAuthenticatedOwner(ofKeychain: database.keychainID) { return }
        if biometry.isUsable {
            do {
                try biometry.satisfy(.anyFinger, mayPrompt: mayPrompt)
                return
            } catch .failed where authenticator.pinentry != nil && mayPrompt {
                // Fall back to the password below.
            } catch .biometryNotAvailable, .biometryNotEnrolled {
                // The reader went away between the two questions: the password below.
            }
        }
        try authenticateOwner(mayPrompt: mayPrompt)
    }

    private func authenticateOwner(mayPrompt: Bool) throws(OwnerAuthenticationFailure) {
        if ownerAuthenticatedInThisCall { return }
        if let context, context.hasAuthenticatedOwner(ofKeychain: database.keychainID) { return }
        try authenticator.authenticateOwner(of: database, reason: reason, interactionAllowed: mayPrompt)
        ownerAuthenticatedInThisCall = true
        context?.recordOwnerAuthentication(ofKeychain: database.keychainID)
    }

    private func applicationPassword(mayPrompt: Bool) throws(OwnerAuthenticationFailure) -> Data {
        if let credential = context?.applicationPasswordCredential { return credential }
        if let typedApplicationPassword { return typedApplicationPassword }
        let typed = try authenticator.applicationPassword(reason: reason, interactionAllowed: mayPrompt)
        typedApplicationPassword = typed
        return typed
    }
}
