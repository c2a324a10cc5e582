import Foundation
import KeychainStore
import KeychainVocabulary

/// Why the device owner could not be authenticated, with the `OSStatus` a keychain call returns
/// and the `LAError` code `LAContext.evaluatePolicy` reports.
package enum OwnerAuthenticationFailure: Error, Sendable, Equatable {
    /// The user cancelled the prompt (`errSecUserCanceled`, `LAError.userCancel`).
    case cancelled
    /// Wrong password three times (`errSecAuthFailed`, `LAError.authenticationFailed`).
    case failed
    /// A prompt was needed but not allowed or not possible (`errSecInteractionNotAllowed`, `LAError.notInteractive`).
    case notInteractive
    /// The keychain has no password to check (`errSecAuthFailed`, `LAError.passcodeNotSet`).
    case passcodeNotSet
    /// Biometry is not available on this machine: no fprintd or no fingerprint reader
    /// (`errSecAuthFailed`, `LAError.biometryNotAvailable`).
    case biometryNotAvailable
    /// A reader is present but the user has enrolled no finger (`errSecAuthFailed`, `LAError.biometryNotEnrolled`).
    case biometryNotEnrolled
    /// The application cancelled a fingerprint verification, by invalidating its context
    /// (`errSecUserCanceled`, `LAError.appCancel`).
    case appCancelled
    /// The system cancelled a fingerprint verification: no finger in time, or the reader is busy
    /// (`errSecUserCanceled`, `LAError.systemCancel`).
    case systemCancelled

    /// The status a SecItem call returns for this failure (Apple's LocalAuthentication mapping).
    package var osStatus: Int32 { status.rawValue }

    /// The status a SecItem call returns for this failure, from the one table of statuses.
    package var status: KeychainStatus {
        switch self {
        case .cancelled, .appCancelled, .systemCancelled: return .userCanceled
        case .notInteractive: return .interactionNotAllowed
        case .failed, .passcodeNotSet, .biometryNotAvailable, .biometryNotEnrolled: return .authFailed
        }
    }
}

/// Authenticates the device owner. On Linux "the device passcode" is the keychain's password:
/// the user types it into a pinentry prompt and it is checked against the keybag (a full KDF run),
/// with up to three attempts. Biometry is a fingerprint verified by fprintd, when configured.
package struct OwnerAuthenticator: Sendable {
    /// The prompt program, or nil when no prompt can be shown.
    package let pinentry: PinentryConfiguration?
    /// How to reach fprintd, or nil when biometry is never used (it is then "not available").
    package let biometry: BiometryConfiguration?
    /// Attempts before failing.
    static let attempts = 3

    /// An authenticator using `pinentry` (nil: every prompt fails as not interactive) and
    /// fprintd as `biometry` says (nil, the default: no biometry).
    package init(pinentry: PinentryConfiguration?, biometry: BiometryConfiguration? = nil) {
        self.pinentry = pinentry
        self.biometry = biometry
    }

    /// The fingerprint authenticator, or nil when biometry is not configured.
    package var biometric: BiometricAuthenticator? {
        biometry.map(BiometricAuthenticator.init(configuration:))
    }

    /// Asks for and verifies the password of `database`.
    package func authenticateOwner(of database: KeychainDatabase, reason: String, interactionAllowed: Bool) throws(OwnerAuthenticationFailure) {
        let hasPassword: Bool
        do { hasPassword = try database.status.hasPassword } catch { throw .failed }
        guard hasPassword else { throw .passcodeNotSet }
        guard interactionAllowed, let pinentry else { throw .notInteractive }
        var retryMessage: String?
        for _ in 0..<Self.attempts {
            var password = try SystemFacilities.askPassword(
                pinentry, title: "Keychain", description: reason.isEmpty ? "Enter the keychain password." : reason,
                prompt: "Password:", error: retryMessage)
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
    package func applicationPassword(reason: String, interactionAllowed: Bool) throws(OwnerAuthenticationFailure) -> Data {
        guard interactionAllowed, let pinentry else { throw .notInteractive }
        return try SystemFacilities.askPassword(
            pinentry, title: "Application password", description: reason.isEmpty ? "Enter the application password." : reason,
            prompt: "Password:", error: nil)
    }
}
