import Foundation
import KeychainEngine

// Policy evaluation on Linux. "The device passcode" is the default keychain's password, typed
// into a pinentry prompt (KEYCHAINKIT_PINENTRY, or a `pinentry` on the PATH when a terminal or
// display exists). Biometry is a fingerprint verified by fprintd on the system D-Bus; without
// fprintd or a reader, biometric policies report `biometryNotAvailable`, as on a Mac without
// Touch ID.

extension LAContext {
    /// Apple: whether `policy` can be evaluated now. Sets `error` to the `LAError` that
    /// `evaluatePolicy` would report otherwise. (Apple's parameter is an `NSErrorPointer`; Linux
    /// has no autoreleasing pointers, and `&error` call sites compile unchanged.)
    ///
    /// It also sets `biometryType` (`.touchID` when fprintd reports a fingerprint reader) and, when
    /// biometry can be evaluated, `evaluatedPolicyDomainState`.
    @discardableResult
    public func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        let probe = probeBiometry()
        recordBiometryProbe(type: probe.type, domainState: policy == .deviceOwnerAuthenticationWithBiometrics ? probe.usableDomainState : nil)
        if let code = unavailability(of: policy, biometry: probe) {
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
    @discardableResult
    public func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluatePolicy(policy, localizedReason: localizedReason) { success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    /// Evaluates synchronously, throwing an `LAError`.
    private func evaluateNow(_ policy: LAPolicy, localizedReason: String) throws {
        let probe = probeBiometry()
        if let code = unavailability(of: policy, biometry: probe) { throw LAError(code) }
        if policy == .deviceOwnerAuthenticationWithBiometrics {
            try evaluateFingerprint()
            return
        }
        if probe.usableDomainState != nil {
            // Biometry first, as on Apple platforms; after fingers that did not match, the password.
            do {
                try evaluateFingerprint()
                return
            } catch LAError.authenticationFailed where KeychainLifecycle.apple.registry.configuration.authenticator.pinentry != nil {
                // Fall through to the keychain password.
            }
        }
        try evaluatePasscode(localizedReason: localizedReason)
    }

    /// Asks for the default keychain's password.
    private func evaluatePasscode(localizedReason: String) throws {
        // The default keychain's password is the device's passcode. Before the keychain exists it
        // is the configured password the first write will give it (what canEvaluatePolicy
        // answers); without either there is none to ask for. An evaluation creates no keychain.
        let lifecycle = KeychainLifecycle.apple
        if !FileManager.default.fileExists(atPath: lifecycle.resolve(nil)) {
            try evaluateConfiguredPasscode(lifecycle, localizedReason: localizedReason)
            return
        }
        let opened = Result { () throws(KeychainCallFailure) in try lifecycle.existingKeychain(nil) }
        guard case .success(let database) = opened else { throw LAError(.passcodeNotSet) }
        if hasAuthenticatedOwner(ofKeychain: database.keychainID) { return }
        do {
            try lifecycle.registry.authenticator(for: database).authenticateOwner(
                of: database, reason: localizedReason, interactionAllowed: !interactionNotAllowed)
            recordOwnerAuthentication(ofKeychain: database.keychainID)
        } catch {
            throw LAError(Self.code(for: error))
        }
    }

    /// Asks for the configured password (`KEYCHAINKIT_PASSWORD_FILE`, the systemd credential) of a
    /// default keychain that does not exist yet; `passcodeNotSet` when none is usable.
    private func evaluateConfiguredPasscode(_ lifecycle: KeychainLifecycle, localizedReason: String) throws {
        let configuredPassword: Data?
        do {
            configuredPassword = try lifecycle.registry.configuration.passwordFromFile()
        } catch {
            throw LAError(.passcodeNotSet)  // the file was refused: the first write will report why
        }
        guard var configured = configuredPassword else { throw LAError(.passcodeNotSet) }
        defer { configured.resetBytes(in: 0..<configured.count) }
        do {
            try lifecycle.registry.authenticator(forKeychainAt: lifecycle.resolve(nil)).authenticateOwner(
                matchingConfigured: configured, reason: localizedReason, interactionAllowed: !interactionNotAllowed)
        } catch {
            throw LAError(Self.code(for: error))
        }
    }

    /// Why `policy` cannot be evaluated here, or nil if it can.
    private func unavailability(of policy: LAPolicy, biometry: BiometryProbe) -> LAError.Code? {
        if isInvalidated { return .invalidContext }
        switch policy {
        case .deviceOwnerAuthentication:
            let lifecycle = KeychainLifecycle.apple
            if !FileManager.default.fileExists(atPath: lifecycle.resolve(nil)) {
                // No keychain yet: the first write creates it with the configured password
                // (KEYCHAINKIT_PASSWORD_FILE, the systemd credential), which is then the passcode.
                return Self.configuredPasswordIsUsable(lifecycle) ? nil : .passcodeNotSet
            }
            do {
                let database = try lifecycle.existingKeychain(nil)
                return try database.status.hasPassword ? nil : .passcodeNotSet
            } catch {
                return .passcodeNotSet
            }
        case .deviceOwnerAuthenticationWithBiometrics:
            return biometry.failure
        default:
            return .companionNotAvailable
        }
    }
}

extension LAContext {
    /// Whether the configured password source can be read and holds a password: what a keychain
    /// created now would get. A source refused (its file readable by others, missing) creates none.
    fileprivate static func configuredPasswordIsUsable(_ lifecycle: KeychainLifecycle) -> Bool {
        do {
            guard var password = try lifecycle.registry.configuration.passwordFromFile() else { return false }
            defer { password.resetBytes(in: 0..<password.count) }
            return !password.isEmpty
        } catch {
            return false  // the file was refused: the first write will report why
        }
    }
}

extension LAContext: AuthenticationContextConvertible {
    /// The application password set with `setCredential(_:type: .applicationPassword)`.
    package var applicationPasswordCredential: Data? { credential(for: .applicationPassword) }
    /// `interactionNotAllowed`.
    package var forbidsInteraction: Bool { interactionNotAllowed }
    /// `localizedReason`.
    package var authenticationReason: String { localizedReason }
}
