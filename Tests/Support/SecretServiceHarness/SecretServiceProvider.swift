import Foundation

/// The Secret Service implementations the client tests run against, each started on a private
/// session bus by `SecretServiceHarness`.
public enum SecretServiceProvider: String, CaseIterable, Sendable, CustomStringConvertible {
    /// gnome-keyring-daemon, the reference implementation, with a login keyring created and
    /// unlocked headless.
    case gnomeKeyring
    /// KeychainKit's own provider: `keychainctl secret-service` on a keychain file in the sandbox.
    case keychainKit

    public var description: String {
        switch self {
        case .gnomeKeyring: "gnome-keyring"
        case .keychainKit: "KeychainKit"
        }
    }

    /// Whether the `.keychainKit` cases run: `KEYCHAINKIT_SS_TESTS_OURS=1` until the daemon is merged.
    public static let oursEnabled = ProcessInfo.processInfo.environment["KEYCHAINKIT_SS_TESTS_OURS"] == "1"

    /// The providers every client scenario is parameterized over (the one place the gate on ours lives).
    public static let underTest: [SecretServiceProvider] = oursEnabled ? allCases : [.gnomeKeyring]
}
