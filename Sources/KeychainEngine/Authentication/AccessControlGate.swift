import Foundation
import KeychainStore

/// Enforces an item's access control when its secret is read, and applies the application
/// password when a protected secret is written. One gate serves one SecItem call, so a call that
/// reads several items asks for the password once.
///
/// Flags and what satisfies them here:
/// - `devicePasscode`, `userPresence`: the keychain password, typed into a pinentry prompt, or a
///   context that already authenticated this keychain's owner;
/// - `biometryAny`, `biometryCurrentSet`, `companion`: nothing yet (no biometric service is
///   used), so they fail as "biometry not available" unless an `.or` alternative succeeds;
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
        try satisfyConstraints(policy.flags, mayPrompt: mayPrompt)
        guard policy.flags & AccessControlPolicy.applicationPassword != 0, let sealed = item.data else { return item.data }
        let password = try applicationPassword(mayPrompt: mayPrompt)
        do {
            return try ApplicationPasswordSeal.open(sealed, password: password, allowTestingKDF: database.allowsTestingKDF)
        } catch {
            throw .failed
        }
    }

    /// The secret to store for an item with `policy`: sealed under the application password when
    /// the policy asks for one, unchanged otherwise.
    func protectForStorage(_ data: Data?, policy: AccessControlPolicy?) throws(EngineFailure) -> Data? {
        guard let data, let policy, policy.flags & AccessControlPolicy.applicationPassword != 0 else { return data }
        do {
            let password = try applicationPassword(mayPrompt: interactionAllowed)
            return try ApplicationPasswordSeal.seal(data, password: password, testing: database.allowsTestingKDF)
        } catch let failure as OwnerAuthenticationFailure {
            throw EngineFailure(failure.osStatus)
        } catch let failure as KeychainStoreError {
            throw EngineFailure(failure.osStatus)
        } catch {
            throw EngineFailure(-26276)
        }
    }

    private func satisfyConstraints(_ flags: UInt64, mayPrompt: Bool) throws(OwnerAuthenticationFailure) {
        var needsPasscode = false
        var needsUnavailable = false
        if flags & (AccessControlPolicy.userPresence | AccessControlPolicy.devicePasscode) != 0 { needsPasscode = true }
        if flags & (AccessControlPolicy.biometryAny | AccessControlPolicy.biometryCurrentSet | AccessControlPolicy.companion) != 0 {
            needsUnavailable = true
        }
        let anyOneSuffices = flags & AccessControlPolicy.or != 0
        if anyOneSuffices {
            if needsPasscode { try authenticateOwner(mayPrompt: mayPrompt); return }
            if needsUnavailable { throw .biometryNotAvailable }
            return
        }
        if needsUnavailable { throw .biometryNotAvailable }
        if needsPasscode { try authenticateOwner(mayPrompt: mayPrompt) }
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
