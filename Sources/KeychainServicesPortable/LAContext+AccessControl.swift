import Foundation
import KeychainVocabulary

// Evaluating an access-control object ahead of the keychain call it guards: an app asks for the
// user once (`evaluateAccessControl`), then passes the context under
// `kSecUseAuthenticationContext` so the item is read without a second prompt. The constraints
// are those of `SecAccessControlCreateWithFlags`: user presence and the device passcode are the
// keychain password (`LAPolicy.deviceOwnerAuthentication`), biometry a fingerprint
// (`.deviceOwnerAuthenticationWithBiometrics`), as `evaluatePolicy` evaluates them.

/// Apple: `LAAccessControlOperation`, the operation an access control is evaluated for.
public enum LAAccessControlOperation: Int, Sendable {
    /// Apple: creating a keychain item protected by the access control.
    case createItem = 0
    /// Apple: using (reading) such an item.
    case useItem = 1
    /// Apple: creating a key protected by the access control.
    case createKey = 2
    /// Apple: signing with such a key.
    case useKeySign = 3
    /// Apple: decrypting with such a key.
    case useKeyDecrypt = 4
    /// Apple: a key exchange with such a key.
    case useKeyKeyExchange = 5
}

extension LAContext {
    /// Apple: evaluates `accessControl` for `operation`, showing `localizedReason` in the prompt;
    /// `reply` is called on a private queue.
    ///
    /// Creating an item or a key asks nothing of the user. Using one asks what the access
    /// control's constraints require, where they apply: without `.privateKeyUsage`, to reading
    /// the item (`.useItem`); with it, to the key operations (`.useKeySign`, `.useKeyDecrypt`,
    /// `.useKeyKeyExchange`). Of constraints joined by `.or` one is evaluated (the passcode, which
    /// offers biometry first, when it is among them); with `.and` each in turn. A successful
    /// evaluation is reused by keychain calls that pass this context under
    /// `kSecUseAuthenticationContext`. An `.applicationPassword` constraint is met by
    /// `setCredential(_:type: .applicationPassword)` (there is no prompt for it here).
    public func evaluateAccessControl(_ accessControl: SecAccessControl, operation: LAAccessControlOperation,
                                      localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        if isInvalidated {
            reply(false, LAError(.invalidContext))
            return
        }
        let requirement = Self.requirement(of: accessControl.accessControlPolicy, for: operation)
        if requirement.needsApplicationPassword, !isCredentialSet(.applicationPassword) {
            reply(false, LAError(.notInteractive))
            return
        }
        evaluate(requirement.policies[...], localizedReason: localizedReason, reply: reply)
    }

    /// Apple: the async form of `evaluateAccessControl(_:operation:localizedReason:reply:)`.
    @discardableResult
    public func evaluateAccessControl(_ accessControl: SecAccessControl, operation: LAAccessControlOperation,
                                      localizedReason: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluateAccessControl(accessControl, operation: operation, localizedReason: localizedReason) { success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    /// Evaluates each policy in turn; the first failure is the reply.
    private func evaluate(_ policies: ArraySlice<LAPolicy>, localizedReason: String,
                          reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        guard let policy = policies.first else {
            reply(true, nil)
            return
        }
        let rest = policies.dropFirst()
        evaluatePolicy(policy, localizedReason: localizedReason) { [self] success, error in
            guard success else {
                reply(false, error)
                return
            }
            evaluate(rest, localizedReason: localizedReason, reply: reply)
        }
    }

    /// What the user must do before `operation` on an item or key protected by `policy`: the
    /// policies to evaluate, in order (none: nothing to ask), and whether the application
    /// password is one of the constraints.
    static func requirement(of policy: AccessControlPolicy, for operation: LAAccessControlOperation)
        -> (policies: [LAPolicy], needsApplicationPassword: Bool) {
        let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(policy.flags))
        let guardsKeyOperations = flags.contains(.privateKeyUsage)
        let constrained: Bool
        switch operation {
        case .createItem, .createKey: constrained = false
        case .useItem: constrained = !guardsKeyOperations
        case .useKeySign, .useKeyDecrypt, .useKeyKeyExchange: constrained = guardsKeyOperations
        }
        guard constrained else { return ([], false) }
        let passcode = flags.contains(.userPresence) || flags.contains(.devicePasscode)
        let biometry = flags.contains(.biometryAny) || flags.contains(.biometryCurrentSet)
        let companion = flags.contains(.companion)
        var policies: [LAPolicy] = []
        if flags.contains(.and) {
            if biometry { policies.append(.deviceOwnerAuthenticationWithBiometrics) }
            if passcode { policies.append(.deviceOwnerAuthentication) }
            if companion { policies.append(.deviceOwnerAuthenticationWithCompanion) }
        } else if passcode {
            policies.append(.deviceOwnerAuthentication)
        } else if biometry {
            policies.append(.deviceOwnerAuthenticationWithBiometrics)
        } else if companion {
            policies.append(.deviceOwnerAuthenticationWithCompanion)
        }
        return (policies, flags.contains(.applicationPassword))
    }
}
