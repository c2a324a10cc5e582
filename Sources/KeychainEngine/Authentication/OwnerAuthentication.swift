#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
        try askForOwnerPassword(reason: reason, interactionAllowed: interactionAllowed) { password in
            do {
                try database.verify(password: password)
                return true
            } catch {
                return false
            }
        }
    }

    /// Asks for and verifies the password a keychain not created yet will have: the configured
    /// one (`KEYCHAINKIT_PASSWORD_FILE`, the systemd credential), which the first write gives the
    /// default keychain. Until then it is the device passcode, as `canEvaluatePolicy` answers.
    package func authenticateOwner(matchingConfigured configured: Data, reason: String, interactionAllowed: Bool) throws(OwnerAuthenticationFailure) {
        guard !configured.isEmpty else { throw .passcodeNotSet }
        try askForOwnerPassword(reason: reason, interactionAllowed: interactionAllowed) { password in
            Self.isSameSecret(password, configured)
        }
    }

    /// Prompts up to ``attempts`` times until `accepts` accepts the typed password.
    private func askForOwnerPassword(reason: String, interactionAllowed: Bool,
                                     accepts: (Data) -> Bool) throws(OwnerAuthenticationFailure) {
        guard interactionAllowed, let pinentry else { throw .notInteractive }
        var retryMessage: String?
        for _ in 0..<Self.attempts {
            var password = try SystemFacilities.askPassword(
                pinentry, title: "Keychain", description: reason.isEmpty ? "Enter the keychain password." : reason,
                prompt: "Password:", error: retryMessage)
            defer { password.resetBytes(in: 0..<password.count) }
            if accepts(password) { return }
            retryMessage = "Wrong password, try again."
        }
        throw .failed
    }

    /// Whether `typed` equals `expected`, in a time that depends on the longer length only, never
    /// on where they first differ (a timing side channel must not reveal the password's prefix).
    @inline(never)
    static func isSameSecret(_ typed: Data, _ expected: Data) -> Bool {
        let length = max(typed.count, expected.count)
        var difference: UInt8 = typed.count == expected.count ? 0 : 1
        for offset in 0..<length {
            let left = offset < typed.count ? typed[typed.startIndex + offset] : 0
            let right = offset < expected.count ? expected[expected.startIndex + offset] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    /// Asks for an application password (items protected with `kSecAccessControlApplicationPassword`).
    package func applicationPassword(reason: String, interactionAllowed: Bool) throws(OwnerAuthenticationFailure) -> Data {
        guard interactionAllowed, let pinentry else { throw .notInteractive }
        return try SystemFacilities.askPassword(
            pinentry, title: "Application password", description: reason.isEmpty ? "Enter the application password." : reason,
            prompt: "Password:", error: nil)
    }
}
