import Foundation
import KeychainStore

/// Everything a process's keychain calls take from its environment, read **once per process**,
/// at the first keychain call that needs it (`KeychainRegistry.configuration`), the way an Apple
/// app's entitlements are fixed when it starts.
///
/// Reading the environment on every call was a third of a `SecItemCopyMatching` in a process
/// with an ordinary environment (issue 11): `ProcessInfo.environment` copies and parses every
/// variable. Here only the variables below are read, each with one `getenv`, and only once.
/// A process that sets one of them itself (`setenv`) must do so before its first keychain call;
/// test suites that change them call `KeychainRegistry.reloadConfiguration()` (package-visible).
///
/// | variable | what it sets |
/// |---|---|
/// | `KEYCHAINKIT_KEYCHAIN` | ``defaultKeychainPath`` (relative paths resolved against the working directory at first use) |
/// | `XDG_DATA_HOME`, `HOME` | the default path when `KEYCHAINKIT_KEYCHAIN` is unset |
/// | `KEYCHAINKIT_APP_ID`, `KEYCHAINKIT_ACCESS_GROUPS` | ``accessGroups`` |
/// | `KEYCHAINKIT_DEVICE_KEY_FILE`, `XDG_STATE_HOME` | ``deviceKeyPath`` |
/// | `KEYCHAINKIT_ROLLBACK_ANCHOR` | ``rollbackAnchorDirectory`` |
/// | `KEYCHAINKIT_PASSWORD_FILE`, `CREDENTIALS_DIRECTORY` | ``unlockSource`` (the file itself is read when a keychain is opened, never kept) |
/// | `KEYCHAINKIT_SESSION_KEYRING` | ``sharesUnlockWithSession`` (`off` disables sharing) |
/// | `KEYCHAINKIT_REQUIRE` | ``storageRequirement`` |
/// | `KEYCHAINKIT_PINENTRY`, `KEYCHAINKIT_PINENTRY_TTY`, `GPG_TTY`, `DISPLAY`, `WAYLAND_DISPLAY`, `PATH`, `DBUS_SYSTEM_BUS_ADDRESS` | ``authenticator`` |
package struct KeychainConfiguration: Sendable {
    /// The default keychain's path (`KEYCHAINKIT_KEYCHAIN`, else the XDG path).
    package var defaultKeychainPath: String
    /// The access groups this process is entitled to.
    package var accessGroups: AccessGroups
    /// Where the device key lives.
    package var deviceKeyPath: String
    /// The rollback anchors' directory, or nil (rollback detection off).
    package var rollbackAnchorDirectory: String?
    /// The file whose content unlocks keychains (`KEYCHAINKIT_PASSWORD_FILE`, else the systemd
    /// credential `keychainkit.password`), or nil.
    package var passwordFilePath: String? { unlockSource?.path }
    /// Where that file comes from.
    package var unlockSource: HeadlessUnlockSource?
    /// The least protection a keychain needs before it is created or used (`KEYCHAINKIT_REQUIRE`), or nil.
    package var storageRequirement: StorageRequirement?
    /// Whether unlocks may be shared through the kernel keyring (unless `KEYCHAINKIT_SESSION_KEYRING=off`).
    package var sharesUnlockWithSession: Bool
    /// How the owner is asked for a password (pinentry) or a fingerprint (fprintd).
    package var authenticator: OwnerAuthenticator

    /// The names of every variable read, for ``fromProcessEnvironment()``.
    static let variableNames = [
        "KEYCHAINKIT_KEYCHAIN", "XDG_DATA_HOME", "HOME", "KEYCHAINKIT_APP_ID", "KEYCHAINKIT_ACCESS_GROUPS",
        "KEYCHAINKIT_DEVICE_KEY_FILE", "XDG_STATE_HOME", "KEYCHAINKIT_ROLLBACK_ANCHOR", "KEYCHAINKIT_PASSWORD_FILE",
        "KEYCHAINKIT_SESSION_KEYRING", "CREDENTIALS_DIRECTORY",
        "KEYCHAINKIT_REQUIRE",
    ]

    /// The configuration `environment` describes, with `authenticator` for prompts.
    package init(environment: [String: String], authenticator: OwnerAuthenticator) {
        defaultKeychainPath = KeychainLocation.environmentPath(environment)
        accessGroups = AccessGroups.fromEnvironment(environment)
        deviceKeyPath = KeychainLocation.deviceKeyPath(environment)
        rollbackAnchorDirectory = KeychainLocation.rollbackAnchorDirectory(environment)
        unlockSource = HeadlessUnlockSource.fromEnvironment(environment)
        storageRequirement = StorageRequirement.fromEnvironment(environment)
        sharesUnlockWithSession = environment["KEYCHAINKIT_SESSION_KEYRING"]?.lowercased() != "off"
        self.authenticator = authenticator
    }

    /// The configuration of this process's environment now: only the variables listed above,
    /// each read with `getenv` (not `ProcessInfo.environment`, which copies the whole environment).
    package static func fromProcessEnvironment() -> KeychainConfiguration {
        var environment: [String: String] = [:]
        for name in variableNames {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return KeychainConfiguration(environment: environment, authenticator: .fromEnvironment())
    }

    /// The password in ``passwordFilePath`` (one trailing newline removed), or nil if none is set.
    /// Read at each call, never kept in memory between calls.
    package func passwordFromFile() throws(KeychainStoreError) -> Data? {
        try unlockSource?.password()
    }
}
