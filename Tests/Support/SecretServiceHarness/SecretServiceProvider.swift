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

    /// The providers every client scenario is parameterized over.
    public static let underTest: [SecretServiceProvider] = allCases
}
