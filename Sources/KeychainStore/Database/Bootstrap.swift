import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary
import KeychainItemCodec

/// One keybag row: a wrapped class key and a check value that lets a class key obtained from
/// elsewhere (the session cache) be recognised without unwrapping anything.
struct KeybagEntry {
    var wrapped: Data
    var check: Data

    /// A 16-byte value derived from the class key; reveals nothing about the key.
    static func checkValue(of key: SymmetricKey) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data("class-key-check".utf8), using: key)).prefix(16)
    }

    var encoded: Data {
        var out = Data()
        out.appendField(wrapped)
        out.appendField(check)
        return out
    }

    init(wrapped: Data, check: Data) {
        self.wrapped = wrapped
        self.check = check
    }

    init(decoding bytes: Data) throws(KeychainStoreError) {
        var reader = ByteReader(record: bytes)
        wrapped = try reader.bytes(Int(try reader.uint32()))
        check = try reader.bytes(Int(try reader.uint32()))
        guard reader.isAtEnd, check.count == 16 else { throw .undecodable("a keybag entry") }
    }
}

/// Where an opened keychain's device key comes from.
enum DeviceKeySource {
    /// This key (or none): a keychain being created, or one in memory.
    case given(SymmetricKey?, path: String?)
    /// Looked for as `DeviceKey.locate` does, once the keychain's device-key id is read: an existing file.
    case located(path: String, earlierPaths: [String])

    /// The key a keychain created now gets: the given one, or the one at the first path (created if missing).
    func forNewKeychain() throws(KeychainStoreError) -> SymmetricKey? {
        switch self {
        case .given(let key, _): return key
        case .located(let path, _): return try DeviceKey.loadOrCreate(at: path)
        }
    }

    /// The key for the keychain `keychainID` whose file names `expectedIdentifier`, and its path.
    func key(forKeychain keychainID: Data, expectedIdentifier: Data?) throws(KeychainStoreError) -> (key: SymmetricKey?, path: String?) {
        switch self {
        case .given(let key, let path): return (key, path)
        case .located(let path, let earlierPaths):
            let found = try DeviceKey.locate(at: path, earlierPaths: earlierPaths, keychainID: keychainID,
                                             expectedIdentifier: expectedIdentifier)
            return (found.key, found.path)
        }
    }
}

/// Creating a new keychain's schema and keybag, and reading an existing one's, including the
/// format-version check and migration hook.
enum Bootstrap {
    static func loadOrCreate(connection: SQLiteConnection, deviceKey: DeviceKeySource, password: Data?,
                             options: KeychainDatabase.Options) throws(KeychainStoreError) -> Keybag {
        // Fast path: an initialised file is read without taking the write lock.
        if try isInitialised(connection) {
            return try load(connection: connection, deviceKey: deviceKey, options: options)
        }
        try connection.inTransaction(.immediate) { () throws(KeychainStoreError) in
            // Another process may have initialised the file while we waited for the lock.
            if try !isInitialised(connection) {
                try create(connection: connection, deviceKey: try deviceKey.forNewKeychain(), password: password, options: options)
            }
            return ((), .commit)
        }
        return try load(connection: connection, deviceKey: deviceKey, options: options)
    }

    /// Whether the file has any schema at all. A file with some tables but not a keychain's is
    /// "initialised" here and refused by `load`, never initialised a second time.
    private static func isInitialised(_ connection: SQLiteConnection) throws(KeychainStoreError) -> Bool {
        do {
            let objects = try connection.query("SELECT count(*) FROM sqlite_master") { $0.int64(0) }
            return (objects.first ?? 0) > 0
        } catch let error as SQLiteError {
            throw fileError(error)
        } catch {
            throw .internalFailure("schema check")
        }
    }

    private static func create(connection: SQLiteConnection, deviceKey: SymmetricKey?, password: Data?,
                               options: KeychainDatabase.Options) throws(KeychainStoreError) {
        let keychainID = Sealing.randomBytes(16)
        let fileKey = Sealing.randomKey()
        let hasPassword = !(password?.isEmpty ?? true)
        var kdf: PasswordKDF? = nil
        if hasPassword {
            if let configured = options.newKeychainKDF { kdf = configured } else { kdf = try PasswordKDF.calibrated() }
        }
        let deviceKeyID = deviceKey.map { DeviceKey.identifier(of: $0, keychainID: keychainID) }
        let keybag = Keybag(keychainID: keychainID, fileKey: fileKey, deviceKey: deviceKey, deviceKeyPath: nil,
                            expectedDeviceKeyID: deviceKeyID, passwordKDF: kdf)
        let passwordKey = try kdf.map { kdf throws(KeychainStoreError) in try kdf.deriveKey(password: password ?? Data()) }
        do {
            for statement in Schema.createStatements { try connection.execute(statement) }
        } catch {
            throw KeychainStoreError(error)
        }
        var version = Data()
        version.appendBigEndian(UInt32(Schema.formatVersion))
        var meta: [(key: String, value: Data)] = [
            (Schema.MetaKey.formatVersion, version),
            (Schema.MetaKey.keychainID, keychainID),
            (Schema.MetaKey.fileKey, Sealing.bytes(of: fileKey)),
        ]
        if let kdf { meta.append((Schema.MetaKey.passwordKDF, kdf.encoded)) }
        if let deviceKeyID { meta.append((Schema.MetaKey.deviceKeyID, deviceKeyID)) }
        var keybagEntries: [(protection: ProtectionClass, entry: Data)] = []
        for protection in ProtectionClass.allCases {
            if protection.requiresPassword && !hasPassword { continue }
            if protection.isThisDeviceOnly && deviceKey == nil { continue }
            let classKey = Sealing.randomKey()
            let entry = KeybagEntry(wrapped: try keybag.wrap(classKey, for: protection, passwordKey: passwordKey),
                                    check: KeybagEntry.checkValue(of: classKey))
            keybagEntries.append((protection, entry.encoded))
        }
        do {
            for (key, value) in meta { try connection.run(MetaSQL.insert, [.text(key), .blob(value)]) }
            for (protection, entry) in keybagEntries {
                try connection.run(MetaSQL.insertKeybagEntry, [.text(protection.rawValue), .blob(entry)])
            }
        } catch {
            throw KeychainStoreError(error)
        }
    }

    private static func load(connection: SQLiteConnection, deviceKey source: DeviceKeySource,
                             options: KeychainDatabase.Options) throws(KeychainStoreError) -> Keybag {
        guard let versionBytes = try readMeta(connection, Schema.MetaKey.formatVersion) else {
            throw .undecodable("the keychain (no format version)")
        }
        var reader = ByteReader(record: versionBytes)
        let version = try reader.uint32()
        guard reader.isAtEnd else { throw .undecodable("the keychain's format version") }
        try migrate(connection: connection, from: version)
        if try verifySchema(connection) == .fullLookupIndexes, !connection.isReadOnly {
            try makeLookupIndexesPartial(connection)
        }
        guard let keychainID = try readMeta(connection, Schema.MetaKey.keychainID), keychainID.count == 16,
              let fileKeyBytes = try readMeta(connection, Schema.MetaKey.fileKey), fileKeyBytes.count == 32
        else { throw .undecodable("the keychain's identity") }
        let kdf = try readPasswordKDF(connection, allowTestingKDF: options.allowTestingKDF)
        let expectedDeviceKeyID = try readMeta(connection, Schema.MetaKey.deviceKeyID)
        let deviceKey = try source.key(forKeychain: keychainID, expectedIdentifier: expectedDeviceKeyID)
        return Keybag(keychainID: keychainID, fileKey: SymmetricKey(data: fileKeyBytes), deviceKey: deviceKey.key,
                      deviceKeyPath: deviceKey.path, expectedDeviceKeyID: expectedDeviceKeyID, passwordKDF: kdf)
    }

    /// Brings an older file up to the current format; refuses a newer one. Format 1 is the first,
    /// so there is nothing to migrate yet: each future version adds one step here, run in one
    /// transaction, and bumps the version bound into keybag and item associated data.
    private static func migrate(connection: SQLiteConnection, from version: UInt32) throws(KeychainStoreError) {
        switch version {
        case UInt32(Schema.formatVersion):
            return
        case let newer where newer > UInt32(Schema.formatVersion):
            throw .unusableKeychain("it uses format \(newer), newer than this library's \(Schema.formatVersion)")
        default:
            throw .unusableKeychain("it uses unknown format \(version)")
        }
    }

    /// Which of the format's two index sets a file has.
    enum IndexSet {
        /// The partial lookup indexes (`Schema.lookupIndexStatements`).
        case current
        /// The full lookup indexes of files made before them (`Schema.fullLookupIndexStatements`).
        case fullLookupIndexes
    }

    /// Refuses a file whose tables or indexes differ from this format's: an edited schema would
    /// otherwise surface later as SQL errors ("no such column") instead of a clear refusal. Both
    /// index sets are this format's: they store the same rows and answer the same lookups.
    private static func verifySchema(_ connection: SQLiteConnection) throws(KeychainStoreError) -> IndexSet {
        let stored: [String]
        do {
            stored = try connection.query("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL") { $0.text(0) ?? "" }
        } catch let error as SQLiteError {
            throw fileError(error)
        } catch {
            throw .internalFailure("schema read")
        }
        switch stored.sorted() {
        case Schema.createStatements.sorted(): return .current
        case (Schema.createStatements.filter { !Schema.lookupIndexStatements.contains($0) } + Schema.fullLookupIndexStatements).sorted():
            return .fullLookupIndexes
        default: throw .undecodable("the keychain's schema (it was altered or written by another program)")
        }
    }

    /// Replaces a file's full lookup indexes by the partial ones, in one write transaction: the
    /// file changes completely or not at all, and another process opening it meanwhile waits for
    /// the lock, then finds the work done (checked again under the lock), so it runs once. A file
    /// this handle cannot write keeps its full indexes, which answer every lookup as well.
    private static func makeLookupIndexesPartial(_ connection: SQLiteConnection) throws(KeychainStoreError) {
        try connection.inTransaction(.immediate) { () throws(KeychainStoreError) -> ((), SQLiteTransactionEnd) in
            if try verifySchema(connection) == .fullLookupIndexes {
                do throws(SQLiteError) {
                    for name in Schema.lookupIndexNames { try connection.execute("DROP INDEX \(name)") }
                    for statement in Schema.lookupIndexStatements { try connection.execute(statement) }
                } catch {
                    throw KeychainStoreError(error)
                }
            }
            return ((), .commit)
        }
    }

    /// The error for a failed read of the keychain's own tables. Their SQL is fixed, so a generic
    /// SQL error ("no such table", "unsupported file format") means the file was damaged or is
    /// not a keychain: errSecDecode, not an internal error.
    static func fileError(_ error: SQLiteError) -> KeychainStoreError {
        if error.primaryCode == 1 /* SQLITE_ERROR */ { return .undecodable("the keychain database (\(error.message))") }
        return KeychainStoreError(error)
    }

    static func readMeta(_ connection: SQLiteConnection, _ key: String) throws(KeychainStoreError) -> Data? {
        do {
            return try connection.query(MetaSQL.read, [.text(key)]) { $0.blob(0) }.first
        } catch let error as SQLiteError {
            throw fileError(error)
        } catch {
            throw .internalFailure("metadata read")
        }
    }

    /// The stored password KDF (nil: the keychain has no password), refusing parameters weaker
    /// than the minimum unless the handle accepts the test KDF.
    static func readPasswordKDF(_ connection: SQLiteConnection, allowTestingKDF: Bool) throws(KeychainStoreError) -> PasswordKDF? {
        guard let bytes = try readMeta(connection, Schema.MetaKey.passwordKDF) else { return nil }
        let kdf = try PasswordKDF(decoding: bytes)
        if kdf.logN < PasswordKDF.minimumLogN, !allowTestingKDF {
            throw .unusableKeychain("its password KDF is weaker than the minimum (scrypt N = 2^\(kdf.logN)); it was made for tests or altered")
        }
        return kdf
    }

    static func readKeybag(_ connection: SQLiteConnection) throws(KeychainStoreError) -> [ProtectionClass: KeybagEntry] {
        let rows: [(String?, Data)]
        do {
            rows = try connection.query(MetaSQL.readKeybag) { ($0.text(0), $0.blob(1)) }
        } catch let error as SQLiteError {
            throw fileError(error)
        } catch {
            throw .internalFailure("keybag read")
        }
        var entries: [ProtectionClass: KeybagEntry] = [:]
        for (name, bytes) in rows {
            guard let name, let protection = ProtectionClass(rawValue: name) else { throw .undecodable("the keybag (unknown class)") }
            entries[protection] = try KeybagEntry(decoding: bytes)
        }
        return entries
    }
}
