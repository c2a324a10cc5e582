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
import KeychainPrimitives
import KeychainVocabulary

/// Creating a new keychain file so that the path never names an incomplete one: the schema and
/// keybag are written to a private temporary name, the database is closed (SQLite folds its log
/// into the file and syncs it), and only then is the file given the keychain's name, without
/// replacing anything there. A file at a keychain path is therefore always a whole keychain,
/// and an empty (zero-byte) file there is not a keychain: it is refused, never initialised.
enum KeychainFileCreation {
    /// Creates the keychain at `path` unless a file is already there (another process may have
    /// created it meanwhile: its file is kept).
    static func create(at path: String, deviceKey: SymmetricKey?, password: Data?,
                       options: KeychainDatabase.Options) throws(KeychainStoreError) {
        let temporary = path + ".creating-\(getpid())-\(UInt64.random(in: 0 ... .max))"
        try SecureFile.createEmpty(temporary)
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { _ = unlink(temporary + suffix) } }
        do {
            try initialise(temporary, deviceKey: deviceKey, password: password, options: options)
        } catch .readOnly {
            // The temporary file is this process's own, created writable: SQLite reporting it
            // read-only means it could not open its log or index files (an I/O failure).
            throw .io("the new keychain file \(temporary) could not be written")
        }
        if try moveIntoPlace(temporary, path) {
            // The path named nothing until this moment, so a -wal or -shm beside it belongs to a
            // keychain deleted there earlier (perhaps still open in a process): SQLite would
            // replay its pages into the new file. They are removed before anyone opens it.
            for suffix in ["-wal", "-shm"] { _ = unlink(path + suffix) }
        }
        let directory = FilePaths.deletingLastComponent(path)
        let directoryFD = IOSeam.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw SecureFile.failure(errno, "cannot open \(directory)") }
        defer { IOSeam.close(directoryFD) }
        guard IOSeam.fsync(directoryFD) == 0 else { throw SecureFile.failure(errno, "cannot write \(directory)") }
    }

    /// Writes a new keychain's schema and keybag into the empty file at `temporary` and closes it.
    private static func initialise(_ temporary: String, deviceKey: SymmetricKey?, password: Data?,
                                   options: KeychainDatabase.Options) throws(KeychainStoreError) {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: temporary, create: true)
            try KeychainConnectionSetup.apply(to: connection, inMemory: false)
        } catch {
            throw KeychainStoreError(error)
        }
        // SQLite retries a failed read-write open read-only (an I/O error): nothing could be written.
        if connection.isReadOnly { throw .io("the new keychain file \(temporary) could be opened only read-only") }
        _ = try Bootstrap.loadOrCreate(connection: connection, deviceKey: .given(deviceKey, path: options.deviceKeyPath), password: password,
                                       options: options)
        // Everything goes from the log into the file (synced: synchronous = FULL) before the file
        // gets its name, checked here: the checkpoint SQLite runs when closing reports no error.
        let result: [[Int64]]
        do {
            result = try connection.query("PRAGMA wal_checkpoint(TRUNCATE)") { [$0.int64(0), $0.int64(1), $0.int64(2)] }
        } catch let error as SQLiteError {
            throw KeychainStoreError(error)
        } catch {
            throw .internalFailure("checkpoint of a new keychain")
        }
        guard result.first == [0, 0, 0] else { throw .io("the new keychain file \(temporary) could not be written completely") }
        withExtendedLifetime(connection) {}
    }

    /// Gives `temporary` the name `path` unless `path` exists. `renameat2(RENAME_NOREPLACE)`
    /// where the C library has it; else `link` then `unlink`, whose moment with two names
    /// another opener would refuse as a hard-linked file (and succeed at its next try).
    /// Returns whether this call put the file there (false: another process was first).
    private static func moveIntoPlace(_ temporary: String, _ path: String) throws(KeychainStoreError) -> Bool {
        if let renameNoReplace = Self.renameNoReplace {
            if renameNoReplace(AT_FDCWD, temporary, AT_FDCWD, path, 1 /* RENAME_NOREPLACE */) == 0 { return true }
            switch errno {
            case EEXIST: return false  // another process created the keychain first: its file stays
            case EINVAL, ENOSYS: break  // the file system cannot: link below
            default: throw SecureFile.failure(errno, "cannot create \(path)")
            }
        }
        if link(temporary, path) == 0 { return true }
        if errno == EEXIST { return false }
        throw SecureFile.failure(errno, "cannot create \(path)")
    }

    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// glibc's `renameat2` (2.28 and later), looked up at run time: Swift's Glibc module does not
    /// declare it (it is a GNU extension).
    private static let renameNoReplace: RenameAt2? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: RenameAt2.self)
        #else
        return nil
        #endif
    }()
}
