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
// FilePaths: NSString's path methods, which FoundationEssentials lacks.
import KeychainPrimitives

/// Where a keychain's access log lives and how far it may grow.
///
/// Beside the keychain file `K`: `K.access-log` (the current file, appended to), `K.access-log.1`
/// … `K.access-log.N` (rotated, `.1` the newest) and `K.access-log.lock` (the lock writers and
/// readers take). Every file is created 0600.
package struct AccessLogFiles: Sendable, Equatable {
    /// The default size at which the current file is rotated.
    package static let defaultMaximumFileSize = 4 * 1024 * 1024
    /// The default number of rotated files kept.
    package static let defaultRotatedFiles = 4

    /// The keychain file the log is about.
    package let keychainPath: String
    /// The current file is rotated before an append would take it past this size.
    package let maximumFileSize: Int
    /// How many rotated files are kept (the oldest is deleted when another is rotated out).
    package let rotatedFiles: Int

    /// The log of the keychain at `keychainPath`, with the rotation limits given.
    package init(keychainPath: String, maximumFileSize: Int = defaultMaximumFileSize,
                 rotatedFiles: Int = defaultRotatedFiles) {
        self.keychainPath = keychainPath
        self.maximumFileSize = max(maximumFileSize, 1)
        self.rotatedFiles = max(rotatedFiles, 1)
    }

    /// The current file.
    package var currentPath: String { keychainPath + ".access-log" }
    /// The lock file.
    var lockPath: String { keychainPath + ".access-log.lock" }
    /// Rotated file `number` (1 is the newest).
    package func rotatedPath(_ number: Int) -> String { currentPath + ".\(number)" }

    /// The highest rotated-file number looked for (the setting allows at most 100).
    static let highestRotatedNumber = 128

    /// The log's files that exist, oldest first (the current file last). Every numbered file is
    /// included, also past a gap: a rotated file that is missing then shows as a break in the
    /// chain (a crash between two renames of a rotation leaves a harmless gap, which the chain
    /// crosses), and files beyond the configured count (from a larger setting) are read too.
    package func existingFiles() -> [String] {
        var paths: [String] = []
        for number in stride(from: Self.highestRotatedNumber, through: 1, by: -1) where access(rotatedPath(number), F_OK) == 0 {
            paths.append(rotatedPath(number))
        }
        if access(currentPath, F_OK) == 0 { paths.append(currentPath) }
        return paths
    }

    /// Whether any file of the log exists.
    var exists: Bool { !existingFiles().isEmpty }

    /// Removes every file of the log (the keychain is being deleted: its log goes with it).
    package func removeAll() throws(AccessLogError) {
        for path in existingFiles() + [lockPath] where unlink(path) != 0 && errno != ENOENT {
            throw .io(path: path, operation: "unlink", errno: errno)
        }
    }

    /// The directory holding the log, for fsync after renames and creations.
    var directoryPath: String { FilePaths.deletingLastComponent(keychainPath) }
}

/// The POSIX calls the log makes, each turning a failure into ``AccessLogError/io(path:operation:errno:)``.
enum LogIO {
    /// Opens (creating 0600 if asked) `path`; returns the descriptor.
    static func open(_ path: String, flags: Int32, create: Bool = false) throws(AccessLogError) -> Int32 {
        let descriptor = create ? systemOpen(path, flags | O_CREAT | O_CLOEXEC, 0o600) : systemOpen(path, flags | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        return descriptor
    }

    /// Takes `operation` (`LOCK_EX` or `LOCK_SH`) on the lock file, waiting for other holders; the
    /// lock ends when the returned descriptor is closed (or the process dies: a killed writer
    /// never leaves the log locked).
    static func lock(_ path: String, _ operation: Int32) throws(AccessLogError) -> Int32 {
        let descriptor = try open(path, flags: O_RDWR, create: true)
        while flock(descriptor, operation) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(descriptor)
                throw .io(path: path, operation: "flock", errno: code)
            }
        }
        return descriptor
    }

    /// The whole content of `path`, or empty when it does not exist.
    static func readAll(_ path: String) throws(AccessLogError) -> Data {
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return Data() }
            throw .io(path: path, operation: "open", errno: errno)
        }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "read", errno: errno)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// The size of `path` (0 when it does not exist).
    static func size(_ path: String) throws(AccessLogError) -> Int {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT { return 0 }
            throw .io(path: path, operation: "stat", errno: errno)
        }
        return Int(info.st_size)
    }

    /// Writes all of `data` at `offset` of `descriptor`.
    static func write(_ data: Data, to descriptor: Int32, at offset: Int, path: String) throws(AccessLogError) {
        var written = 0
        let failure: Int32? = data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let count = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset + written))
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        if let failure { throw .io(path: path, operation: "write", errno: failure) }
    }

    /// `fsync`, so what was written survives a crash before the caller goes on.
    static func sync(_ descriptor: Int32, path: String) throws(AccessLogError) {
        guard fsync(descriptor) == 0 else { throw .io(path: path, operation: "fsync", errno: errno) }
    }

    /// `fdatasync`: what was written, and the file size it grew to, survive a crash before the
    /// caller goes on; the times (`mtime`, `ctime`), which reading the log does not need, are left
    /// to the next `fsync` of the file system. What an append needs, one journal flush cheaper
    /// than `fsync` where the file system can tell the two apart.
    static func syncData(_ descriptor: Int32, path: String) throws(AccessLogError) {
        guard fdatasync(descriptor) == 0 else { throw .io(path: path, operation: "fdatasync", errno: errno) }
    }

    /// Makes a directory's entries (created or renamed files) durable.
    static func syncDirectory(_ path: String) throws(AccessLogError) {
        let descriptor = try open(path, flags: O_RDONLY | O_DIRECTORY)
        defer { close(descriptor) }
        try sync(descriptor, path: path)
    }

    /// Truncates `descriptor` to `size` bytes.
    static func truncate(_ descriptor: Int32, to size: Int, path: String) throws(AccessLogError) {
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw .io(path: path, operation: "ftruncate", errno: errno) }
    }

    /// Renames `from` to `to` (replacing it), if `from` exists.
    static func renameIfPresent(_ from: String, to: String) throws(AccessLogError) {
        if rename(from, to) != 0 && errno != ENOENT { throw .io(path: from, operation: "rename", errno: errno) }
    }
}

/// The descriptors a writer keeps open between its appends (``AccessLogGroupCommit`` keeps one
/// writer for the life of the provider): the lock file's, so that an append takes the lock without
/// opening the file, and the current log file's, so that it is not opened, checked and closed again
/// at every append. Both are closed when the writer is dropped.
///
/// Another process may remove or rotate the files meanwhile: the lock is taken on the file the lock
/// path names *after* the lock is held (a removed lock file is opened again, so the lock always
/// excludes the other writers), and the current file's descriptor is used only while the current
/// path still names its file.
///
/// Entries written without a sync (the group commit's bounded durability) are synced before the
/// descriptor they were written through is closed or replaced, so no entry misses its sync.
final class LogDescriptors {
    private let lockPath: String
    private var lockDescriptor: Int32
    /// The current file's descriptor, once opened.
    private var currentDescriptor: Int32?
    /// Whether entries were written through ``currentDescriptor`` since its last `fdatasync`.
    private(set) var hasUnsyncedWrites = false

    /// Opens (creating 0600 if needed) the lock file at `lockPath`.
    init(lockPath: String) throws(AccessLogError) {
        self.lockPath = lockPath
        lockDescriptor = try LogIO.open(lockPath, flags: O_RDWR, create: true)
    }

    deinit {
        close(lockDescriptor)
        if let currentDescriptor {
            // A writer dropped after a failure (already reported to its caller) may still have
            // entries in the page cache: sync them on the way out; there is no caller left to
            // report a failure to, and the process's own end would not sync them either.
            if hasUnsyncedWrites { fdatasync(currentDescriptor) }
            close(currentDescriptor)
        }
    }

    /// Records that entries were written through the current descriptor without a sync.
    func markUnsynced() { hasUnsyncedWrites = true }

    /// Records that the current descriptor's file was just synced.
    func markSynced() { hasUnsyncedWrites = false }

    /// `fdatasync`s the current descriptor if entries were written through it without a sync;
    /// `path` names it in an error.
    func syncPending(path: String) throws(AccessLogError) {
        guard hasUnsyncedWrites, let currentDescriptor else { return }
        try LogIO.syncData(currentDescriptor, path: path)
        hasUnsyncedWrites = false
    }

    /// Takes `operation` (`LOCK_EX`, `LOCK_SH`) on the lock file the path names now, waiting for other holders.
    func lock(_ operation: Int32) throws(AccessLogError) {
        while true {
            while flock(lockDescriptor, operation) != 0 {
                guard errno == EINTR else { throw .io(path: lockPath, operation: "flock", errno: errno) }
            }
            if try Self.identity(of: lockDescriptor, path: lockPath) == Self.identity(atPath: lockPath) { return }
            // The lock file was removed or replaced while it was kept: a lock on the old one excludes nobody.
            let reopened = try LogIO.open(lockPath, flags: O_RDWR, create: true)
            close(lockDescriptor)
            lockDescriptor = reopened
        }
    }

    /// Releases the lock.
    func unlock() {
        // Closing the descriptor would release it too; an unlock failure leaves nothing behind that
        // the process's end (or the next lock) would not clear.
        while flock(lockDescriptor, LOCK_UN) != 0 && errno == EINTR {}
    }

    /// The current file at `path`: the kept descriptor while the path still names its file, else
    /// the path opened afresh (and kept); nil when no file is there.
    func currentFile(_ path: String) throws(AccessLogError) -> Int32? {
        if let currentDescriptor {
            if let named = try Self.identity(atPath: path), named == (try Self.identity(of: currentDescriptor, path: path)) {
                return currentDescriptor
            }
            // Another process rotated or removed the file: what this writer put in it is synced first.
            try syncPending(path: path)
            close(currentDescriptor)
            self.currentDescriptor = nil
        }
        let opened = systemOpen(path, O_RDWR | O_CLOEXEC)
        if opened < 0 {
            if errno == ENOENT { return nil }
            throw .io(path: path, operation: "open", errno: errno)
        }
        currentDescriptor = opened
        return opened
    }

    /// Keeps `descriptor` as the current file's (a file just created), closing the one kept before
    /// once what was written through it is synced (`path` names it in an error; `descriptor` is
    /// closed then).
    func keepCurrent(_ descriptor: Int32, path: String) throws(AccessLogError) {
        if let currentDescriptor, currentDescriptor != descriptor {
            do throws(AccessLogError) {
                try syncPending(path: path)
            } catch {
                close(descriptor)
                throw error
            }
            close(currentDescriptor)
        }
        currentDescriptor = descriptor
    }

    private static func identity(of descriptor: Int32, path: String) throws(AccessLogError) -> [UInt64] {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(path: path, operation: "fstat", errno: errno) }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    /// Device and inode of the file `path` names, or nil when there is none.
    private static func identity(atPath path: String) throws(AccessLogError) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw .io(path: path, operation: "stat", errno: errno)
        }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }
}

/// The C library's `open(2)`, which the `open` method above hides inside the type (a file-level
/// name instead of `Glibc.open`, so the file builds against whichever C library it imports).
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}
