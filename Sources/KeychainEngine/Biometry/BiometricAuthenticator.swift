import Foundation

/// Fingerprint authentication through fprintd (`net.reactivated.Fprint` on the system D-Bus),
/// the Linux counterpart of Touch ID. Every call opens its own connection and closes it, and
/// every wait is bounded: without a bus, without fprintd or without a reader it fails at once
/// with `biometryNotAvailable`.
public struct BiometricAuthenticator: Sendable {
    /// The bus, timeouts and attempts.
    public let configuration: BiometryConfiguration

    /// An authenticator using fprintd as `configuration` says.
    public init(configuration: BiometryConfiguration) {
        self.configuration = configuration
    }

    /// The default reader and the caller's enrolled fingers.
    /// Throws `biometryNotAvailable` when there is no bus, no fprintd or no reader.
    public func currentState() throws(OwnerAuthenticationFailure) -> BiometryState {
        do {
            let session = try FprintSession(busAddress: configuration.busAddress, callTimeout: configuration.callTimeout)
            return try state(of: session)
        } catch {
            throw Self.failure(for: error, verifying: false)
        }
    }

    /// Asks the caller to touch the reader and verifies the finger against the enrolled ones,
    /// allowing `configuration.attempts` scans. Returns the state the match was made against.
    ///
    /// Throws `biometryNotAvailable` (no fprintd or reader), `biometryNotEnrolled`, `failed`
    /// (no scan matched), `appCancelled` (`isCancelled` turned true) or `systemCancelled` (no
    /// finger within `configuration.verifyTimeout` seconds, or the reader is busy).
    public func verify(isCancelled: () -> Bool) throws(OwnerAuthenticationFailure) -> BiometryState {
        let session: FprintSession
        let state: BiometryState
        do {
            session = try FprintSession(busAddress: configuration.busAddress, callTimeout: configuration.callTimeout)
            state = try self.state(of: session)
        } catch {
            throw Self.failure(for: error, verifying: false)
        }
        guard state.isEnrolled else { throw .biometryNotEnrolled }
        let result: FprintSession.VerifyResult
        do {
            result = try session.verify(attempts: configuration.attempts,
                                        deadline: Deadline(secondsFromNow: configuration.verifyTimeout),
                                        isCancelled: isCancelled)
        } catch {
            throw Self.failure(for: error, verifying: true)
        }
        switch result {
        case .match: return state
        case .noMatch, .unknownError: throw .failed
        case .disconnected: throw .biometryNotAvailable
        }
    }

    private func state(of session: FprintSession) throws(DBusFailure) -> BiometryState {
        BiometryState(readerName: try session.deviceName(), enrolledFingers: try session.enrolledFingers())
    }

    /// The authentication failure a D-Bus failure stands for.
    private static func failure(for error: DBusFailure, verifying: Bool) -> OwnerAuthenticationFailure {
        switch error {
        case .cancelled:
            return .appCancelled
        case .timedOut:
            return verifying ? .systemCancelled : .biometryNotAvailable
        case .remote(let name, _):
            switch name {
            case "net.reactivated.Fprint.Error.NoEnrolledPrints": return .biometryNotEnrolled
            case "net.reactivated.Fprint.Error.AlreadyInUse": return .systemCancelled
            default: return .biometryNotAvailable
            }
        case .unavailable, .disconnected, .protocolViolation:
            return .biometryNotAvailable
        }
    }
}
