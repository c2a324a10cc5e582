import Foundation
import KeychainEngine

// Fingerprints for LAContext: what fprintd reports about the reader (for canEvaluatePolicy and
// biometryType) and the verification behind evaluatePolicy's biometric policies.

/// What fprintd said about the fingerprint reader when a policy was checked.
struct BiometryProbe {
    /// `.touchID` when a reader is present, enrolled or not.
    var type: LABiometryType
    /// The digest of the enrolled fingers, when at least one is enrolled.
    var usableDomainState: Data?
    /// Why a biometric policy cannot be evaluated, or nil if it can.
    var failure: LAError.Code?
}

extension LAContext {
    /// Verifies a fingerprint through fprintd (reusing this context's earlier verification).
    func evaluateFingerprint() throws {
        if biometricAuthenticationDomainState != nil { return }
        if interactionNotAllowed { throw LAError(.notInteractive) }
        guard let configuration = biometryConfiguration else { throw LAError(.biometryNotAvailable) }
        do {
            let verified = try BiometricAuthenticator(configuration: configuration).verify(isCancelled: { [self] in isInvalidated })
            recordBiometricAuthentication(domainState: verified.domainState)
        } catch {
            throw LAError(Self.code(for: error))
        }
    }

    /// The `LAError` code of an authentication failure.
    static func code(for failure: OwnerAuthenticationFailure) -> LAError.Code {
        switch failure {
        case .cancelled: return .userCancel
        case .failed: return .authenticationFailed
        case .notInteractive: return .notInteractive
        case .passcodeNotSet: return .passcodeNotSet
        case .biometryNotAvailable: return .biometryNotAvailable
        case .biometryNotEnrolled: return .biometryNotEnrolled
        case .appCancelled: return .appCancel
        case .systemCancelled: return .systemCancel
        }
    }

    /// What fprintd says about the fingerprint reader: its presence, and the enrolled set's
    /// digest when at least one finger is enrolled.
    func probeBiometry() -> BiometryProbe {
        guard let configuration = biometryConfiguration else { return BiometryProbe(type: .none, usableDomainState: nil, failure: .biometryNotAvailable) }
        do {
            let state = try BiometricAuthenticator(configuration: configuration).currentState()
            return state.isEnrolled
                ? BiometryProbe(type: .touchID, usableDomainState: state.domainState, failure: nil)
                : BiometryProbe(type: .touchID, usableDomainState: nil, failure: .biometryNotEnrolled)
        } catch {
            return BiometryProbe(type: .none, usableDomainState: nil, failure: .biometryNotAvailable)
        }
    }
}
