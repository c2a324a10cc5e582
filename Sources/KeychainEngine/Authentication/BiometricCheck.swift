#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// The fingerprint part of one SecItem call's access-control checks: it asks fprintd for the
/// enrolled set once per call, verifies a finger at most once per call, and reuses a context's
/// earlier verification. Owned by an `AccessControlGate`.
final class BiometricCheck {
    /// Which fingers may satisfy a constraint.
    enum Requirement: Equatable {
        /// Any enrolled finger (`.biometryAny`, `.userPresence`).
        case anyFinger
        /// A finger of the set enrolled when the item was stored (`.biometryCurrentSet`), whose
        /// digest is `boundTo`; nil for an item an earlier version stored while no fingerprint
        /// service answered (adds now refuse that), which can never be proven current.
        case currentSet(boundTo: Data?)
    }

    private let authenticator: BiometricAuthenticator?
    private let context: AuthenticationContextConvertible?
    /// The state read during this call (fprintd is asked once).
    private var cachedState: Result<BiometryState, BiometryStateUnavailable>?
    /// The domain state a finger was verified against during this call.
    private var verifiedDomainState: Data?

    init(authenticator: BiometricAuthenticator?, context: AuthenticationContextConvertible?) {
        self.authenticator = authenticator
        self.context = context
    }

    /// The current domain state to bind a new `.biometryCurrentSet` item to: the digest of the
    /// enrolled fingers. Without an enrolled set (no fingerprint service answered, no reader, no
    /// finger enrolled) it throws `biometrySetUnavailable` naming what is missing: an item bound
    /// to nothing, or to the empty set, could never be read, so it must not be stored.
    func domainStateForNewItem() throws(KeychainStoreError) -> Data {
        let state: BiometryState
        switch currentState() {
        case .success(let current): state = current
        case .failure(let unavailable): throw KeychainStoreError(.biometrySetUnavailable(unavailable.absence))
        }
        guard state.isEnrolled else { throw KeychainStoreError(.biometrySetUnavailable(.noFingerEnrolled)) }
        return state.domainState
    }

    /// Whether biometry can be tried at all: a reader with at least one enrolled finger.
    var isUsable: Bool {
        guard case .success(let state) = currentState() else { return false }
        return state.isEnrolled
    }

    /// Satisfies a biometric constraint: a verified finger (now, earlier in this call, or by the
    /// context), and for `currentSet` an enrolled set unchanged since the item was stored —
    /// otherwise the item is invalidated (`failed`) without asking for a finger.
    func satisfy(_ requirement: Requirement, mayPrompt: Bool) throws(OwnerAuthenticationFailure) {
        guard authenticator != nil else { throw .biometryNotAvailable }
        let state: BiometryState
        switch currentState() {
        case .success(let current): state = current
        case .failure(let unavailable): throw unavailable.failure
        }
        if case .currentSet(let stored) = requirement {
            guard let stored, Self.same(stored, state.domainState) else { throw .failed }
        }
        guard state.isEnrolled else { throw .biometryNotEnrolled }
        if let verifiedDomainState, Self.same(verifiedDomainState, state.domainState) { return }
        if let earlier = context?.biometricAuthenticationDomainState {
            // A context verified before: enough for any finger, and for the current set while it is unchanged.
            if requirement == .anyFinger || Self.same(earlier, state.domainState) { return }
        }
        try verify(requirement, mayPrompt: mayPrompt)
    }

    private func verify(_ requirement: Requirement, mayPrompt: Bool) throws(OwnerAuthenticationFailure) {
        guard mayPrompt else { throw .notInteractive }
        guard let authenticator else { throw .biometryNotAvailable }
        let context = self.context
        let verified = try authenticator.verify(isCancelled: { context?.isInvalidated ?? false })
        if case .currentSet(let stored?) = requirement, !Self.same(stored, verified.domainState) {
            throw .failed  // The set changed while the finger was being verified.
        }
        verifiedDomainState = verified.domainState
        context?.recordBiometricAuthentication(domainState: verified.domainState)
    }

    private func currentState() -> Result<BiometryState, BiometryStateUnavailable> {
        if let cachedState { return cachedState }
        let state: Result<BiometryState, BiometryStateUnavailable>
        if let authenticator {
            do { state = .success(try authenticator.readState()) } catch { state = .failure(error) }
        } else {
            // Biometry is not configured for this keychain: no fingerprint service is asked.
            state = .failure(BiometryStateUnavailable(.biometryNotAvailable, absence: .noService))
        }
        cachedState = state
        return state
    }

    /// Constant-time comparison of two domain states.
    private static func same(_ left: Data, _ right: Data) -> Bool {
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
