import KeychainVocabulary

/// Why fprintd gave no reader state: the authentication failure it stands for (what a read or
/// `LAContext` reports) and what was missing (what a refused `.biometryCurrentSet` add names).
package struct BiometryStateUnavailable: Error, Sendable, Equatable {
    /// The failure a read or an evaluation reports.
    package let failure: OwnerAuthenticationFailure
    /// What was missing: the service, the reader, or an enrolled finger.
    package let absence: BiometryAbsence

    /// A failure `failure` because `absence`.
    package init(_ failure: OwnerAuthenticationFailure, absence: BiometryAbsence) {
        self.failure = failure
        self.absence = absence
    }
}
