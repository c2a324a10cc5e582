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

/// A keychain call refused: the `OSStatus` Apple's `SecKeychain…` functions return for it, and
/// the store's error behind it when there is one (the Apple edge records it for the caller's tools).
package struct KeychainCallFailure: Error, Sendable, Equatable {
    /// The `OSStatus` to return.
    package let status: Int32
    /// Why, when the store (or this service) knows more than the status says.
    package let failure: KeychainStoreError?

    /// A refusal with `status`, and its cause when known.
    package init(status: Int32, failure: KeychainStoreError? = nil) {
        self.status = status
        self.failure = failure
    }
}

/// Keychain files' lifecycle — open, create, unlock, lock, delete, change the password, the
/// auto-lock settings — with the unlock shared through the kernel keyring (`SessionKeyring`) and
/// the headless unlock from a password file: to Apple's `SecKeychain…` functions what
/// `SecItemEngine` is to `SecItem…`. It also picks the keychain (and its `SecItemEngine`) a SecItem
/// call works on. The Apple edge only translates pointers and Apple's types to these calls.
///
/// Every call works on the one ``KeychainRegistry`` it was made with (its keychains and
/// configuration); the C API's is `KeychainLifecycle.apple`, which owns the process's registry.
/// Paths are made absolute; nil names the default keychain.
///
/// A call that names a keychain never creates one, except ``create(at:password:)`` and an item
/// engine asked for with `creatingDefault` (SecItemAdd on the default keychain).
package final class KeychainLifecycle: Sendable {
    /// The keychains and configuration this service works on.
    package let registry: KeychainRegistry
    private let accessControlObject: @Sendable (AccessControlPolicy) -> Any
    private let defaultEngine = DefaultItemEngineCache()

    /// A service over `registry`. `accessControlObject` builds the value item engines return
    /// under `kSecAttrAccessControl` (the Apple edge passes its `SecAccessControl`).
    package init(registry: KeychainRegistry,
                 accessControlObject: @escaping @Sendable (AccessControlPolicy) -> Any = { $0 }) {
        self.registry = registry
        self.accessControlObject = accessControlObject
    }

    /// Apple's statuses these calls return besides the store's (`errSecNoSuchKeychain`, …),
    /// from the one status table.
    private enum CallStatus {
        static let noSuchKeychain = KeychainStatus.noSuchKeychain.rawValue
        static let invalidKeychain = KeychainStatus.invalidKeychain.rawValue
        static let duplicateKeychain = KeychainStatus.duplicateKeychain.rawValue
        static let interactionNotAllowed = KeychainStatus.interactionNotAllowed.rawValue
        static let io = KeychainStatus.io.rawValue
        static let itemNotFound = KeychainStatus.itemNotFound.rawValue
    }

    // MARK: Paths

    /// The default keychain's path (``KeychainRegistry/setDefaultKeychainPath(_:)``, else the configuration's).
    package var defaultKeychainPath: String { registry.defaultKeychainPath }

    /// Makes `path` the default keychain for this process; nil returns to the configuration's.
    package func setDefaultKeychain(_ path: String?) { registry.setDefaultKeychainPath(path) }

    /// `path` made absolute, or the default keychain's path when nil.
    package func resolve(_ path: String?) -> String {
        path.map(KeychainLocation.absolute) ?? registry.defaultKeychainPath
    }

    // MARK: Lifecycle

    /// Creates the keychain file at `path` with `password` (none when nil or empty) and leaves it
    /// unlocked, for every process of the user. An existing file is `errSecDuplicateKeychain`;
    /// `KEYCHAINKIT_REQUIRE` is checked before anything is written.
    package func create(at path: String, password: Data?) throws(KeychainCallFailure) {
        let path = KeychainLocation.absolute(path)
        if FileManager.default.fileExists(atPath: path) { throw KeychainCallFailure(status: CallStatus.duplicateKeychain) }
        try perform { () throws(KeychainStoreError) in
            if let requirement = registry.configuration.storageRequirement {
                try requirement.check((password?.isEmpty ?? true) ? .none : .password, path: path, creating: true)
            }
            let database = try KeychainDatabase.open(path: path, password: password, options: registry.options(createIfMissing: true))
            registry.register(database)
            try publishUnlock(of: database)
        }
    }

    /// Creates the keychain file at `path` with the configured password (`KEYCHAINKIT_PASSWORD_FILE`,
    /// the systemd credential): what `SecKeychainCreate` with `promptUser` does here, where there is
    /// no dialog. Without a configured source `errSecUnimplemented`; a source that is refused (its
    /// file readable by others, missing) is reported with the file, the cause and the fix, and
    /// nothing is created.
    package func createWithConfiguredPassword(at path: String) throws(KeychainCallFailure) {
        guard let source = registry.configuration.unlockSource,
              var password = try perform({ () throws(KeychainStoreError) in try registry.configuration.passwordFromFile() })
        else { throw KeychainCallFailure(status: KeychainStatus.unimplemented.rawValue) }
        defer { password.resetBytes(in: 0..<password.count) }
        guard !password.isEmpty else {
            // An empty file would silently make a keychain without a password.
            let failure = KeychainStoreError.notAvailable("the password file \(source.path) is empty; write the keychain's password "
                                                          + "into it (mode 0600)")
            throw KeychainCallFailure(status: failure.osStatus, failure: failure)
        }
        try create(at: path, password: password)
    }

    /// The configured password (`KEYCHAINKIT_PASSWORD_FILE`, the systemd credential), or nil when
    /// none is configured; a source that is refused is reported with its file, cause and fix.
    package func configuredPassword() throws(KeychainCallFailure) -> Data? {
        try perform { () throws(KeychainStoreError) in try registry.configuration.passwordFromFile() }
    }

    /// Unlocks the keychain at `path` (the default when nil) with `password`; with nil, with the
    /// password file's (`KEYCHAINKIT_PASSWORD_FILE`), or without one for a keychain that has no
    /// password. Without a password file, a password-protected keychain that is locked is
    /// `errSecInteractionNotAllowed` (there is no unlock dialog) and one already unlocked is left
    /// as it is. The unlock is shared with the user's other processes.
    package func unlock(_ path: String?, password: Data?) throws(KeychainCallFailure) {
        let database = try existingKeychain(path)
        let needsInteraction = try perform { () throws(KeychainStoreError) -> Bool in
            if let password {
                try database.unlock(password: password)
            } else if let fromFile = try registry.configuration.passwordFromFile() {
                try database.unlock(password: fromFile)
            } else if try database.status.isUnlocked {
                return false
            } else if try database.status.hasPassword {
                return true
            } else {
                try database.unlock(password: nil)
            }
            try publishUnlock(of: database)
            return false
        }
        if needsInteraction { throw KeychainCallFailure(status: CallStatus.interactionNotAllowed) }
    }

    /// Locks the keychain at `path` (the default when nil), and withdraws its unlock from the session.
    package func lock(_ path: String?) throws(KeychainCallFailure) {
        lock(try existingKeychain(path))
    }

    /// Locks every keychain this process has open, each withdrawn from the session.
    package func lockAll() {
        for database in registry.openDatabases { lock(database) }
    }

    private func lock(_ database: KeychainDatabase) {
        database.lockKeychain()
        SessionKeyring.withdraw([.whenUnlocked], of: database, sharing: registry.sharesUnlockWithSession)
    }

    /// Whether the keychain at `path` (the default when nil) is unlocked.
    package func isUnlocked(_ path: String?) throws(KeychainCallFailure) -> Bool {
        let database = try existingKeychain(path)
        return try perform { () throws(KeychainStoreError) in try database.status.isUnlocked }
    }

    /// The auto-lock interval in seconds (0: never) stored in the keychain at `path`.
    package func autoLockSeconds(_ path: String?) throws(KeychainCallFailure) -> Int {
        let database = try existingKeychain(path)
        return try perform { () throws(KeychainStoreError) in try database.status.autoLockSeconds }
    }

    /// Stores the auto-lock interval (0: never) in the keychain at `path`.
    package func setAutoLockSeconds(_ seconds: Int, _ path: String?) throws(KeychainCallFailure) {
        let database = try existingKeychain(path)
        try perform { () throws(KeychainStoreError) in try database.setAutoLockTimeout(seconds: seconds) }
    }

    /// Changes the keychain's password (`nil` or empty: none). The session then shares the
    /// keychain's unlock under the new password, or nothing when it has none left.
    package func changePassword(_ path: String?, from oldPassword: Data?, to newPassword: Data?) throws(KeychainCallFailure) {
        let database = try existingKeychain(path)
        try perform { () throws(KeychainStoreError) in
            try database.changePassword(from: oldPassword, to: newPassword)
            if try database.status.hasPassword {
                try publishUnlock(of: database)
            } else {
                SessionKeyring.withdraw(SessionKeyring.Entry.allCases, of: database, sharing: registry.sharesUnlockWithSession)
            }
        }
    }

    /// How the keychain at `path` is protected, judged against the configuration's requirement
    /// (a keychain below it is described, not refused), with that configuration.
    package func storageSecurity(_ path: String?) throws(KeychainCallFailure) -> (StorageSecurity, KeychainConfiguration) {
        let path = resolve(path)
        guard registry.openDatabase(at: path) != nil || FileManager.default.fileExists(atPath: path) else {
            throw missing(path)
        }
        return try perform { () throws(KeychainStoreError) -> (StorageSecurity, KeychainConfiguration) in
            let configuration = registry.configuration
            let database = try registry.database(at: path, enforcingRequirement: false)
            return (try StorageSecurity.of(database, configuration: configuration), configuration)
        }
    }

    /// Deletes the keychain at `path`: its file and WAL files, its shared unlock in the kernel
    /// keyring and, last, its rollback anchor if it has one.
    ///
    /// Only a verified keychain is deleted: the path must name a regular file (not a directory,
    /// not a symlink) that opens as a keychain of this user. Anything else is
    /// `errSecInvalidKeychain` and nothing is removed. A missing file is `errSecNoSuchKeychain`.
    /// The `-wal`/`-shm` files are removed only when they are regular files.
    package func delete(_ path: String) throws(KeychainCallFailure) {
        let path = KeychainLocation.absolute(path)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw KeychainCallFailure(status: errno == ENOENT ? CallStatus.noSuchKeychain : CallStatus.io)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw KeychainCallFailure(status: CallStatus.invalidKeychain) }
        let anchorPath: String?
        do {
            let database = try existingKeychain(path)
            SessionKeyring.withdraw(SessionKeyring.Entry.allCases, of: database, sharing: registry.sharesUnlockWithSession)
            anchorPath = database.rollbackAnchorPath
        } catch {
            throw KeychainCallFailure(status: CallStatus.invalidKeychain)
        }
        registry.forget(path: path)
        for suffix in ["", "-wal", "-shm"] {
            var companion = stat()
            guard lstat(path + suffix, &companion) == 0, companion.st_mode & S_IFMT == S_IFREG else { continue }
            guard unlink(path + suffix) == 0 || errno == ENOENT else { throw KeychainCallFailure(status: CallStatus.io) }
        }
        // Only once the file is gone: an anchor must not disappear while its keychain still exists.
        if let anchorPath, FileManager.default.fileExists(atPath: anchorPath) {
            do { try FileManager.default.removeItem(atPath: anchorPath) } catch { throw KeychainCallFailure(status: CallStatus.io) }
        }
    }

    /// The keychain at `path` (the default when nil), for a call that names it: the open one,
    /// or opened now. A file that does not exist is `errSecNoSuchKeychain`, and nothing is created.
    package func existingKeychain(_ path: String?) throws(KeychainCallFailure) -> KeychainDatabase {
        let path = resolve(path)
        if registry.openDatabase(at: path) == nil, !FileManager.default.fileExists(atPath: path) { throw missing(path) }
        do {
            return try registry.database(at: path, createIfMissing: false)
        } catch {
            // Opening finds no item: "not found" here is the file, gone since it was looked for.
            throw KeychainCallFailure(status: error.osStatus == CallStatus.itemNotFound ? CallStatus.noSuchKeychain : error.osStatus,
                                      failure: error)
        }
    }

    // MARK: Keychains of SecItem calls

    /// The keychain a SecItem call works on.
    package enum ItemKeychain {
        /// The default keychain.
        case defaultKeychain
        /// The keychain a `SecKeychain` names (`kSecUseKeychain`, `kSecMatchSearchList`).
        case named(path: String)
        /// The call named its keychain wrongly (the text says how).
        case invalid(String)
    }

    /// An engine for a SecItem call on `keychain`. Only a call that stores (`creatingDefault`)
    /// creates the default keychain when it is missing; any other call on a missing default
    /// keychain is refused as `errSecItemNotFound` (nothing is stored there), and a named
    /// keychain that does not exist as `errSecNotAvailable`.
    package func itemEngine(_ keychain: ItemKeychain, creatingDefault: Bool) throws(KeychainCallFailure) -> SecItemEngine {
        return try perform { () throws(KeychainStoreError) -> SecItemEngine in
            switch keychain {
            case .defaultKeychain:
                return try defaultEngine.engine(registry: registry, creatingKeychain: creatingDefault) { database in engine(for: database) }
            case .named(let path):
                let path = KeychainLocation.absolute(path)
                if registry.openDatabase(at: path) != nil || path == registry.defaultKeychainPath {
                    return engine(for: try registry.database(at: path, createIfMissing: creatingDefault))
                }
                guard FileManager.default.fileExists(atPath: path) else {
                    throw KeychainStoreError.unusableKeychain("there is no keychain at \(path)")
                }
                return engine(for: try registry.database(at: path))
            case .invalid(let problem):
                throw KeychainStoreError.invalidParameter(problem)
            }
        }
    }

    /// A SecItem call refused before it names a keychain (`errSecParam`), with its cause.
    package func refuseCall(_ problem: String) -> KeychainCallFailure {
        let failure = KeychainStoreError.invalidParameter(problem)
        return KeychainCallFailure(status: failure.osStatus, failure: failure)
    }

    /// An engine over `database` for this registry's access groups and authenticator.
    private func engine(for database: KeychainDatabase) -> SecItemEngine {
        SecItemEngine(database: database, accessGroups: registry.accessGroups,
                      authenticator: registry.authenticator(for: database), accessControlObject: accessControlObject)
    }

    // MARK: Shared steps

    /// Shares `database`'s unlock with the user's other processes, and ties it to the session's.
    private func publishUnlock(of database: KeychainDatabase) throws(KeychainStoreError) {
        if try SessionKeyring.publish(database, sharing: registry.sharesUnlockWithSession) { registry.markUnlockSharedWithSession(database) }
    }

    /// `errSecNoSuchKeychain` for `path`, with its cause.
    private func missing(_ path: String) -> KeychainCallFailure {
        KeychainCallFailure(status: CallStatus.noSuchKeychain, failure: .keychainMissing(path))
    }

    /// Runs store calls; a store failure becomes its status, with the error as its cause.
    private func perform<T>(_ body: () throws(KeychainStoreError) -> T) throws(KeychainCallFailure) -> T {
        do {
            return try body()
        } catch {
            throw KeychainCallFailure(status: error.osStatus, failure: error)
        }
    }
}

/// The engine of the default keychain, kept between SecItem calls.
///
/// Finding the default keychain and making an engine for it at every call (its path from the
/// configuration, a look-up by path in the registry, the access groups, the authenticator, a new
/// object) cost several thousand instructions a call (finding the keychain alone 4,800 of a
/// 217,000-instruction read). What it yields changes only when one of the registry's
/// settings does, which ``KeychainRegistry/settingsGeneration`` reports; the session's unlock,
/// which can change at any moment, is still followed at every call.
private final class DefaultItemEngineCache: @unchecked Sendable {
    private let lock = ThreadLock()
    private var cached: (generation: UInt64, engine: SecItemEngine)?

    func engine(registry: KeychainRegistry, creatingKeychain: Bool,
                make: (KeychainDatabase) -> SecItemEngine) throws(KeychainStoreError) -> SecItemEngine {
        // Read before the keychain is resolved: a change made meanwhile makes the next call
        // resolve again instead of keeping an engine derived from older settings.
        let generation = registry.settingsGeneration
        // A keychain whose file was deleted or replaced is resolved again (the registry refuses
        // the path, or opens what it names now), once a call on it has reported the replacement.
        if let cached = lock.withLock({ cached }), cached.generation == generation, !cached.engine.database.wasReplaced {
            try registry.followSession(cached.engine.database)
            return cached.engine
        }
        let engine = make(try registry.database(at: registry.defaultKeychainPath, createIfMissing: creatingKeychain))
        lock.withLock { cached = (generation, engine) }
        return engine
    }
}
