import Foundation
import KeychainStore

/// Why the device owner could not be authenticated, with the `OSStatus` a keychain call returns
/// and the `LAError` code `LAContext.evaluatePolicy` reports.
public enum OwnerAuthenticationFailure: Error, Sendable, Equatable {
    /// The user cancelled the prompt (`errSecUserCanceled`, `LAError.userCancel`).
    case cancelled
    /// Wrong password three times (`errSecAuthFailed`, `LAError.authenticationFailed`).
    case failed
    /// A prompt was needed but not allowed or not possible (`errSecInteractionNotAllowed`, `LAError.notInteractive`).
    case notInteractive
    /// The keychain has no password to check (`errSecAuthFailed`, `LAError.passcodeNotSet`).
    case passcodeNotSet
    /// Biometry is not available on this machine (`errSecAuthFailed`, `LAError.biometryNotAvailable`).
    case biometryNotAvailable

    /// The status a SecItem call returns for this failure (Apple's LocalAuthentication mapping).
    public var osStatus: Int32 {
        switch self {
        case .cancelled: return -128
        case .notInteractive: return -25308
        case .failed, .passcodeNotSet, .biometryNotAvailable: return -25293
        }
    }
}

/// Authenticates the device owner. On Linux "the device passcode" is the keychain's password:
/// the user types it into a pinentry prompt and it is checked against the keybag (a full KDF run),
/// with up to three attempts.
public struct OwnerAuthenticator: Sendable {
    /// The prompt program, or nil when no prompt can be shown.
    public let pinentry: PinentryConfiguration?
    /// Attempts before failing.
    static let attempts = 3

    /// An authenticator using `pinentry` (nil: every prompt fails as not interactive).
    public init(pinentry: PinentryConfiguration?) { self.pinentry = pinentry }

    /// The authenticator configured from the environment.
    public static func fromEnvironment() -> OwnerAuthenticator {
        OwnerAuthenticator(pinentry: PinentryConfiguration.fromEnvironment())
    }

    /// Asks for and verifies the password of `database`.
    public func authenticateOwner(of database: KeychainDatabase, reason: String, interactionAllowed: Bool) throws(OwnerAuthenticationFailure) {
        let hasPassword: Bool
        do { hasPassword = try database.status.hasPassword } catch { throw .failed }
        guard hasPassword else { throw .passcodeNotSet }
        guard interactionAllowed, let pinentry else { throw .notInteractive }
        var retryMessage: String?
        for _ in 0..<Self.attempts {
            var password: Data
            do {
                password = try Pinentry(configuration: pinentry).password(
                    title: "Keychain", description: reason.isEmpty ? "Enter the keychain password." : reason,
                    prompt: "Password:", error: retryMessage)
            } catch .cancelled {
                throw .cancelled
            } catch {
                throw .notInteractive
            }
            defer { password.resetBytes(in: 0..<password.count) }
            do {
                try database.verify(password: password)
                return
            } catch {
                retryMessage = "Wrong password, try again."
            }
        }
        throw .failed
    }

    /// Asks for an application password (items protected with `kSecAccessControlApplicationPassword`).
    public func applicationPassword(reason: String, interactionAllowed: Bool) throws(OwnerAuthenticationFailure) -> Data {
        guard interactionAllowed, let pinentry else { throw .notInteractive }
        do {
            return try Pinentry(configuration: pinentry).password(
                title: "Application password", description: reason.isEmpty ? "Enter the application password." : reason,
                prompt: "Password:", error: nil)
        } catch .cancelled {
            throw .cancelled
        } catch {
            throw .notInteractive
        }
    }
}
