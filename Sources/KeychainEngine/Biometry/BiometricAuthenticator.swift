#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fingerprint authentication through fprintd (`net.reactivated.Fprint` on the system D-Bus),
/// the Linux counterpart of Touch ID. Every call opens its own connection and closes it, and
/// every wait is bounded: without a bus, without fprintd or without a reader it fails at once
/// with `biometryNotAvailable`.
package struct BiometricAuthenticator: Sendable {
    /// The bus, timeouts and attempts.
    package let configuration: BiometryConfiguration

    /// An authenticator using fprintd as `configuration` says.
    package init(configuration: BiometryConfiguration) {
        self.configuration = configuration
    }

    /// The default reader and the caller's enrolled fingers.
    /// Throws `biometryNotAvailable` when there is no bus, no fprintd or no reader.
    package func currentState() throws(OwnerAuthenticationFailure) -> BiometryState {
        do {
            return try readState()
        } catch {
            throw error.failure
        }
    }

    /// The default reader and the caller's enrolled fingers; when fprintd gives none, the
    /// failure together with what was missing (the service, the reader).
    package func readState() throws(BiometryStateUnavailable) -> BiometryState {
        try SystemFacilities.fingerprintState(configuration)
    }

    /// Asks the caller to touch the reader and verifies the finger against the enrolled ones,
    /// allowing `configuration.attempts` scans. Returns the state the match was made against.
    ///
    /// Throws `biometryNotAvailable` (no fprintd or reader), `biometryNotEnrolled`, `failed`
    /// (no scan matched), `appCancelled` (`isCancelled` turned true) or `systemCancelled` (no
    /// finger within `configuration.verifyTimeout` seconds, or the reader is busy).
    package func verify(isCancelled: () -> Bool) throws(OwnerAuthenticationFailure) -> BiometryState {
        try SystemFacilities.verifyFingerprint(configuration, isCancelled: isCancelled)
    }
}
