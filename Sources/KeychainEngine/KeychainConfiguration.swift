#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainPrimitives
import KeychainStore
import KeychainVocabulary

/// Everything a process's keychain calls and KeychainKit's tools take from its environment, read
/// **once per process**, at the first keychain call that needs it (`KeychainRegistry.configuration`),
/// the way an Apple app's entitlements are fixed when it starts. This is the one interpreter of
/// KeychainKit's variables: every other part gets their values from here (the tools, the access log
/// and the Secret Service provider through `KeychainServicesExtras`).
///
/// Reading the environment on every call was a third of a `SecItemCopyMatching` in a process
/// with an ordinary environment: `ProcessInfo.environment` copies and parses every
/// variable. Here only the variables below are read (``variableNames``, through
/// `ProcessEnvironment`), each with one `getenv`, and only once. A process that sets one of them
/// itself (`setenv`) must do so before its first keychain call; test suites that change them call
/// `KeychainRegistry.reloadConfiguration()` (package-visible).
///
/// | variable | what it sets |
/// |---|---|
/// | `KEYCHAINKIT_KEYCHAIN` | ``defaultKeychainPath`` (relative paths resolved against the working directory at first use) |
/// | `XDG_DATA_HOME`, `HOME` | the default path when `KEYCHAINKIT_KEYCHAIN` is unset |
/// | `KEYCHAINKIT_APP_ID`, `KEYCHAINKIT_ACCESS_GROUPS` | ``accessGroups``, ``accessGroups(ofExecutable:)`` |
/// | `KEYCHAINKIT_DEVICE_KEY_FILE` (else the user database's home, not `HOME`) | ``deviceKeyPath`` |
/// | `XDG_STATE_HOME`, `HOME` | ``earlierDeviceKeyPaths`` (where an existing keychain's key may also be) |
/// | `KEYCHAINKIT_ROLLBACK_ANCHOR` | ``rollbackAnchorDirectory`` |
/// | `KEYCHAINKIT_PASSWORD_FILE`, `CREDENTIALS_DIRECTORY` | ``unlockSource`` (the file itself is read when a keychain is opened, never kept) |
/// | `KEYCHAINKIT_SESSION_KEYRING` | ``sharesUnlockWithSession`` (`off` disables sharing) |
/// | `KEYCHAINKIT_REQUIRE` | ``storageRequirement`` |
/// | `KEYCHAINKIT_SERVICE_SOCKET` | ``serviceSocketPath`` (SecItem calls go to the keychain service there; unset: the installed socket if any; `off`: embedded) |
/// | `KEYCHAINKIT_PINENTRY`, `KEYCHAINKIT_PINENTRY_TTY`, `GPG_TTY`, `DISPLAY`, `WAYLAND_DISPLAY`, `PATH` | ``authenticator``'s pinentry (fprintd's bus is `DBUS_SYSTEM_BUS_ADDRESS`, read by the D-Bus client) |
/// | `KEYCHAINKIT_TESTING_KDF` | ``testingKDFRequested`` (`1`: keychainctl's cheap key derivation, test suites only) |
/// | `KEYCHAINKIT_ACCESS_LOG_MAX_BYTES`, `KEYCHAINKIT_ACCESS_LOG_FILES` | ``accessLog`` (rotation limits) |
/// | `KEYCHAINKIT_ACCESS_LOG_SYNC_MS` | ``accessLog`` (the Secret Service provider's and the keychain service's sync bound; `0`: every read synced) |
/// | `KEYCHAINKIT_ACCESS_LOG_TEST_KILL` | ``accessLog`` (`1`: debug builds' killed-writer hook, test suites only) |
/// | `KEYCHAINKIT_ETCD_PASSWORD` | ``etcdPassword`` (`keychainctl sync` with an etcd user) |
package struct KeychainConfiguration: Sendable {
    /// The default keychain's path (`KEYCHAINKIT_KEYCHAIN`, else the XDG path).
    package var defaultKeychainPath: String
    /// The access groups this process is entitled to.
    package var accessGroups: AccessGroups
    /// Where the device key lives: `KEYCHAINKIT_DEVICE_KEY_FILE`, else
    /// `~/.local/state/keychainkit/device.key` with `~` the home the user database gives this
    /// user (`AccountHome`), so that every process of the user finds the same key whatever its
    /// `HOME` (git or Docker run with another one, `sudo -E`, a systemd service, `env -i`); `$HOME`
    /// only when the user database has no usable home.
    package var deviceKeyPath: String
    /// Where an existing keychain's device key may also be, read only (without
    /// `KEYCHAINKIT_DEVICE_KEY_FILE`): `$XDG_STATE_HOME/keychainkit/device.key` and
    /// `$HOME/.local/state/keychainkit/device.key`, where earlier versions created it.
    package var earlierDeviceKeyPaths: [String]
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
    /// Whether `KEYCHAINKIT_TESTING_KDF=1` asks the command-line tools for the deliberately cheap
    /// key derivation (test suites only; applications never get it from the environment).
    package var testingKDFRequested: Bool
    /// The access log's rotation limits and test hook.
    package var accessLog: AccessLogConfiguration
    /// The etcd user's password from `KEYCHAINKIT_ETCD_PASSWORD`, or nil.
    package var etcdPassword: ConfiguredSecret?
    /// Where `keychainctl service install` puts the keychain service's socket (a systemd socket unit).
    package static let installedServiceSocketPath = "/run/keychainkit/service.sock"

    /// The service's socket for the `KEYCHAINKIT_SERVICE_SOCKET` value `setting`: `off` is the
    /// embedded mode; a path is that socket; unset, the installed socket when there is one.
    static func serviceSocket(setting: String?) -> String? {
        if let setting { return setting.lowercased() == "off" ? nil : setting }
        var info = stat()
        guard lstat(installedServiceSocketPath, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return installedServiceSocketPath
    }

    /// The keychain service's socket (`KEYCHAINKIT_SERVICE_SOCKET`, else the installed one at
    /// ``installedServiceSocketPath`` when it exists; `off`: never), or nil: the embedded mode.
    package var serviceSocketPath: String?
    /// `KEYCHAINKIT_ACCESS_GROUPS`' entries (what a client asks the keychain service for).
    package private(set) var listedAccessGroups: [String]
    /// `KEYCHAINKIT_APP_ID` (what a client asks the keychain service for), or nil.
    package private(set) var applicationIdentifier: String?

    /// The names of every variable read, for ``fromProcessEnvironment()``.
    static let variableNames = [
        KeychainVariable.keychain, "XDG_DATA_HOME", "HOME", KeychainVariable.applicationIdentifier, KeychainVariable.accessGroups,
        KeychainVariable.deviceKeyFile, "XDG_STATE_HOME", KeychainVariable.rollbackAnchor, KeychainVariable.passwordFile,
        KeychainVariable.sessionKeyring, "CREDENTIALS_DIRECTORY", KeychainVariable.require, KeychainVariable.serviceSocket,
        KeychainVariable.pinentry, KeychainVariable.pinentryTerminal, "GPG_TTY", "DISPLAY", "WAYLAND_DISPLAY", "PATH",
        KeychainVariable.testingKDF, KeychainVariable.accessLogMaximumBytes, KeychainVariable.accessLogFiles,
        KeychainVariable.accessLogTestKill, KeychainVariable.accessLogSyncMilliseconds, KeychainVariable.etcdPassword,
    ]

    /// The configuration `environment` describes, with `authenticator` for prompts; `accountHome`
    /// is the user database's home of this user (nil: none usable), where the device key lives.
    package init(environment: [String: String], authenticator: OwnerAuthenticator, accountHome: String? = AccountHome.current()) {
        /// The value of `name`, or nil when it is unset or empty.
        func setting(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        /// `XDG_…_HOME` when it is an absolute path (the XDG spec ignores relative ones), else `~/fallback`.
        func xdgDirectory(_ name: String, fallback: String) -> String {
            environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? ((setting("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/" + fallback)
        }
        defaultKeychainPath = setting(KeychainVariable.keychain).map(KeychainLocation.absolute)
            ?? xdgDirectory("XDG_DATA_HOME", fallback: ".local/share") + "/keychainkit/login.keychain-db"
        // Outside the keychain's folder, so copying the keychain folder does not copy the device
        // key; and not found through the environment, which differs between a user's processes.
        let stateFolder = "/.local/state/keychainkit/device.key"
        if let explicit = setting(KeychainVariable.deviceKeyFile) {
            deviceKeyPath = KeychainLocation.absolute(explicit)
            earlierDeviceKeyPaths = []
        } else {
            let primary = (accountHome ?? setting("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path) + stateFolder
            var earlier: [String] = []
            for candidate in [xdgDirectory("XDG_STATE_HOME", fallback: ".local/state") + "/keychainkit/device.key",
                              (setting("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path) + stateFolder]
            where candidate != primary && !earlier.contains(candidate) {
                earlier.append(candidate)
            }
            deviceKeyPath = primary
            earlierDeviceKeyPaths = earlier
        }
        rollbackAnchorDirectory = setting(KeychainVariable.rollbackAnchor).map(KeychainLocation.absolute)
        listedAccessGroups = environment[KeychainVariable.accessGroups].map { $0.split(separator: ",").map(String.init) } ?? []
        applicationIdentifier = setting(KeychainVariable.applicationIdentifier)
        accessGroups = AccessGroups.entitled(listed: listedAccessGroups, applicationIdentifier: applicationIdentifier,
                                             executableName: AccessGroups.executableName)
        unlockSource = HeadlessUnlockSource.find(passwordFile: setting(KeychainVariable.passwordFile),
                                                 credentialsDirectory: environment["CREDENTIALS_DIRECTORY"])
        storageRequirement = StorageRequirement.named(setting(KeychainVariable.require))
        serviceSocketPath = Self.serviceSocket(setting: setting(KeychainVariable.serviceSocket))
        sharesUnlockWithSession = environment[KeychainVariable.sessionKeyring]?.lowercased() != "off"
        self.authenticator = authenticator
        testingKDFRequested = environment[KeychainVariable.testingKDF] == "1"
        accessLog = AccessLogConfiguration(
            maximumFileSize: .read(KeychainVariable.accessLogMaximumBytes, from: environment, in: 4096...(1 << 40),
                                   expected: "a size in bytes of at least 4096"),
            rotatedFiles: .read(KeychainVariable.accessLogFiles, from: environment, in: 1...100,
                                expected: "a number of files from 1 to 100"),
            killsWriterMidAppend: environment[KeychainVariable.accessLogTestKill] == "1",
            syncBoundMilliseconds: .read(KeychainVariable.accessLogSyncMilliseconds, from: environment, in: 0...60_000,
                                         expected: "a number of milliseconds from 0 to 60000"))
        etcdPassword = environment[KeychainVariable.etcdPassword].map(ConfiguredSecret.init)
    }

    /// The configuration of this process's environment now: only the variables listed above,
    /// each read with `getenv` (not `ProcessInfo.environment`, which copies the whole environment).
    package static func fromProcessEnvironment() -> KeychainConfiguration {
        let environment = ProcessEnvironment.values(of: variableNames)
        return KeychainConfiguration(environment: environment,
                                     authenticator: OwnerAuthenticator(pinentry: pinentry(environment), biometry: .fromEnvironment()))
    }

    /// The prompt `environment` configures: `KEYCHAINKIT_PINENTRY`, else `pinentry` on its `PATH`
    /// when a terminal (`KEYCHAINKIT_PINENTRY_TTY`, else `GPG_TTY`, else standard input) or a
    /// display exists; nil when no prompt can be shown.
    static func pinentry(_ environment: [String: String]) -> PinentryConfiguration? {
        PinentryConfiguration.find(
            program: environment[KeychainVariable.pinentry],
            terminal: [environment[KeychainVariable.pinentryTerminal], environment["GPG_TTY"]].lazy.compactMap { $0 }.first { !$0.isEmpty },
            hasDisplay: !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty,
            searchPath: environment["PATH"])
    }

    /// The access groups of a tool whose executable is called `executableName` under this
    /// configuration (the Docker helper's, when keychainctl imports credentials for it): the first
    /// is its default group for adds.
    package func accessGroups(ofExecutable executableName: String) -> AccessGroups {
        AccessGroups.entitled(listed: listedAccessGroups, applicationIdentifier: applicationIdentifier, executableName: executableName)
    }

    /// The password in ``passwordFilePath`` (one trailing newline removed), or nil if none is set.
    /// Read at each call, never kept in memory between calls.
    package func passwordFromFile() throws(KeychainStoreError) -> Data? {
        try unlockSource?.password()
    }
}

/// The names of KeychainKit's own environment variables, in one place: what they mean is
/// ``KeychainConfiguration``'s table. Messages name a variable through these.
package enum KeychainVariable {
    /// The default keychain's path.
    package static let keychain = "KEYCHAINKIT_KEYCHAIN"
    /// The application identifier: the last access group.
    package static let applicationIdentifier = "KEYCHAINKIT_APP_ID"
    /// Comma-separated access groups, the first the default for adds.
    package static let accessGroups = "KEYCHAINKIT_ACCESS_GROUPS"
    /// The device key's path.
    package static let deviceKeyFile = "KEYCHAINKIT_DEVICE_KEY_FILE"
    /// The rollback anchors' directory.
    package static let rollbackAnchor = "KEYCHAINKIT_ROLLBACK_ANCHOR"
    /// A file whose content unlocks keychains.
    package static let passwordFile = "KEYCHAINKIT_PASSWORD_FILE"
    /// `off`: no unlock sharing through the kernel keyring.
    package static let sessionKeyring = "KEYCHAINKIT_SESSION_KEYRING"
    /// The least protection a keychain needs.
    package static let require = "KEYCHAINKIT_REQUIRE"
    /// The keychain service's socket.
    package static let serviceSocket = "KEYCHAINKIT_SERVICE_SOCKET"
    /// The pinentry program.
    package static let pinentry = "KEYCHAINKIT_PINENTRY"
    /// The terminal pinentry draws on.
    package static let pinentryTerminal = "KEYCHAINKIT_PINENTRY_TTY"
    /// `1`: the tools' cheap key derivation (test suites only).
    package static let testingKDF = "KEYCHAINKIT_TESTING_KDF"
    /// The access log's file size before rotation.
    package static let accessLogMaximumBytes = "KEYCHAINKIT_ACCESS_LOG_MAX_BYTES"
    /// The access log's rotated files kept.
    package static let accessLogFiles = "KEYCHAINKIT_ACCESS_LOG_FILES"
    /// `1`: a writer kills itself mid-append (debug builds, test suites only).
    package static let accessLogTestKill = "KEYCHAINKIT_ACCESS_LOG_TEST_KILL"
    /// How many milliseconds a long-lived process may leave an access-log entry before syncing it (0: every read).
    package static let accessLogSyncMilliseconds = "KEYCHAINKIT_ACCESS_LOG_SYNC_MS"
    /// An etcd user's password.
    package static let etcdPassword = "KEYCHAINKIT_ETCD_PASSWORD"
}

/// What the environment says about the access log (the log itself, in KeychainAudit, takes these
/// as parameters: it never reads the environment).
package struct AccessLogConfiguration: Sendable, Equatable {
    /// Bytes per file before it is rotated (`KEYCHAINKIT_ACCESS_LOG_MAX_BYTES`, at least 4096).
    package var maximumFileSize: NumberSetting
    /// Rotated files kept (`KEYCHAINKIT_ACCESS_LOG_FILES`, 1–100).
    package var rotatedFiles: NumberSetting
    /// Debug builds only, for the killed-writer tests (`KEYCHAINKIT_ACCESS_LOG_TEST_KILL=1`): a
    /// writer writes half of its entries and SIGKILLs itself.
    package var killsWriterMidAppend: Bool
    /// How long the Secret Service provider may leave an entry it wrote before syncing it
    /// (`KEYCHAINKIT_ACCESS_LOG_SYNC_MS`, 0–60000; 0: synced before each secret leaves).
    package var syncBoundMilliseconds: NumberSetting
}

/// A whole-number setting as the environment gives it.
package enum NumberSetting: Sendable, Equatable {
    /// Unset or empty: whoever uses it applies its default.
    case unset
    /// A number within the allowed range.
    case value(Int)
    /// Not a number, or out of range: whoever uses it refuses to work (a typo must not pass
    /// silently), with an error naming the variable, its value and what it must be.
    case refused(name: String, value: String, expected: String)

    /// The setting of variable `name` in `environment`, which must be a number in `range`
    /// (`expected` says so in words).
    static func read(_ name: String, from environment: [String: String], in range: ClosedRange<Int>, expected: String) -> NumberSetting {
        guard let text = environment[name], !text.isEmpty else { return .unset }
        guard let number = Int(text), range.contains(number) else { return .refused(name: name, value: text, expected: expected) }
        return .value(number)
    }
}

/// A secret the environment holds (an etcd password): kept out of descriptions, dumps and
/// reflection, so that printing a configuration never shows it.
package struct ConfiguredSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret.
    package let value: String

    /// Wraps `value`.
    package init(_ value: String) { self.value = value }

    /// A placeholder, never the secret.
    package var description: String { "(secret)" }
    /// A placeholder, never the secret.
    package var debugDescription: String { "(secret)" }
    /// No children: `dump` and `Mirror` show nothing of the secret.
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
