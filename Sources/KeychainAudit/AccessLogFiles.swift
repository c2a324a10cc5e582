import Foundation

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
    var directoryPath: String { (keychainPath as NSString).deletingLastPathComponent }
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

/// The C library's `open(2)`, which the `open` method above hides inside the type (a file-level
/// name instead of `Glibc.open`, so the file builds against any C library Foundation re-exports).
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}
