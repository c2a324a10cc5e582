import KeychainPrimitives
import Crypto
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
import Synchronization
import KeychainVocabulary
import KeychainItemCodec

/// An open keychain: one SQLite file (or a private in-memory database) with its key hierarchy
/// and lock state. Thread-safe: calls are serialised on one connection; several processes may
/// open the same file (SQLite WAL, every write one `BEGIN IMMEDIATE` transaction).
package final class KeychainDatabase: @unchecked Sendable {
    /// How a keychain is opened or created.
    package struct Options: Sendable {
        /// Where the device key lives; nil keeps a random device key in memory (in-memory keychains).
        package var deviceKeyPath: String?
        /// Where else an existing keychain's device key may be (read only, never created): earlier
        /// versions kept it under `$XDG_STATE_HOME` or `$HOME`, which differ between processes.
        package var earlierDeviceKeyPaths: [String] = []
        /// KDF for a keychain created with a password; nil calibrates scrypt on this machine.
        package var newKeychainKDF: PasswordKDF?
        /// Accept files whose KDF is weaker than `PasswordKDF.minimumLogN` (tests only).
        package var allowTestingKDF: Bool
        /// Create the file if it does not exist.
        package var createIfMissing: Bool
        /// A directory outside the keychain file's where its rollback anchor lives; nil turns
        /// rollback detection off for this handle. See `RollbackAnchor` and docs/FILE-FORMAT.md.
        package var rollbackAnchorDirectory: String?
        /// The time the auto-lock by inactivity measures idleness with: the continuous clock, or in
        /// tests a clock they move forward instead of sleeping (`KeychainTestSupport.ManualClock`).
        package var now: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
        /// The wall-clock time items' creation and modification dates and deletion times are
        /// stamped with: the system clock, or in tests a clock they move forward, so that which of
        /// two edits is the later one (what sync decides conflicts by) is set, not raced
        /// (`KeychainTestSupport.ManualClock`).
        package var currentDate: @Sendable () -> Date = { Date() }

        /// Options for a file keychain with the device key at `deviceKeyPath`.
        package init(deviceKeyPath: String?, newKeychainKDF: PasswordKDF? = nil, allowTestingKDF: Bool = false,
                    createIfMissing: Bool = true, rollbackAnchorDirectory: String? = nil) {
            self.deviceKeyPath = deviceKeyPath
            self.newKeychainKDF = newKeychainKDF
            self.allowTestingKDF = allowTestingKDF
            self.createIfMissing = createIfMissing
            self.rollbackAnchorDirectory = rollbackAnchorDirectory
        }
    }

    /// Whether the keychain is locked and whether it has a password.
    package struct Status: Sendable, Equatable {
        /// The "when unlocked" classes are available.
        package var isUnlocked: Bool
        /// The keychain has a password (otherwise it behaves like a device without a passcode).
        package var hasPassword: Bool
        /// Seconds of inactivity after which the keychain should lock (0 = never), as stored in the file.
        package var autoLockSeconds: Int
    }

    /// The file's path, or `":memory:"`.
    package let path: String
    let connection: SQLiteConnection
    /// Serialises calls on the connection. Recursive so that the calls of one ``atomically(_:)``
    /// body (made on the thread that holds it) run inside its transaction.
    let lock = ThreadLock(recursive: true)
    /// How many ``transaction(changesKeyHierarchy:_:)`` calls are running on this thread's call
    /// (more than one only inside ``atomically(_:)``): an inner one joins the outer transaction.
    private var transactionDepth = 0
    /// Whether a transaction joined into the outer one changed the key hierarchy.
    private var joinedChangesKeyHierarchy = false
    /// Set by ``atomically(_:)`` when its body asks for its changes to be undone.
    private var rollbackRequested = false
    var keybag: Keybag
    /// Cached blind-index key (derived from the file key once, HMAC keyed once).
    let indexKey: BlindIndexKey
    private let options: Options
    /// The rollback anchor this handle keeps up to date, once checked at open (nil: detection off).
    var rollbackAnchor: RollbackAnchor?
    /// How far this handle can vouch for the key hierarchy (`KeychainDatabase+KeyHierarchy.swift`).
    var hierarchyTrust: KeyHierarchyTrust = .unverifiable
    /// SQLite's data version when this handle last looked at the key hierarchy (nil in memory).
    var knownDataVersion: Int64?
    /// The connection's `fileDataVersion` when this handle last looked at the key hierarchy: a
    /// read whose snapshot has this version needs no other check (`KeychainDatabase+KeyHierarchy`).
    var verifiedFileDataVersion: UInt32?
    /// The digest of the key hierarchy as this handle last knew it.
    var knownHierarchyDigest = Data()
    /// The auto-lock timeout in seconds (0 = never), as stored in the file when last read.
    var autoLockSeconds = 300
    /// When this handle was last used (for the auto-lock by inactivity).
    var lastActivity: ContinuousClock.Instant?
    /// During a call: when the handle was used before it (the auto-lock check may run again
    /// once a read has caught up with another process's settings).
    var activityBeforeCall: ContinuousClock.Instant?
    /// Blind indexes of the access groups and services lookups name (`BlindIndexCache`).
    var blindIndexCache = BlindIndexCache()
    /// Blind indexes of absent optional key attributes, by name (`insertIndexes`, at most two).
    var absentAttributeIndexes: [String: Data] = [:]
    /// The device and inode of the file opened (nil in memory): before each call the path must
    /// still name it (`refuseIfFileReplaced`).
    let fileIdentity: FileIdentity?
    /// Set once the path was found to name another file (or none): the handle is dead from then
    /// on, and the registry drops it so that the next call opens what the path names now.
    private(set) var fileWasReplaced = false

    private init(path: String, connection: SQLiteConnection, keybag: Keybag, options: Options, fileIdentity: FileIdentity?) {
        self.path = path
        self.fileIdentity = fileIdentity
        self.connection = connection
        self.keybag = keybag
        self.indexKey = BlindIndexKey(keybag.blindIndexKey)
        self.keychainID = keybag.keychainID  // fixed for the file's life; read without the lock
        self.options = options
    }

    /// Opens the keychain file at `path`, creating it (with `password`, or none) if missing.
    /// A password given for an existing keychain unlocks it.
    package static func open(path: String, password: Data?, options: Options) throws(KeychainStoreError) -> KeychainDatabase {
        let directory = FilePaths.deletingLastComponent(path)
        let exists = try SecureFile.validateExisting(path)
        var deviceKey = DeviceKeySource.given(nil, path: nil)
        if !exists {
            guard options.createIfMissing else { throw .keychainMissing(path) }
            try SecureFile.ensureDirectory(directory.isEmpty ? "." : directory)
            let key = try options.deviceKeyPath.map { path throws(KeychainStoreError) in try DeviceKey.loadOrCreate(at: path) }
            try KeychainFileCreation.create(at: path, deviceKey: key, password: password, options: options)
            deviceKey = .given(key, path: options.deviceKeyPath)
        } else {
            _ = try SecureFile.validateDirectory(directory.isEmpty ? "." : directory)
        }
        // What SQLite is about to open: the file itself (checked on the opened descriptor, so a
        // name swapped since the check above is caught) and no planted -wal/-shm beside it.
        // A path-only descriptor: closing it drops no lock, so checking a file that another
        // connection of this process has open leaves that connection's SQLite locks in place.
        let verified = try SecureFile.openVerified(path, flags: SecureFile.pathOnly)
        let identity = FileIdentity.of(descriptor: verified)
        let size = SecureFile.size(of: verified)
        IOSeam.close(verified)
        // New keychains get their name only once complete (`KeychainFileCreation`): an empty
        // file is not a keychain, and initialising it would hide whatever emptied it.
        if size == 0 { throw SecureFile.emptyFile(path) }
        try SecureFile.refusePlantedCompanions(of: path)
        if exists, let primary = options.deviceKeyPath {
            // Which key is the keychain's is known once its device-key id is read.
            deviceKey = .located(path: primary, earlierPaths: options.earlierDeviceKeyPaths)
        }
        return try open(connectionTo: path, deviceKey: deviceKey, password: password, options: options, fileIdentity: identity)
    }

    /// A private keychain in memory, gone when released; same engine, same encryption.
    package static func inMemory(password: Data? = nil, options: Options = Options(deviceKeyPath: nil, newKeychainKDF: .testing(), allowTestingKDF: true)) throws(KeychainStoreError) -> KeychainDatabase {
        try open(connectionTo: ":memory:", deviceKey: .given(Sealing.randomKey(), path: options.deviceKeyPath), password: password, options: options,
                 fileIdentity: nil)
    }

    private static func open(connectionTo path: String, deviceKey: DeviceKeySource, password: Data?, options: Options,
                             fileIdentity: FileIdentity?) throws(KeychainStoreError) -> KeychainDatabase {
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
        // The file SQLite opened is the one checked above only if the name still leads to it.
        switch fileIdentity?.state(of: path) {
        case nil, .same?: break
        case .replaced?: throw .keychainReplaced(path)
        case .uninspectable(let code)?: throw SecureFile.failure(code, "cannot inspect \(path)")
        }
        connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        // Several processes creating or converting one new file at once can get SQLITE_BUSY
        // without SQLite's busy handler being consulted (switching to WAL, lock upgrades that
        // could deadlock): that state is transient, so the set-up is retried a few times (briefly: a lock held for
        // longer is reported, as errSecIO, like any other busy keychain).
        var attempt = 0
        while true {
            do {
                return try finishOpening(connection, path: path, deviceKey: deviceKey, password: password, options: options,
                                         fileIdentity: fileIdentity)
            } catch where error.isBusy && attempt < 8 {
                attempt += 1
                usleep(useconds_t(attempt * 10_000))  // 10, 20, … 80 ms: at most 0.36 s in all
            }
        }
    }

    private static func finishOpening(_ connection: SQLiteConnection, path: String, deviceKey: DeviceKeySource, password: Data?,
                                      options: Options, fileIdentity: FileIdentity?) throws(KeychainStoreError) -> KeychainDatabase {
        do {
            try KeychainConnectionSetup.apply(to: connection, inMemory: path == ":memory:")
        } catch {
            throw Bootstrap.fileError(error)  // e.g. "unsupported file format": a damaged header
        }
        let keybag = try Bootstrap.loadOrCreate(connection: connection, deviceKey: deviceKey, password: password, options: options)
        let database = KeychainDatabase(path: path, connection: connection, keybag: keybag, options: options,
                                        fileIdentity: fileIdentity)
        try database.authenticateKeyHierarchyAtOpen(deviceKeyPath: keybag.deviceKeyPath)
        database.autoLockSeconds = try database.readAutoLockSeconds()
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
    package var status: Status {
        get throws(KeychainStoreError) {
            try withLock { () throws(KeychainStoreError) in
                Status(isUnlocked: keybag.isUnlocked, hasPassword: keybag.hasPassword,
                       autoLockSeconds: try readAutoLockSeconds())
            }
        }
    }

    /// Whether the "when unlocked" classes are unavailable because the keychain is locked (always
    /// false for a keychain without a password). Reads no file: cheap enough for every call.
    package var isLocked: Bool {
        lock.lock()
        defer { lock.unlock() }
        lockIfIdle(now: options.now())
        return keybag.hasPassword && !keybag.isUnlocked
    }

    /// Unlocks with the password (`nil` or empty for a keychain without one).
    /// A wrong password costs a full KDF run and changes nothing on disk.
    package func unlock(password: Data?) throws(KeychainStoreError) {
        try withLock { () throws(KeychainStoreError) in try unlockLocked(password: password) }
    }

    /// Locks: the "when unlocked" classes become unavailable until the next unlock.
    package func lockKeychain() {
        lock.lock()
        defer { lock.unlock() }
        keybag.lock()
    }

    /// Verifies a password without changing the lock state.
    package func verify(password: Data?) throws(KeychainStoreError) {
        try withLock { () throws(KeychainStoreError) in _ = try unwrapPasswordClasses(password: password) }
    }

    /// The unwrapped class keys for export to another process of the same session
    /// (see the kernel-keyring session cache). Only classes that are available now.
    package func availableClassKeys() -> [ProtectionClass: SymmetricKey] {
        lock.lock()
        defer { lock.unlock() }
        return keybag.availableKeys
    }

    /// Makes class keys obtained from another process of the same session available, after
    /// checking each against this file's keybag (a key that does not open its entry is ignored).
    package func adoptClassKeys(_ keys: [ProtectionClass: SymmetricKey]) throws(KeychainStoreError) {
        try withLock { () throws(KeychainStoreError) in
            let stored = try readKeybagEntries()
            var verified: [ProtectionClass: SymmetricKey] = [:]
            for (protection, key) in keys {
                guard let entry = stored[protection], Self.classKey(key, checksAgainst: entry) else { continue }
                verified[protection] = key
            }
            let unlocked = verified[.whenUnlocked] != nil || verified[.afterFirstUnlock] != nil
            keybag.makeAvailable(verified, unlocked: unlocked)
            if unlocked && keybag.hasPassword { ProcessHardening.passwordClassKeysAvailable() }
        }
    }

    /// Class keys carry a check value: the keybag row stores, besides the wrapped key, nothing
    /// else — so a candidate key is verified by re-deriving its blind check from the keychain id.
    static func classKey(_ key: SymmetricKey, checksAgainst entry: KeybagEntry) -> Bool {
        Sealing.constantTimeEquals(entry.check, KeybagEntry.checkValue(of: key))
    }

    func unlockLocked(password: Data?) throws(KeychainStoreError) {
        let passwordKey = try derivePasswordKey(password)
        let stored = try readKeybagEntries()
        let keys = try unwrapPasswordClasses(stored, passwordKey: passwordKey)
        keybag.makeAvailable(keys, unlocked: true)
        if keybag.hasPassword { ProcessHardening.passwordClassKeysAvailable() }
        keybag.unopenableClasses = keybag.deviceKeyMatches
            ? Set(stored.keys.filter { $0.isThisDeviceOnly && $0.isPasswordProtected && keys[$0] == nil }) : []
        try makeAlwaysClassesAvailable()
    }

    func makeAlwaysClassesAvailable() throws(KeychainStoreError) {
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
        try unwrapPasswordClasses(try readKeybagEntries(), passwordKey: try derivePasswordKey(password))
    }

    /// Unwraps the password-protected class keys of `stored`. The "when unlocked" key is the
    /// password verifier (GCM's tag check is constant-time): `.wrongPassword` if it does not open.
    /// A ThisDeviceOnly class that does not open (another device key, or an entry left behind by
    /// an older version's password change) is left out — that class is unavailable — instead of
    /// failing an unlock that the password itself passed.
    private func unwrapPasswordClasses(_ stored: [ProtectionClass: KeybagEntry],
                                       passwordKey: SymmetricKey?) throws(KeychainStoreError) -> [ProtectionClass: SymmetricKey] {
        var keys: [ProtectionClass: SymmetricKey] = [:]
        guard let verifier = stored[.whenUnlocked] else { throw .undecodable("the keybag (missing class key)") }
        do {
            keys[.whenUnlocked] = try keybag.unwrap(verifier.wrapped, for: .whenUnlocked, passwordKey: passwordKey)
        } catch {
            guard let what = error.undecodableSubject else { throw error }
            // Without a password no password was wrong: the file itself no longer opens with its
            // own keys (its identity or keybag was altered, or it was put together from two files).
            guard keybag.passwordKDF != nil else {
                throw .undecodable("\(what) of a keychain without a password (its keychain identity or keybag was altered)")
            }
            throw .wrongPassword
        }
        for protection in ProtectionClass.allCases where protection.isPasswordProtected && protection != .whenUnlocked {
            guard let entry = stored[protection] else { continue }
            guard protection.isThisDeviceOnly else {
                keys[protection] = try keybag.unwrap(entry.wrapped, for: protection, passwordKey: passwordKey)
                continue
            }
            guard keybag.deviceKeyMatches else { continue }
            do {
                keys[protection] = try keybag.unwrap(entry.wrapped, for: protection, passwordKey: passwordKey)
            } catch where error.undecodableSubject != nil {
                continue
            }
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

    /// Changes the password. Every password-protected class gets a new class key and every item
    /// key of those classes is re-wrapped under it, so a copy of the file taken before (when it
    /// had no password, or an old one) opens nothing written after. A nil or empty `newPassword`
    /// removes the password, which destroys the passcode-only class (`akpu`) and its items, as
    /// iOS does when the passcode is turned off.
    ///
    /// Refused (`.notAvailable`, nothing changed) when a password-protected ThisDeviceOnly class
    /// cannot be opened here — another device key: its items would be orphaned.
    package func changePassword(from oldPassword: Data?, to newPassword: Data?) throws(KeychainStoreError) {
        try withLock { () throws(KeychainStoreError) in
            // Both password keys are derived before the write lock is taken: the KDF is the slow part.
            let oldKDF = keybag.passwordKDF
            let oldPasswordKey = try derivePasswordKey(oldPassword)
            // A wrong old password is reported before a second KDF runs for the new one.
            _ = try unwrapPasswordClasses(try readKeybagEntries(), passwordKey: oldPasswordKey)
            var newKDF: PasswordKDF? = nil
            var newPasswordKey: SymmetricKey? = nil
            if let newPassword, !newPassword.isEmpty {
                var kdf: PasswordKDF
                if let configured = options.newKeychainKDF {
                    kdf = configured
                    kdf.salt = Sealing.randomBytes(32)
                } else {
                    kdf = try PasswordKDF.calibrated()
                }
                newKDF = kdf
                newPasswordKey = try kdf.deriveKey(password: newPassword)
            }
            let removing = newKDF == nil
            let rotated = try transaction(changesKeyHierarchy: true) { () throws(KeychainStoreError) -> [ProtectionClass: SymmetricKey] in
                try refuseKeybagChangeWithoutAnchor()
                // Another process changed the password while this one derived keys: the old
                // password is no longer the keychain's.
                guard keybag.passwordKDF == oldKDF else { throw .wrongPassword }
                let stored = try readKeybagEntries()
                let oldKeys = try unwrapPasswordClasses(stored, passwordKey: oldPasswordKey)
                try refuseOrphaning(stored, opened: oldKeys, removingPassword: removing)
                var newKeys: [ProtectionClass: SymmetricKey] = [:]
                for protection in ProtectionClass.allCases where protection.isPasswordProtected {
                    if protection == .whenPasscodeSetThisDeviceOnly {
                        // The passcode-only class exists while there is a password, on this device.
                        guard !removing, keybag.deviceKeyMatches else { continue }
                    } else if stored[protection] == nil {
                        continue  // a ThisDeviceOnly class of a keychain made without a device key
                    }
                    newKeys[protection] = Sealing.randomKey()
                }
                for (protection, newKey) in newKeys {
                    if let oldKey = oldKeys[protection] { try rewrapItemKeys(of: protection, from: oldKey, to: newKey) }
                    let wrapped = try keybag.wrap(newKey, for: protection, passwordKey: newPasswordKey)
                    try writeKeybagEntry(protection, KeybagEntry(wrapped: wrapped, check: KeybagEntry.checkValue(of: newKey)))
                }
                if removing {
                    try run(MetaSQL.deleteKeybagEntry, [.text(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue)])
                    try run(ItemSQL.deleteProtection, [.text(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue)])
                    try run(MetaSQL.delete, [.text(Schema.MetaKey.passwordKDF)])
                } else if let newKDF {
                    try writeMeta(Schema.MetaKey.passwordKDF, newKDF.encoded)
                }
                return newKeys
            }
            keybag.passwordKDF = newKDF
            keybag.replacePasswordClassKeys(with: rotated)
            if keybag.hasPassword { ProcessHardening.passwordClassKeysAvailable() }
        }
    }

    /// Refuses a password change that would leave a password-protected class behind: one whose
    /// entry exists but could not be opened (a ThisDeviceOnly class under another device key)
    /// would stay wrapped under the old password while everything else moves to the new one.
    private func refuseOrphaning(_ stored: [ProtectionClass: KeybagEntry], opened: [ProtectionClass: SymmetricKey],
                                 removingPassword: Bool) throws(KeychainStoreError) {
        for protection in stored.keys where protection.isPasswordProtected && opened[protection] == nil {
            if removingPassword && protection == .whenPasscodeSetThisDeviceOnly { continue }  // destroyed anyway
            throw .notAvailable("the keychain's \(protection.rawValue) class cannot be opened with this device key, and changing the password now would orphan its items; change it on the device that created the keychain")
        }
    }

    /// Re-wraps the item key of every live item of `protection` from the old class key to the new
    /// one; the payloads stay as they are. An item whose key does not open is left as it is: it
    /// was unreadable before and stays so.
    private func rewrapItemKeys(of protection: ProtectionClass, from oldKey: SymmetricKey, to newKey: SymmetricKey) throws(KeychainStoreError) {
        let rows = try wholeRows(ItemSQL.liveRowsOfProtection, [.text(protection.rawValue)])
        for row in rows {
            let rewrapped: Data
            do {
                rewrapped = try ItemRecord.rewrapItemKey(of: row, from: oldKey, to: newKey)
            } catch where error.undecodableSubject != nil {
                continue
            }
            try run(ItemSQL.rewrapKey, [.blob(rewrapped), .integer(row.rowID)])
        }
    }

    /// Stores the auto-lock timeout (seconds of inactivity, 0 = never) used by session sharing.
    package func setAutoLockTimeout(seconds: Int) throws(KeychainStoreError) {
        guard seconds >= 0 else { throw .invalidParameter("the auto-lock timeout must not be negative") }
        try withLock { () throws(KeychainStoreError) in
            var bytes = Data()
            bytes.appendBigEndian(UInt64(seconds))
            // The timeout is part of the authenticated key hierarchy: the tag is renewed with it.
            try transaction(changesKeyHierarchy: true) { () throws(KeychainStoreError) in
                try writeMeta(Schema.MetaKey.autoLockSeconds, bytes)
            }
            autoLockSeconds = seconds
        }
    }

    func readAutoLockSeconds() throws(KeychainStoreError) -> Int {
        guard let bytes = try readMeta(Schema.MetaKey.autoLockSeconds) else { return 300 }
        var reader = ByteReader(record: bytes)
        return Int(clamping: try reader.uint64())
    }

    /// Whether this keychain accepts the cheap test KDF (test suites only).
    package var allowsTestingKDF: Bool { options.allowTestingKDF }

    /// The time now by this keychain's wall clock (`Options.currentDate`): what its items' dates
    /// and deletion times say, and what sync compares versions against.
    package func currentDate() -> Date { options.currentDate() }

    /// The keychain's random identity (used to name its entries in the session cache).
    package let keychainID: Data

    /// The auto-lock by inactivity: a keychain with a password, unlocked in this process and not
    /// used for `autoLockSeconds` (0: never), is locked before the next call runs — as the
    /// session's shared unlock expires after the same timeout. Called with the lock held.
    func lockIfIdle(now: ContinuousClock.Instant) {
        lockIfIdle(now: now, since: lastActivity)
    }

    /// `lockIfIdle(now:)` with the last use given.
    func lockIfIdle(now: ContinuousClock.Instant, since lastActivity: ContinuousClock.Instant?) {
        // The idle time first: the keybag's flags are read only when it has run out (each read of
        // them copied the keybag struct, about 1,200 instructions at every call).
        guard autoLockSeconds > 0, let lastActivity, now - lastActivity >= .seconds(autoLockSeconds) else { return }
        if keybag.hasPassword && keybag.isUnlocked { keybag.lock() }
    }

    // MARK: Serialisation helpers

    /// Runs `body` under the handle's lock, after adopting another process's changes to the key
    /// hierarchy and the auto-lock check. `checkingHierarchy` false: the caller checks it itself
    /// against the snapshot it reads (`find`, see `readIsOfVerifiedHierarchy`).
    func withLock<T>(checkingHierarchy: Bool = true, _ body: () throws(KeychainStoreError) -> T) throws(KeychainStoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        try refuseIfFileReplaced()
        try discardAbandonedTransaction()
        if checkingHierarchy { try refreshKeyHierarchyIfChanged() }
        let now = options.now()
        lockIfIdle(now: now)
        activityBeforeCall = lastActivity
        lastActivity = now
        return try body()
    }

    /// Refuses the call when the path no longer names the file this handle opened (deleted, or
    /// another file moved or copied into its place): SQLite would go on reading and writing the
    /// old file, and every write would be lost with it. One `lstat` per call. Called with the lock held.
    private func refuseIfFileReplaced() throws(KeychainStoreError) {
        guard let fileIdentity else { return }
        if !fileWasReplaced {
            switch fileIdentity.state(of: path) {
            case .same: return
            case .uninspectable(let code): throw SecureFile.failure(code, "cannot inspect \(path)")
            case .replaced:
                fileWasReplaced = true
                AbandonedConnections.keep(connection)
            }
        }
        throw .keychainReplaced(path)
    }

    /// Connections whose file was deleted or replaced, kept open until the process ends: SQLite
    /// closing one would delete its `-wal` and `-shm` files *by name* — by then the companions of
    /// whatever keychain the path names now — and checkpoint into them.
    private enum AbandonedConnections {
        private static let lock = Mutex(())
        nonisolated(unsafe) private static var connections: [SQLiteConnection] = []

        static func keep(_ connection: SQLiteConnection) {
            lock.withLock { _ in connections.append(connection) }
        }
    }

    /// Whether the path was found to name another file than this handle's (see `fileWasReplaced`).
    package var wasReplaced: Bool {
        lock.withLock { fileWasReplaced }
    }

    /// No transaction is open between calls, except one whose `ROLLBACK` itself failed (an I/O
    /// error at the worst moment). Its changes must never be read or committed by a later call,
    /// so it is rolled back before anything else runs.
    private func discardAbandonedTransaction() throws(KeychainStoreError) {
        // Inside `atomically`, the open transaction is the caller's, not an abandoned one.
        guard transactionDepth == 0 else { return }
        try connection.rollBackAbandonedTransaction()
    }

    /// Runs `body` in one immediate (write-locking) transaction, rolled back on any error. With a
    /// rollback anchor, the transaction also checks the file's generation seal and commits the
    /// next generation with it; the anchor itself is advanced after the commit.
    /// `changesKeyHierarchy`: the body rewrites keybag rows, KDF parameters or settings (what the
    /// hierarchy tag and the rollback seal cover).
    ///
    /// Inside ``atomically(_:)`` the transaction is the outer one: `body` runs in it, and what it
    /// writes commits or rolls back with everything else the outer body does.
    func transaction<T>(changesKeyHierarchy: Bool = false, _ body: () throws(KeychainStoreError) -> T) throws(KeychainStoreError) -> T {
        if transactionDepth > 0 {
            if changesKeyHierarchy { joinedChangesKeyHierarchy = true }
            return try body()
        }
        transactionDepth = 1
        joinedChangesKeyHierarchy = false
        rollbackRequested = false
        defer {
            transactionDepth = 0
            rollbackRequested = false
        }
        var hierarchyDigest: Data?
        var generation: UInt64?
        let result = try connection.inTransaction(.immediate) { () throws(KeychainStoreError) -> (T, SQLiteTransactionEnd) in
            // Under the write lock, the hierarchy is the latest: a class key another process
            // replaced meanwhile is dropped before the body seals anything with it.
            try refreshKeyHierarchyIfChanged()
            let state = try rollbackAnchor.map { anchor throws(KeychainStoreError) in try verifiedState(anchor) }
            let result = try body()
            if rollbackRequested { return (result, .rollback) }
            let changedKeyHierarchy = changesKeyHierarchy || joinedChangesKeyHierarchy
            hierarchyDigest = changedKeyHierarchy ? try resealKeyHierarchy() : nil
            if let anchor = rollbackAnchor, let state {
                generation = try sealNextGeneration(after: state, keyHierarchyChanged: changedKeyHierarchy, anchor)
            }
            return (result, .commit)
        }
        if rollbackRequested { return result }
        if let hierarchyDigest { knownHierarchyDigest = hierarchyDigest }
        // The hierarchy was checked at the start of this transaction and what it changed is
        // known: the commit's version is as verified as that (no re-check at the next read).
        if verifiedFileDataVersion != nil { verifiedFileDataVersion = connection.fileDataVersion }
        if let anchor = rollbackAnchor, let generation { advanceAfterCommit(anchor, to: generation) }
        return result
    }

    /// Runs `body` — any number of this handle's calls (inserts, updates, deletes, finds) — as one
    /// write transaction: its changes are committed together when it returns true, and none of
    /// them is kept when it returns false or a call in it fails with the connection's transaction
    /// undone (then the failure is thrown). Other threads' calls wait until it ends. Returns
    /// whether the changes were committed.
    ///
    /// For operations that must not be left half done, such as an identity, which is two items
    /// (a certificate and its private key) that are added, changed and deleted together.
    @discardableResult
    package func atomically(_ body: () -> Bool) throws(KeychainStoreError) -> Bool {
        try withLock { () throws(KeychainStoreError) -> Bool in
            try transaction { () throws(KeychainStoreError) -> Bool in
                let commit = body()
                if !commit { rollbackRequested = true }
                return commit
            }
        }
    }

    func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws(KeychainStoreError) {
        do { try connection.run(sql, arguments) } catch { throw KeychainStoreError(error) }
    }

    func readMeta(_ key: String) throws(KeychainStoreError) -> Data? {
        try Bootstrap.readMeta(connection, key)
    }

    func writeMeta(_ key: String, _ value: Data) throws(KeychainStoreError) {
        try run(MetaSQL.write, [.text(key), .blob(value)])
    }

    func readKeybagEntries() throws(KeychainStoreError) -> [ProtectionClass: KeybagEntry] {
        try Bootstrap.readKeybag(connection)
    }

    func writeKeybagEntry(_ protection: ProtectionClass, _ entry: KeybagEntry) throws(KeychainStoreError) {
        try run(MetaSQL.writeKeybagEntry,
                [.text(protection.rawValue), .blob(entry.encoded)])
    }
}
