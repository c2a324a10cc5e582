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

/// Keychain paths as the registry keeps them: absolute. (The default keychain is an explicit
/// Swift call's, else ``KeychainConfiguration``'s: the environment's, else the XDG default.)
package enum KeychainLocation {
    /// Makes a relative path absolute against the working directory.
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }
}

/// The keychains one configuration has open, one `KeychainDatabase` per path, so that every
/// handle on one file shares its lock state (as `securityd` does on macOS), and that
/// configuration (default keychain, access groups; read once, at first use, from the value
/// it was made with).
///
/// A registry is a value its owner passes down, as GRDB's `DatabaseQueue(path:configuration:)`
/// takes its `Configuration`: nothing in the engine reads a process-wide one. The Apple C edge
/// (`KeychainLifecycle.apple` in KeychainServicesPortable) owns the process's registry, read from
/// the environment; the keychain service, tests and tools make their own.
package final class KeychainRegistry: @unchecked Sendable {
    private let lock = ThreadLock()
    private var databases: [String: KeychainDatabase] = [:]
    /// Keychains whose unlock in this process is the session's (published or adopted).
    private var sessionBackedPaths: Set<String> = []
    /// Paths whose open keychain file was deleted under this process: refused, never created
    /// again by a call, until a keychain exists there again (`SecKeychainCreate` here, or
    /// `keychainctl create-keychain` or a restored file from anywhere).
    private var deletedPaths: Set<String> = []
    private var configuredDefaultPath: String?
    private var configuredAccessGroups: AccessGroups?
    private var allowTestingKDF = false
    private var testingKDFForNewKeychains = false
    /// Authenticators set for particular keychain files, by absolute path.
    private var keychainAuthenticators: [String: OwnerAuthenticator] = [:]
    /// The environment's configuration, read at first use (nil until then, and after a reload).
    private var environmentConfiguration: KeychainConfiguration?
    private let readConfiguration: @Sendable () -> KeychainConfiguration
    /// Moves whenever something a SecItem call derives from the registry may have changed (the
    /// default keychain, the access groups, an authenticator, the configuration, the open
    /// keychains), so that a caller may keep what it derived until it moves.
    private var generation: UInt64 = 0

    /// Whether the write-ahead logs of this registry's keychains are emptied when the process exits.
    private let checkpointsAtExit: Bool

    /// A registry whose configuration comes from `readConfiguration`, called at first use and
    /// after each ``reloadConfiguration()`` (the process's registry passes
    /// `KeychainConfiguration.fromProcessEnvironment`). With `checkpointsAtExit`, the keychains it
    /// holds have their write-ahead log emptied when the process exits normally
    /// (``checkpointOpenKeychains(waitingAtMost:)``): for the process's registry, whose keychains
    /// live as long as the process.
    package init(checkpointsAtExit: Bool = false, readConfiguration: @escaping @Sendable () -> KeychainConfiguration) {
        self.checkpointsAtExit = checkpointsAtExit
        self.readConfiguration = readConfiguration
    }

    /// The configuration from the environment, read once per process at first use
    /// (see ``KeychainConfiguration``). Explicit settings (``setDefaultKeychainPath(_:)``,
    /// ``setAccessGroups(_:)``) take precedence over it.
    package var configuration: KeychainConfiguration {
        lock.withLock { loadedConfiguration() }
    }

    /// The configuration's keychain-service socket (`KEYCHAINKIT_SERVICE_SOCKET`), or nil for the
    /// embedded mode: what every SecItem call reads to pick its route (``configuration``'s, read
    /// without copying the whole configuration out of the lock).
    package var serviceSocketPath: String? {
        lock.withLock {
            loadConfigurationIfNeeded()
            return environmentConfiguration?.serviceSocketPath
        }
    }

    /// Forgets the configuration read from the environment, so that the next call reads it again.
    /// For test suites that change `KEYCHAINKIT_*` variables in their own process; a program sets
    /// its variables before its first keychain call instead.
    package func reloadConfiguration() {
        lock.withLock {
            environmentConfiguration = nil
            generation &+= 1
        }
    }

    /// Reads the environment's configuration if not read yet, so that one setting can be read
    /// from it in place: a copy of the whole configuration (its strings, access groups and
    /// authenticator retained and released) for one setting was twice on every SecItem call's
    /// path. Call with `lock` held.
    private func loadConfigurationIfNeeded() {
        if environmentConfiguration == nil { environmentConfiguration = readConfiguration() }
    }

    /// The environment's configuration, reading it if not read yet. Call with `lock` held.
    private func loadedConfiguration() -> KeychainConfiguration {
        if let environmentConfiguration { return environmentConfiguration }
        let configuration = readConfiguration()
        environmentConfiguration = configuration
        return configuration
    }

    /// Sets how the owner of the keychain file at `path` is asked for passwords (a prompt program
    /// on a given terminal), instead of the environment's; nil returns to the environment. For
    /// test suites that drive a real pinentry on a pseudo-terminal without changing the
    /// process-wide configuration other suites share.
    package func setAuthenticator(_ authenticator: OwnerAuthenticator?, forKeychainAt path: String) {
        lock.withLock {
            keychainAuthenticators[KeychainLocation.absolute(path)] = authenticator
            generation &+= 1
        }
    }

    /// The authenticator SecItem calls on `database` use: the one set for its file, else the
    /// environment's.
    package func authenticator(for database: KeychainDatabase) -> OwnerAuthenticator {
        authenticator(forKeychainAt: database.path)
    }

    /// The authenticator for the keychain file at `path`, which need not exist yet.
    package func authenticator(forKeychainAt path: String) -> OwnerAuthenticator {
        let location = KeychainLocation.absolute(path)
        return lock.withLock { keychainAuthenticators[location] ?? loadedConfiguration().authenticator }
    }

    /// Sets the default keychain (overrides `KEYCHAINKIT_KEYCHAIN`); nil returns to the environment.
    package func setDefaultKeychainPath(_ path: String?) {
        lock.withLock {
            configuredDefaultPath = path.map(KeychainLocation.absolute)
            generation &+= 1
        }
    }

    /// Sets the caller's access groups (overrides the environment); nil returns to the environment.
    package func setAccessGroups(_ groups: [String]?) {
        lock.withLock {
            configuredAccessGroups = groups.map(AccessGroups.init)
            generation &+= 1
        }
    }

    /// Lets keychains be created with, and opened with, the cheap test KDF. For test suites only:
    /// a keychain made this way protects its password far less than a real one.
    package func useTestingKDF(_ enabled: Bool) {
        lock.withLock {
            allowTestingKDF = enabled
            testingKDFForNewKeychains = enabled
        }
    }

    /// The default keychain's path, by precedence.
    package var defaultKeychainPath: String {
        lock.withLock { configuredDefaultPath ?? loadedConfiguration().defaultKeychainPath }
    }

    /// A number that changes whenever the default keychain, the access groups, an authenticator,
    /// the configuration or the set of open keychains changes. What was derived from the registry
    /// while it had one value (a keychain, an engine) may be kept while it keeps it.
    package var settingsGeneration: UInt64 {
        lock.withLock { generation }
    }

    /// The caller's access groups, by precedence.
    package var accessGroups: AccessGroups {
        lock.withLock { configuredAccessGroups ?? loadedConfiguration().accessGroups }
    }

    /// Options for opening or creating a file keychain.
    package func options(createIfMissing: Bool = true) -> KeychainDatabase.Options {
        lock.withLock {
            let configuration = loadedConfiguration()
            var options = KeychainDatabase.Options(deviceKeyPath: configuration.deviceKeyPath,
                                                   newKeychainKDF: testingKDFForNewKeychains ? .testing() : nil,
                                                   allowTestingKDF: allowTestingKDF, createIfMissing: createIfMissing,
                                                   rollbackAnchorDirectory: configuration.rollbackAnchorDirectory)
            options.earlierDeviceKeyPaths = configuration.earlierDeviceKeyPaths
            return options
        }
    }

    /// The open keychain at `path`, opening it (creating it if missing, with the password from
    /// `KEYCHAINKIT_PASSWORD_FILE` or none) on first use. A password file also unlocks it, and so
    /// does an unlock another process of this user published in the kernel keyring (`SessionKeyring`).
    ///
    /// A keychain already open follows the session on every call: while locked here, it adopts an
    /// unlock another process published since; unlocked through the session, it locks again when
    /// the session's unlock is gone (another process locked it, or the auto-lock timeout passed).
    ///
    /// With `KEYCHAINKIT_REQUIRE` set, a keychain below it is refused (`notAvailable`) before it
    /// is created or registered, unless `enforcingRequirement` is false (the storage-security query,
    /// which must be able to describe a weak keychain).
    ///
    /// With `createIfMissing` false (every call that only reads or changes items), a keychain
    /// that does not exist is `.keychainMissing` and nothing is created: no file, no directory.
    ///
    /// A keychain whose file was deleted while this process had it open stays refused
    /// (`.keychainReplaced`) by every call, a storing one too, until a keychain exists at the path
    /// again: a write after the deletion must not silently start a new, empty keychain without
    /// the old one's password.
    package func database(at path: String, enforcingRequirement: Bool = true,
                         createIfMissing: Bool = true) throws(KeychainStoreError) -> KeychainDatabase {
        let path = KeychainLocation.absolute(path)
        if let open = lock.withLock({ databases[path] }) {
            if !open.wasReplaced {
                try followSession(open)
                return open
            }
            // The file this handle had open was deleted or replaced, and a call has already
            // reported it: the handle is dropped, and what the path names now is opened (if
            // nothing, the path stays refused: `deletedPaths`).
            lock.withLock {
                if databases[path] === open { databases[path] = nil }
                sessionBackedPaths.remove(path)
                deletedPaths.insert(path)
                generation &+= 1
            }
        }
        if lock.withLock({ deletedPaths.contains(path) }) {
            guard Self.fileExists(path) else { throw .keychainReplaced(path) }
            _ = lock.withLock { deletedPaths.remove(path) }
        }
        if !createIfMissing, !Self.fileExists(path) { throw .keychainMissing(path) }
        let configuration = self.configuration
        let password = try configuration.passwordFromFile()
        let requirement = enforcingRequirement ? configuration.storageRequirement : nil
        if let requirement, password == nil, !FileManager.default.fileExists(atPath: path) {
            try requirement.check(.none, path: path, creating: true)  // it would be created without a password
        }
        let database = try KeychainDatabase.open(path: path, password: password, options: options(createIfMissing: createIfMissing))
        if let requirement {
            try requirement.check(try StorageSecurity.of(database, configuration: configuration).keySource, path: path, creating: false)
        }
        let adopted = try SessionKeyring.adoptPublishedKeys(into: database, sharing: sharesUnlockWithSession)
        let registered = lock.withLock {
            if let raced = databases[path] { return raced }
            databases[path] = database
            generation &+= 1
            if adopted { sessionBackedPaths.insert(path) }
            return database
        }
        checkpointAtExit()
        return registered
    }

    /// Whether `path` names anything (a symlink too: the open refuses it with its reason).
    private static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 || errno != ENOENT
    }

    /// Marks `database`'s unlock as the session's (it was published or adopted), so that a lock or
    /// timeout of the session's unlock locks it here too. An unlock this process made on its own
    /// (a password file at open, or sharing unavailable) is not tied to the session.
    package func markUnlockSharedWithSession(_ database: KeychainDatabase) {
        _ = lock.withLock { sessionBackedPaths.insert(database.path) }
    }

    /// Brings an open keychain's lock state in line with the session's unlock: a locked keychain
    /// adopts an unlock another process published; one unlocked through the session locks when
    /// that unlock is gone. Nothing when sharing the unlock with the session is off.
    ///
    /// Public for callers that keep a keychain between calls (the SecItem functions keep the
    /// default one while ``settingsGeneration`` stays the same): run it before each use.
    package func followSession(_ database: KeychainDatabase) throws(KeychainStoreError) {
        guard sharesUnlockWithSession else { return }
        if database.isLocked {
            if try SessionKeyring.adoptPublishedKeys(into: database, sharing: true) { markUnlockSharedWithSession(database) }
        } else if lock.withLock({ sessionBackedPaths.contains(database.path) }),
                  !SessionKeyring.isPublished(.whenUnlocked, of: database) {
            database.lockKeychain()
        }
    }

    /// Whether this registry's keychains share their unlock with the user's other processes
    /// through the kernel keyring: its configuration allows it (`KEYCHAINKIT_SESSION_KEYRING`),
    /// and the kernel keyring's system calls exist here.
    package var sharesUnlockWithSession: Bool {
        SystemFacilities.Keyring.isAvailable && lock.withLock {
            loadConfigurationIfNeeded()
            return environmentConfiguration?.sharesUnlockWithSession == true
        }
    }

    /// Registers a keychain opened or created elsewhere (e.g. `SecKeychainCreate`).
    package func register(_ database: KeychainDatabase) {
        lock.withLock {
            databases[database.path] = database
            deletedPaths.remove(database.path)
            generation &+= 1
        }
        checkpointAtExit()
    }

    // MARK: Write-ahead log at exit

    /// Empties the write-ahead log of every keychain this process has open, waiting at most
    /// `milliseconds` for each (see `KeychainDatabase.checkpointAndTruncateLog`), so that the
    /// next process to open them has no log to recover. Runs by itself when the process exits
    /// normally (`exit`, or returning from `main`); a keychain another thread is using then is
    /// left as it is. Returns the paths whose log could not be emptied.
    @discardableResult
    package func checkpointOpenKeychains(waitingAtMost milliseconds: Int32 = 200) -> [String] {
        var left: [String] = []
        for database in openDatabases {
            do {
                if try !database.checkpointAndTruncateLog(waitingAtMost: milliseconds) { left.append(database.path) }
            } catch {
                // Nothing is lost: the log keeps every committed change, and the next process to
                // open the keychain replays it. The caller learns which keychains were left.
                left.append(database.path)
            }
        }
        return left
    }

    /// Registers this registry for the exit handler when it first holds a keychain, if it
    /// ``checkpointsAtExit``. Other registries (tests, served keychains) register none.
    private func checkpointAtExit() {
        guard checkpointsAtExit else { return }
        ExitCheckpoint.register(self)
    }

    /// The keychain at `path` if this process has it open.
    package func openDatabase(at path: String) -> KeychainDatabase? {
        lock.withLock { databases[KeychainLocation.absolute(path)] }
    }

    /// Every keychain this process has open.
    package var openDatabases: [KeychainDatabase] { lock.withLock { Array(databases.values) } }

    /// Forgets the keychain at `path` (after it was deleted).
    package func forget(path: String) {
        lock.withLock {
            databases.removeValue(forKey: KeychainLocation.absolute(path))
            // Deleted on purpose (`SecKeychainDelete`), not under the process: not refused later.
            deletedPaths.remove(KeychainLocation.absolute(path))
            generation &+= 1
        }
    }
}

/// The registries whose keychains are checkpointed when the process exits: one `atexit` handler
/// (a C function pointer, which captures nothing) walks the registries registered here.
private enum ExitCheckpoint {
    private static let lock = ThreadLock()
    nonisolated(unsafe) private static var registries: [ObjectIdentifier: KeychainRegistry] = [:]

    static func register(_ registry: KeychainRegistry) {
        let first: Bool = lock.withLock {
            guard registries[ObjectIdentifier(registry)] == nil else { return false }
            registries[ObjectIdentifier(registry)] = registry
            return registries.count == 1
        }
        if first { atexit { ExitCheckpoint.checkpointAll() } }
    }

    private static func checkpointAll() {
        for registry in lock.withLock({ Array(registries.values) }) { registry.checkpointOpenKeychains() }
    }
}
