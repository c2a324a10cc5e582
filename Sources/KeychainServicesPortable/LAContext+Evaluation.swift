import Foundation
import KeychainEngine
import KeychainStore

// Policy evaluation on Linux. "The device passcode" is the default keychain's password, typed
// into a pinentry prompt (KEYCHAINKIT_PINENTRY, or a `pinentry` on the PATH when a terminal or
// display exists). No biometric service is used yet: biometric policies report
// `biometryNotAvailable`, as on a Mac without Touch ID.

extension LAContext {
    /// Apple: whether `policy` can be evaluated now. Sets `error` to the `LAError` that
    /// `evaluatePolicy` would report otherwise. (Apple's parameter is an `NSErrorPointer`; Linux
    /// has no autoreleasing pointers, and `&error` call sites compile unchanged.)
    public func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        if let code = Self.unavailability(of: policy, invalidated: isInvalidated) {
            error?.pointee = NSError(domain: LAErrorDomain, code: code.rawValue)
            return false
        }
        return true
    }

    /// Apple: evaluates `policy`, showing `localizedReason` in the prompt; `reply` is called on a
    /// private queue. A successful evaluation is reused by keychain calls that pass this context
    /// under `kSecUseAuthenticationContext`, without a new prompt.
    public func evaluatePolicy(_ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let context = self
        DispatchQueue.global(qos: .userInitiated).async {
            do {
                try context.evaluateNow(policy, localizedReason: localizedReason)
                reply(true, nil)
            } catch {
                reply(false, error)
            }
        }
    }

    /// Apple: the async form of `evaluatePolicy(_:localizedReason:reply:)`; the prompt runs off
    /// the caller's executor.
    public func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluatePolicy(policy, localizedReason: localizedReason) { success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    /// Evaluates synchronously, throwing an `LAError`.
    private func evaluateNow(_ policy: LAPolicy, localizedReason: String) throws {
        if let code = Self.unavailability(of: policy, invalidated: isInvalidated) { throw LAError(code) }
        let database: KeychainDatabase
        do {
            database = try KeychainRegistry.shared.database(at: KeychainRegistry.shared.defaultKeychainPath)
        } catch {
            throw LAError(.passcodeNotSet)
        }
        if hasAuthenticatedOwner(ofKeychain: database.keychainID) { return }
        do {
            try OwnerAuthenticator.fromEnvironment().authenticateOwner(
                of: database, reason: localizedReason, interactionAllowed: !interactionNotAllowed)
            recordOwnerAuthentication(ofKeychain: database.keychainID)
        } catch {
            switch error {
            case .cancelled: throw LAError(.userCancel)
            case .failed: throw LAError(.authenticationFailed)
            case .notInteractive: throw LAError(.notInteractive)
            case .passcodeNotSet: throw LAError(.passcodeNotSet)
            case .biometryNotAvailable: throw LAError(.biometryNotAvailable)
            }
        }
    }

    /// Why `policy` cannot be evaluated here, or nil if it can.
    private static func unavailability(of policy: LAPolicy, invalidated: Bool) -> LAError.Code? {
        if invalidated { return .invalidContext }
        switch policy {
        case .deviceOwnerAuthentication:
            do {
                let database = try KeychainRegistry.shared.database(at: KeychainRegistry.shared.defaultKeychainPath)
                return try database.status.hasPassword ? nil : .passcodeNotSet
            } catch {
                return .passcodeNotSet
            }
        case .deviceOwnerAuthenticationWithBiometrics:
            return .biometryNotAvailable
        default:
            return .companionNotAvailable
        }
    }
}

extension LAContext: AuthenticationContextConvertible {
    /// The application password set with `setCredential(_:type: .applicationPassword)`.
    public var applicationPasswordCredential: Data? { credential(for: .applicationPassword) }
    /// `interactionNotAllowed`.
    public var forbidsInteraction: Bool { interactionNotAllowed }
    /// `localizedReason`.
    public var authenticationReason: String { localizedReason }
}
