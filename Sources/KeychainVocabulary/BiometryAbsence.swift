/// What was missing when an item's `.biometryCurrentSet` access control could not be bound to an
/// enrolled set of fingers. Such an item could never be read through biometry, so it is refused
/// (``KeychainStoreError/Reason/biometrySetUnavailable(_:)``) instead of being stored.
package enum BiometryAbsence: Sendable, Equatable {
    /// No fingerprint service (fprintd) answered: no bus, no fprintd on it, or no answer within
    /// the call timeout.
    case noService
    /// fprintd answered but has no fingerprint reader.
    case noReader
    /// A reader is present but the user has enrolled no finger on it.
    case noFingerEnrolled

    /// What was missing, in words.
    var description: String {
        switch self {
        case .noService: "no fingerprint service (fprintd) answered"
        case .noReader: "fprintd has no fingerprint reader"
        case .noFingerEnrolled: "no finger is enrolled (enrol one with fprintd-enroll)"
        }
    }
}
