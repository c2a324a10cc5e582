#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on the KeychainLinux dependency in Package.swift
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux
import KeychainVocabulary

/// The operating-system services the engine's policies use, on Linux: the pinentry prompt, fprintd
/// on the system D-Bus, and the kernel keyring (all in the `KeychainLinux` target). This file and
/// `UnavailableFacilities.swift` are the only places that know which platform the engine runs on;
/// the policies (``OwnerAuthenticator``, ``BiometricAuthenticator``, ``SessionKeyring``) call these
/// and nothing below them.
enum SystemFacilities {
    /// Asks for one password through `configuration`'s pinentry program.
    /// Throws `cancelled` when the user cancelled and `notInteractive` when no answer came.
    static func askPassword(_ configuration: PinentryConfiguration, title: String, description: String,
                            prompt: String, error: String?) throws(OwnerAuthenticationFailure) -> Data {
        let pinentry = Pinentry(program: configuration.program, terminal: configuration.terminal,
                                responseTimeout: configuration.responseTimeout)
        do {
            return try pinentry.password(title: title, description: description, prompt: prompt, error: error)
        } catch .cancelled {
            throw .cancelled
        } catch {
            throw .notInteractive
        }
    }

    /// The system bus address (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket).
    static var systemBusAddress: String { DBusAddress.systemBus() }

    /// The default reader and the caller's enrolled fingers, from fprintd.
    static func fingerprintState(_ configuration: BiometryConfiguration) throws(BiometryStateUnavailable) -> BiometryState {
        do {
            let session = try FprintSession(busAddress: configuration.busAddress, callTimeout: configuration.callTimeout)
            return try state(of: session)
        } catch {
            throw unavailable(for: error)
        }
    }

    /// A fingerprint verification through fprintd (see ``BiometricAuthenticator/verify(isCancelled:)``).
    static func verifyFingerprint(_ configuration: BiometryConfiguration,
                                  isCancelled: () -> Bool) throws(OwnerAuthenticationFailure) -> BiometryState {
        let session: FprintSession
        let state: BiometryState
        do {
            session = try FprintSession(busAddress: configuration.busAddress, callTimeout: configuration.callTimeout)
            state = try self.state(of: session)
        } catch {
            throw failure(for: error, verifying: false)
        }
        guard state.isEnrolled else { throw .biometryNotEnrolled }
        let result: FprintSession.VerifyResult
        do {
            result = try session.verify(attempts: configuration.attempts,
                                        deadline: Deadline(secondsFromNow: configuration.verifyTimeout),
                                        isCancelled: isCancelled)
        } catch {
            throw failure(for: error, verifying: true)
        }
        switch result {
        case .match: return state
        case .noMatch, .unknownError: throw .failed
        case .disconnected: throw .biometryNotAvailable
        }
    }

    private static func state(of session: FprintSession) throws(DBusFailure) -> BiometryState {
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

    /// What a D-Bus failure while reading the reader state stands for: fprintd's "no such
    /// device" is a missing reader; anything else (no bus, no fprintd, no answer in time, a
    /// malformed answer) is a service that did not answer.
    private static func unavailable(for error: DBusFailure) -> BiometryStateUnavailable {
        let failure = failure(for: error, verifying: false)
        if case .remote(let name, _) = error, name == "net.reactivated.Fprint.Error.NoSuchDevice" {
            return BiometryStateUnavailable(failure, absence: .noReader)
        }
        return BiometryStateUnavailable(failure, absence: failure == .biometryNotEnrolled ? .noFingerEnrolled : .noService)
    }

    /// The kernel keyring system calls (`KeychainLinux`).
    typealias Keyring = KernelKeyring
}
#endif
