import Foundation
import KeychainTestSupport
import PrivateBusSupport
import RequiredToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// A Secret Service provider on a private session bus, and real clients run against it.
///
/// The bus is a `PrivateBus` (a `dbus-daemon --nofork` in a 0700 directory of its own, with no
/// service directories: nothing can be activated behind the provider's back), answering before
/// anything else starts. Everything else lives in a fresh directory under /tmp: the HOME,
/// XDG_RUNTIME_DIR, XDG_DATA_HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME that the provider and every
/// client get, and our provider's keychain. The provider is
///
/// - `.gnomeKeyring`: `gnome-keyring-daemon --foreground --components=secrets --unlock`, the
///   login password written to its standard input and then closed. On an empty XDG_DATA_HOME this
///   creates the `login` keyring with that password, unlocked, and points the `default` alias at
///   it: no prompt, no display needed.
/// - `.keychainKit`: the built `keychainctl secret-service` (from the folder the test binary runs
///   in, as the keychainctl tests find it, or `KEYCHAINKIT_SS_KEYCHAINCTL`) with `KEYCHAINKIT_KEYCHAIN` and
///   `KEYCHAINKIT_DEVICE_KEY_FILE` in the sandbox and the cheap test KDF
///   (`KEYCHAINKIT_TESTING_KDF=1`).
///
/// The harness returns once `org.freedesktop.secrets` has an owner on the bus. Releasing it (or
/// `stop()`) SIGKILLs the provider and the bus and removes the directory.
public final class SecretServiceHarness: @unchecked Sendable {
    /// A failure to start the bus or the provider, with their logs.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The well-known name a Secret Service provider owns.
    public static let serviceName = "org.freedesktop.secrets"
    /// Debian's Python, which has python3-keyring and python3-secretstorage (not a pyenv one on PATH).
    public static let python = "/usr/bin/python3"
    /// The login keyring's password given to gnome-keyring-daemon (a test value, not a secret).
    static let gnomeLoginPassword = "kk-harness-login"

    /// The folder holding the built tools: the test binary's own folder (`.build/debug`).
    public static var binaries: String { BuiltProducts.folder }

    /// The `keychainctl` our provider runs as: the built one, or `KEYCHAINKIT_SS_KEYCHAINCTL` when
    /// set (to run these clients against another build, e.g. a release one).
    public static let keychainctlPath: String =
        ProcessInfo.processInfo.environment["KEYCHAINKIT_SS_KEYCHAINCTL"] ?? binaries + "/keychainctl"

    public let provider: SecretServiceProvider
    /// The sandbox directory.
    public let directory: String
    /// The private bus, as clients get it in `DBUS_SESSION_BUS_ADDRESS`.
    public let busAddress: String
    /// The environment every client (and the provider) runs with.
    public let environment: [String: String]
    /// `KEYCHAINKIT_KEYCHAIN` of our provider (unused for gnome-keyring).
    public var keychainPath: String { directory + "/keychains/login.keychain-db" }

    private let bus: PrivateBus
    private var daemon: BackgroundProcess?
    /// Variables our provider gets on top of `environment` and `keychainEnvironment`.
    private let providerEnvironment: [String: String]

    /// Starts the bus and `provider`, and waits until the provider owns `org.freedesktop.secrets`.
    /// `providerEnvironment` is added to our provider's environment; `prepare` runs first, with the
    /// sandbox made and the bus answering but no provider started (to create a keychain with a
    /// password, say).
    public init(_ provider: SecretServiceProvider, providerEnvironment: [String: String] = [:],
                preparing prepare: (SecretServiceHarness) throws -> Void = { _ in }) throws {
        self.providerEnvironment = providerEnvironment
        signal(SIGPIPE, SIG_IGN)  // a client that exits before reading its input must not kill the test run
        self.provider = provider
        // A provider started before the bus answers cannot connect, and gnome-keyring-daemon then
        // keeps running without ever owning the name: the bus comes first.
        bus = try PrivateBus()
        busAddress = bus.address
        var template = Array("/tmp/kk-ss-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        directory = String(cString: created)
        environment = [
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": directory + "/home",
            "XDG_RUNTIME_DIR": directory + "/run",
            "XDG_DATA_HOME": directory + "/data",
            "XDG_CONFIG_HOME": directory + "/config",
            "XDG_CACHE_HOME": directory + "/cache",
            "DBUS_SESSION_BUS_ADDRESS": busAddress,
            // Python keyring: the Secret Service backend, whatever else is installed.
            "PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring",
            "PYTHONNOUSERSITE": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "NO_AT_BRIDGE": "1",
        ]
        do {
            for name in ["home", "run", "data", "config", "cache"] {
                try FileManager.default.createDirectory(atPath: "\(directory)/\(name)", withIntermediateDirectories: false,
                                                        attributes: [.posixPermissions: 0o700])
            }
            try prepare(self)
            try startProvider()
        } catch {
            let logs = "--- dbus-daemon\n\(bus.log)" + (daemon.map { "\n--- \($0.name)\n\($0.log)" } ?? "")
            stop()
            throw Failure(description: "\(error)\n\(logs)")
        }
    }

    deinit {
        stop()
    }

    /// SIGKILLs the provider and the bus, and removes the sandbox.
    public func stop() {
        daemon?.kill()
        bus.stop()
        daemon = nil
        try? FileManager.default.removeItem(atPath: directory)  // test cleanup only
    }

    /// Whether the provider is still running (it must survive every scenario, malformed calls too).
    public var providerIsRunning: Bool { daemon?.isRunning ?? false }

    /// The provider's output so far (for failure messages).
    public var providerLog: String { daemon?.log ?? "" }

    /// SIGKILLs the provider (no chance to save anything), leaving the bus and the sandbox's files,
    /// and returns once the bus has seen it go. The signal reaches the provider through its process
    /// group; it runs under `timeout` and `setpriv`, so it is not a child of ours to wait for, and
    /// until the kernel has closed its connection the bus still lists it as the name's owner (a
    /// test that asked at once failed under load). Throws if the name is still owned after 30 s:
    /// the provider did not die, or something took the name in its place.
    public func killProvider() throws {
        daemon?.kill()
        let deadline = Date().addingTimeInterval(30)
        while try nameHasOwner(Self.serviceName) {
            if !bus.isRunning { throw Failure(description: "dbus-daemon exited while the provider was being killed") }
            if Date() > deadline { throw Failure(description: "\(Self.serviceName) still has an owner 30 s after the provider was killed") }
            usleep(20_000)
        }
    }

    /// Starts the provider again on the same files (after `killProvider()`), as a user's next login would.
    public func restartProvider() throws {
        try killProvider()
        do {
            try startProvider()
        } catch {
            throw Failure(description: "\(error)\n--- provider\n\(providerLog)")
        }
    }

    /// Starts the provider (again) and waits until it owns `org.freedesktop.secrets`.
    private func startProvider() throws {
        switch provider {
        case .gnomeKeyring:
            daemon = try BackgroundProcess(name: "gnome-keyring-daemon",
                                           arguments: ["/usr/bin/gnome-keyring-daemon", "--foreground", "--components=secrets", "--unlock"],
                                           environment: environment, logPath: "\(directory)/provider.log",
                                           stdin: Array(Self.gnomeLoginPassword.utf8))
        case .keychainKit:
            daemon = try BackgroundProcess(name: "keychainctl secret-service",
                                           arguments: [Self.keychainctlPath, "secret-service"],
                                           environment: environment.merging(keychainEnvironment) { _, new in new }
                                               .merging(providerEnvironment) { _, new in new },
                                           logPath: "\(directory)/provider.log")
        }
        // Generous: CI machines have two cores shared by parallel tests.
        try waitUntil("\(Self.serviceName) has an owner", seconds: 90) { try nameHasOwner(Self.serviceName) }
    }

    /// Where our provider (and `keychainctl` run by a test) find the sandbox's keychain.
    public var keychainEnvironment: [String: String] {
        ["KEYCHAINKIT_KEYCHAIN": keychainPath,
         "KEYCHAINKIT_DEVICE_KEY_FILE": directory + "/state/device.key",
         "KEYCHAINKIT_TESTING_KDF": "1"]
    }

    /// Polls `condition` every 50 ms for up to `seconds`; fails at once if the bus or the provider exits.
    private func waitUntil(_ what: String, seconds: Double = 30, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if try condition() { return }
            if !bus.isRunning { throw Failure(description: "dbus-daemon exited before \(what)") }
            if let daemon, !daemon.isRunning { throw Failure(description: "\(daemon.name) exited before \(what)") }
            if Date() > deadline { throw Failure(description: "timed out waiting until \(what)") }
            usleep(50_000)
        }
    }

    /// Asks the bus whether `name` has an owner (false while the bus is not up yet).
    public func nameHasOwner(_ name: String) throws -> Bool {
        let reply = try run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus.NameHasOwner", "string:\(name)"], timeout: 5)
        return reply.status == 0 && reply.stdout.contains("boolean true")
    }

    /// Runs a client: `argv[0]` is an absolute path; `stdin` is its whole standard input (secrets
    /// go this way, never in `argv`).
    public func run(_ argv: [String], stdin: [UInt8]? = nil, environment extra: [String: String] = [:], timeout: Double = 60) throws -> ClientRun {
        try ClientRun.run(argv, environment: environment.merging(extra) { _, new in new }, stdin: stdin, timeout: timeout)
    }

    /// Runs `secret-tool` with `arguments`.
    public func secretTool(_ arguments: [String], stdin: [UInt8]? = nil) throws -> ClientRun {
        try run(["/usr/bin/secret-tool"] + arguments, stdin: stdin)
    }

    /// Runs a Python program (given as source text, no secret in it) with Debian's python3.
    public func python(_ source: String, _ arguments: [String] = [], stdin: [UInt8]? = nil) throws -> ClientRun {
        try RequiredTool.require([.python3, .pythonKeyring, .pythonSecretStorage])
        return try run([Self.python, "-c", source] + arguments, stdin: stdin)
    }

    /// Runs the built `keychainctl` on the sandbox's keychain (our provider's store).
    public func keychainctl(_ arguments: [String], stdin: [UInt8]? = nil) throws -> ClientRun {
        try run([Self.keychainctlPath] + arguments, stdin: stdin, environment: keychainEnvironment)
    }
}
