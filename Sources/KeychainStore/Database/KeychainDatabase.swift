import Crypto
import Foundation

/// An open keychain: one SQLite file (or a private in-memory database) with its key hierarchy
/// and lock state. Thread-safe: calls are serialised on one connection; several processes may
/// open the same file (SQLite WAL, every write one `BEGIN IMMEDIATE` transaction).
public final class KeychainDatabase: @unchecked Sendable {
    /// How a keychain is opened or created.
    public struct Options: Sendable {
        /// Where the device key lives; nil keeps a random device key in memory (in-memory keychains).
        public var deviceKeyPath: String?
        /// KDF for a keychain created with a password; nil calibrates scrypt on this machine.
        public var newKeychainKDF: PasswordKDF?
        /// Accept files whose KDF is weaker than `PasswordKDF.minimumLogN` (tests only).
        public var allowTestingKDF: Bool
        /// Create the file if it does not exist.
        public var createIfMissing: Bool
        /// A directory outside the keychain file's where its rollback anchor lives; nil turns
        /// rollback detection off for this handle. See `RollbackAnchor` and docs/ARCHITECTURE.md.
        public var rollbackAnchorDirectory: String?

        /// Options for a file keychain with the device key at `deviceKeyPath`.
        public init(deviceKeyPath: String?, newKeychainKDF: PasswordKDF? = nil, allowTestingKDF: Bool = false,
                    createIfMissing: Bool = true, rollbackAnchorDirectory: String? = nil) {
            self.deviceKeyPath = deviceKeyPath
            self.newKeychainKDF = newKeychainKDF
            self.allowTestingKDF = allowTestingKDF
            self.createIfMissing = createIfMissing
            self.rollbackAnchorDirectory = rollbackAnchorDirectory
        }
    }

    /// Whether the keychain is locked and whether it has a password.
    public struct Status: Sendable, Equatable {
        /// The "when unlocked" classes are available.
        public var isUnlocked: Bool
        /// The keychain has a password (otherwise it behaves like a device without a passcode).
        public var hasPassword: Bool
        /// Seconds of inactivity after which the keychain should lock (0 = never), as stored in the file.
        public var autoLockSeconds: Int
    }

    /// The file's path, or `":memory:"`.
    public let path: String
    let connection: SQLiteConnection
    let lock = NSLock()
    var keybag: Keybag
    /// Cached blind-index key (derived from the file key once, HMAC keyed once).
    let indexKey: BlindIndexKey
    private let options: Options
    /// The rollback anchor this handle keeps up to date, once checked at open (nil: detection off).
    var rollbackAnchor: RollbackAnchor?

    private init(path: String, connection: SQLiteConnection, keybag: Keybag, options: Options) {
        self.path = path
        self.connection = connection
        self.keybag = keybag
        self.indexKey = BlindIndexKey(keybag.blindIndexKey)
        self.keychainID = keybag.keychainID  // fixed for the file's life; read without the lock
        self.options = options
    }

    /// Opens the keychain file at `path`, creating it (with `password`, or none) if missing.
    /// A password given for an existing keychain unlocks it.
    public static func open(path: String, password: Data?, options: Options) throws(KeychainStoreError) -> KeychainDatabase {
        let directory = (path as NSString).deletingLastPathComponent
        let exists = try SecureFile.validateExisting(path)
        if !exists {
            guard options.createIfMissing else { throw .unusableKeychain("no keychain at \(path)") }
            try SecureFile.ensureDirectory(directory.isEmpty ? "." : directory)
            try SecureFile.createEmpty(path)
        }
        let deviceKey: SymmetricKey? = try options.deviceKeyPath.map { path throws(KeychainStoreError) in try DeviceKey.loadOrCreate(at: path) }
        return try open(connectionTo: path, deviceKey: deviceKey, password: password, options: options)
    }

    /// A private keychain in memory, gone when released; same engine, same encryption.
    public static func inMemory(password: Data? = nil, options: Options = Options(deviceKeyPath: nil, newKeychainKDF: .testing(), allowTestingKDF: true)) throws(KeychainStoreError) -> KeychainDatabase {
        try open(connectionTo: ":memory:", deviceKey: Sealing.randomKey(), password: password, options: options)
    }

    private static func open(connectionTo path: String, deviceKey: SymmetricKey?, password: Data?, options: Options) throws(KeychainStoreError) -> KeychainDatabase {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, create: true)
        } catch {
            throw KeychainStoreError(error)
        }
        if path != ":memory:", connection.isReadOnly, access(path, W_OK) == 0 {
            // SQLite retried a failed read-write open read-only (an I/O error, not the file's
            // mode): a handle that can never write must not be kept for the process's lifetime.
            throw .io("the keychain file could be opened only read-only")
        }
        connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        // Several processes creating or converting one new file at once can get SQLITE_BUSY
        // without SQLite's busy handler being consulted (switching to WAL, lock upgrades that
        // could deadlock): that state is transient, so the set-up is retried a few times (briefly: a lock held for
        // longer is reported, as errSecIO, like any other busy keychain).
        var attempt = 0
        while true {
            do {
                return try finishOpening(connection, path: path, deviceKey: deviceKey, password: password, options: options)
            } catch where error.isBusy && attempt < 8 {
                attempt += 1
                usleep(useconds_t(attempt * 10_000))  // 10, 20, … 80 ms: at most 0.36 s in all
            }
        }
    }

    private static func finishOpening(_ connection: SQLiteConnection, path: String, deviceKey: SymmetricKey?, password: Data?,
                                      options: Options) throws(KeychainStoreError) -> KeychainDatabase {
        do {
            if path != ":memory:" { try connection.execute("PRAGMA journal_mode = WAL") }
            // FULL: a commit is on disk (WAL fsynced) before SecItem* reports success.
            try connection.execute("PRAGMA synchronous = FULL")
            try connection.execute("PRAGMA secure_delete = ON")
            // Statement journals and temporary tables stay in memory: nothing reaches a temp file.
            try connection.execute("PRAGMA temp_store = MEMORY")
            if path != ":memory:" { try connection.execute(WriteAheadLog.pragmas) }  // bounded WAL (+Checkpoint)
        } catch {
            throw Bootstrap.fileError(error)  // e.g. "unsupported file format": a damaged header
        }
        let keybag = try Bootstrap.loadOrCreate(connection: connection, deviceKey: deviceKey, password: password, options: options)
        let database = KeychainDatabase(path: path, connection: connection, keybag: keybag, options: options)
        if path != ":memory:", let directory = options.rollbackAnchorDirectory {
            try database.checkRollbackAnchor(in: directory)
        }
        if !keybag.hasPassword {
            try database.unlockLocked(password: nil)  // no password: unlocked like a device without a passcode
        } else if let password {
            try database.unlockLocked(password: password)
        } else {
            try database.makeAlwaysClassesAvailable()
        }
        return database
    }

    // MARK: Lock state

    /// The current lock status.
    public var status: Status {
        get throws(KeychainStoreError) {
            try withLock { () throws(KeychainStoreError) in
                Status(isUnlocked: keybag.isUnlocked, hasPassword: keybag.hasPassword,
                       autoLockSeconds: try readAutoLockSeconds())
            }
        }
    }

    /// Whether the "when unlocked" classes are unavailable because the keychain is locked (always
    /// false for a keychain without a password). Reads no file: cheap enough for every call.
    public var isLocked: Bool {
        lock.lock()
        defer { lock.unlock() }
        return keybag.hasPassword && !keybag.isUnlocked
    }

    /// Unlocks with the password (`nil` or empty for a keychain without one).
    /// A wrong password costs a full KDF run and changes nothing on disk.
    public func unlock(password: Data?) throws(KeychainStoreError) {
        try withLock { () throws(KeychainStoreError) in try unlockLocked(password: password) }
    }

    /// Locks: the "when unlocked" classes become unavailable until the next unlock.
    public func lockKeychain() {
        lock.lock()
        defer { lock.unlock() }
        keybag.lock()
    }

    /// Verifies a password without changing the lock state.
    public func verify(password: Data?) throws(KeychainStoreError) {
        try withLock { () throws(KeychainStoreError) in _ = try unwrapPasswordClasses(password: password) }
    }

    /// The unwrapped class keys for export to another process of the same session
    /// (see the kernel-keyring session cache). Only classes that are available now.
    public func availableClassKeys() -> [ProtectionClass: SymmetricKey] {
        lock.lock()
        defer { lock.unlock() }
        return keybag.availableKeys
    }

    /// Makes class keys obtained from another process of the same session available, after
    /// checking each against this file's keybag (a key that does not open its entry is ignored).
    public func adoptClassKeys(_ keys: [ProtectionClass: SymmetricKey]) throws(KeychainStoreError) {
        try withLock { () throws(KeychainStoreError) in
            let stored = try readKeybagEntries()
            var verified: [ProtectionClass: SymmetricKey] = [:]
            for (protection, key) in keys {
                guard let entry = stored[protection], Self.classKey(key, checksAgainst: entry) else { continue }
                verified[protection] = key
            }
            keybag.makeAvailable(verified, unlocked: verified[.whenUnlocked] != nil || verified[.afterFirstUnlock] != nil)
        }
    }

    /// Class keys carry a check value: the keybag row stores, besides the wrapped key, nothing
    /// else — so a candidate key is verified by re-deriving its blind check from the keychain id.
    private static func classKey(_ key: SymmetricKey, checksAgainst entry: KeybagEntry) -> Bool {
        Sealing.constantTimeEquals(entry.check, KeybagEntry.checkValue(of: key))
    }

    func unlockLocked(password: Data?) throws(KeychainStoreError) {
        let keys = try unwrapPasswordClasses(password: password)
        keybag.makeAvailable(keys, unlocked: true)
        try makeAlwaysClassesAvailable()
    }

    private func makeAlwaysClassesAvailable() throws(KeychainStoreError) {
        let stored = try readKeybagEntries()
        var keys: [ProtectionClass: SymmetricKey] = [:]
        for protection in [ProtectionClass.always, .alwaysThisDeviceOnly] {
            guard let entry = stored[protection] else { continue }
            if protection.isThisDeviceOnly && !keybag.deviceKeyMatches { continue }
            keys[protection] = try keybag.unwrap(entry.wrapped, for: protection, passwordKey: nil)
        }
        keybag.makeAvailable(keys, unlocked: false)
    }

    /// Unwraps every password-protected class key with `password`; `.wrongPassword` if it is wrong.
    private func unwrapPasswordClasses(password: Data?) throws(KeychainStoreError) -> [ProtectionClass: SymmetricKey] {
        let passwordKey = try derivePasswordKey(password)
        let stored = try readKeybagEntries()
        var keys: [ProtectionClass: SymmetricKey] = [:]
        // The "when unlocked" class key is the password verifier: GCM's tag check is constant-time.
        guard let verifier = stored[.whenUnlocked] else { throw .undecodable("the keybag (missing class key)") }
        do {
            keys[.whenUnlocked] = try keybag.unwrap(verifier.wrapped, for: .whenUnlocked, passwordKey: passwordKey)
        } catch .undecodable {
            throw .wrongPassword
        }
        for protection in ProtectionClass.allCases where protection.isPasswordProtected && protection != .whenUnlocked {
            guard let entry = stored[protection] else { continue }
            if protection.isThisDeviceOnly && !keybag.deviceKeyMatches { continue }
            keys[protection] = try keybag.unwrap(entry.wrapped, for: protection, passwordKey: passwordKey)
        }
        return keys
    }

    /// The password key for `password`, or nil for a keychain without a password (which only
    /// accepts no password or an empty one).
    func derivePasswordKey(_ password: Data?) throws(KeychainStoreError) -> SymmetricKey? {
        guard let kdf = keybag.passwordKDF else {
            if let password, !password.isEmpty { throw .wrongPassword }
            return nil
        }
        return try kdf.deriveKey(password: password ?? Data())
    }

    // MARK: Password and settings

    /// Changes the password: class keys are re-wrapped, items are not re-encrypted. A nil or
    /// empty `newPassword` removes the password, which destroys the passcode-only class (`akpu`)
    /// and its items, as iOS does when the passcode is turned off.
    public func changePassword(from oldPassword: Data?, to newPassword: Data?) throws(KeychainStoreError) {
        try withLock { () throws(KeychainStoreError) in
            var keys = try unwrapPasswordClasses(password: oldPassword)
            let removing = newPassword?.isEmpty ?? true
            var newKDF: PasswordKDF? = nil
            var newPasswordKey: SymmetricKey? = nil
            if !removing, let newPassword {
                var kdf: PasswordKDF
                if let configured = options.newKeychainKDF {
                    kdf = configured
                    kdf.salt = Sealing.randomBytes(32)
                } else {
                    kdf = try PasswordKDF.calibrated()
                }
                newKDF = kdf
                newPasswordKey = try kdf.deriveKey(password: newPassword)
                if keys[.whenPasscodeSetThisDeviceOnly] == nil && keybag.deviceKeyMatches {
                    keys[.whenPasscodeSetThisDeviceOnly] = Sealing.randomKey()
                }
            } else {
                keys[.whenPasscodeSetThisDeviceOnly] = nil
            }
            var updated = keybag
            updated.passwordKDF = newKDF
            try transaction(changesKeyHierarchy: true) { () throws(KeychainStoreError) in
                try refuseKeybagChangeWithoutAnchor()
                for (protection, key) in keys where protection.isPasswordProtected {
                    let wrapped = try updated.wrap(key, for: protection, passwordKey: newPasswordKey)
                    try writeKeybagEntry(protection, KeybagEntry(wrapped: wrapped, check: KeybagEntry.checkValue(of: key)))
                }
                if removing {
                    try run("DELETE FROM keybag WHERE class = ?", [.text(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue)])
                    try run("DELETE FROM items WHERE protection = ?", [.text(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue)])
                    try run("DELETE FROM meta WHERE key = ?", [.text(Schema.MetaKey.passwordKDF)])
                } else if let newKDF {
                    try writeMeta(Schema.MetaKey.passwordKDF, newKDF.encoded)
                }
            }
            keybag = updated
            if removing { keybag.forget(.whenPasscodeSetThisDeviceOnly) }
            keybag.makeAvailable(keys, unlocked: true)
        }
    }

    /// Stores the auto-lock timeout (seconds of inactivity, 0 = never) used by session sharing.
    public func setAutoLockTimeout(seconds: Int) throws(KeychainStoreError) {
        guard seconds >= 0 else { throw .invalidParameter("the auto-lock timeout must not be negative") }
        try withLock { () throws(KeychainStoreError) in
            var bytes = Data()
            bytes.appendBigEndian(UInt64(seconds))
            try transaction { () throws(KeychainStoreError) in try writeMeta(Schema.MetaKey.autoLockSeconds, bytes) }
        }
    }

    private func readAutoLockSeconds() throws(KeychainStoreError) -> Int {
        guard let bytes = try readMeta(Schema.MetaKey.autoLockSeconds) else { return 300 }
        var reader = ByteReader(bytes)
        return Int(clamping: try reader.uint64())
    }

    /// Whether this keychain accepts the cheap test KDF (test suites only).
    public var allowsTestingKDF: Bool { options.allowTestingKDF }

    /// The keychain's random identity (used to name its entries in the session cache).
    public let keychainID: Data

    // MARK: Serialisation helpers

    func withLock<T>(_ body: () throws(KeychainStoreError) -> T) throws(KeychainStoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        try discardAbandonedTransaction()
        return try body()
    }

    /// No transaction is open between calls, except one whose `ROLLBACK` itself failed (an I/O
    /// error at the worst moment). Its changes must never be read or committed by a later call,
    /// so it is rolled back before anything else runs.
    private func discardAbandonedTransaction() throws(KeychainStoreError) {
        guard connection.isInTransaction else { return }
        do { try connection.execute("ROLLBACK") } catch { throw KeychainStoreError(error) }
    }

    /// Runs `body` in one immediate (write-locking) transaction, rolled back on any error. With a
    /// rollback anchor, the transaction also checks the file's generation seal and commits the
    /// next generation with it; the anchor itself is advanced after the commit.
    /// `changesKeyHierarchy`: the body rewrites keybag rows or KDF parameters (what the seal covers).
    func transaction<T>(changesKeyHierarchy: Bool = false, _ body: () throws(KeychainStoreError) -> T) throws(KeychainStoreError) -> T {
        do { try connection.execute("BEGIN IMMEDIATE") } catch { throw KeychainStoreError(error) }
        do throws(KeychainStoreError) {
            let state = try rollbackAnchor.map { anchor throws(KeychainStoreError) in try verifiedState(anchor) }
            let result = try body()
            var generation: UInt64?
            if let anchor = rollbackAnchor, let state {
                generation = try sealNextGeneration(after: state, keyHierarchyChanged: changesKeyHierarchy, anchor)
            }
            do { try connection.execute("COMMIT") } catch { throw KeychainStoreError(error) }
            if let anchor = rollbackAnchor, let generation { advanceAfterCommit(anchor, to: generation) }
            return result
        } catch {
            if connection.isInTransaction {
                // The original error matters more than a failed rollback; SQLite also rolls back
                // by itself when the connection closes.
                do { try connection.execute("ROLLBACK") } catch {}
            }
            throw error
        }
    }

    func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws(KeychainStoreError) {
        do { try connection.run(sql, arguments) } catch { throw KeychainStoreError(error) }
    }

    func readMeta(_ key: String) throws(KeychainStoreError) -> Data? {
        try Bootstrap.readMeta(connection, key)
    }

    func writeMeta(_ key: String, _ value: Data) throws(KeychainStoreError) {
        try run("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text(key), .blob(value)])
    }

    func readKeybagEntries() throws(KeychainStoreError) -> [ProtectionClass: KeybagEntry] {
        try Bootstrap.readKeybag(connection)
    }

    func writeKeybagEntry(_ protection: ProtectionClass, _ entry: KeybagEntry) throws(KeychainStoreError) {
        try run("INSERT OR REPLACE INTO keybag (class, wrapped_key) VALUES (?, ?)",
                [.text(protection.rawValue), .blob(entry.encoded)])
    }
}
