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

/// File-system rules for everything the keychain keeps on disk: directories 0700, files 0600
/// whatever the umask, never through a symlink, never a file another user owns or others can
/// read. A file that breaks a rule is refused with a clear error rather than silently repaired:
/// a loosened mode may mean the secret already leaked, and the user should know.
///
/// Directories that already exist are refused, not tightened, when another user owns them or
/// group or others can write to them: whoever can write there can swap or plant files next to
/// the keychain (a `-wal` SQLite would replay, a symlink in place of the file), and changing the
/// mode of a directory we did not create could break whatever else lives there. The error names
/// the fix (`chmod go-w`).
enum SecureFile {
    /// Creates `directory` and its missing parents with mode 0700, refusing a symlink at the leaf
    /// and an existing leaf that fails ``validateDirectory(_:)``.
    static func ensureDirectory(_ directory: String) throws(KeychainStoreError) {
        if try validateDirectory(directory) { return }
        let parent = FilePaths.deletingLastComponent(directory)
        if !parent.isEmpty, parent != directory, parent != "/" {
            var parentInfo = stat()
            if IOSeam.stat(parent, &parentInfo) != 0 { try ensureDirectory(parent) }
        }
        if IOSeam.mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw failure(errno, "cannot create \(directory)")
        }
        // mkdir's mode is filtered by the umask; set it exactly.
        if IOSeam.chmod(directory, 0o700) != 0 {
            throw failure(errno, "cannot set the mode of \(directory)")
        }
    }

    /// Checks an existing directory: a real directory (not a symlink), owned by this user, not
    /// writable by group or others. Returns false if it does not exist.
    static func validateDirectory(_ directory: String) throws(KeychainStoreError) -> Bool {
        var info = stat()
        guard IOSeam.lstat(directory, &info) == 0 else {
            if errno == ENOENT { return false }
            throw failure(errno, "cannot inspect \(directory)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw KeychainStoreError(.unsafeDirectory(path: directory, problem: "\(directory) is not a directory (symlinks are refused)"))
        }
        guard info.st_uid == geteuid() else {
            throw KeychainStoreError(.unsafeDirectory(path: directory, problem: "the directory \(directory) belongs to another user; "
                                                      + "keep keychains in a directory of your own, e.g. ~/.local/share/keychainkit"))
        }
        guard info.st_mode & 0o022 == 0 else {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            if info.st_mode & S_ISVTX != 0 {
                // A shared directory like /tmp: others may create files there, and it is not ours to tighten.
                throw KeychainStoreError(.unsafeDirectory(path: directory, problem: "the directory \(directory) is shared (mode \(mode)): others "
                                                          + "can create files beside the keychain; keep keychains in a directory only you can "
                                                          + "write, e.g. ~/.local/share/keychainkit"))
            }
            throw KeychainStoreError(.unsafeDirectory(path: directory, problem: "the directory \(directory) is writable by group or others "
                                                      + "(mode \(mode)); run chmod go-w on it, or keep keychains in a directory only you "
                                                      + "can write, e.g. ~/.local/share/keychainkit"))
        }
        return true
    }

    /// Refuses a `-wal` or `-shm` file that was not made by this keychain before SQLite sees it:
    /// SQLite would replay a planted WAL into the database, or share a planted index with its
    /// writer. Ours are regular files owned by this user with mode 0600 and one name, so
    /// anything else present (a symlink, another user's file, a group- or world-accessible one)
    /// was planted.
    static func refusePlantedCompanions(of path: String) throws(KeychainStoreError) {
        for suffix in ["-wal", "-shm"] {
            do {
                _ = try validateExisting(path + suffix)
            } catch {
                // The companion's own problem (mode, owner, symlink) stays in the text; a failed
                // system call is passed on as it is.
                let problem: String
                switch error.reason {
                case .unsafeFileMode(let file, let mode): problem = "\(file) is accessible by group or others (mode \(String(mode, radix: 8)))"
                case .notARegularFile(let file): problem = "\(file) is not a regular file"
                case .unusableKeychain(let text) where error.systemErrno == nil: problem = text
                default: throw error
                }
                throw .unusableKeychain("refusing to open \(path): \(problem) — a \(suffix) file this keychain did not "
                                        + "create; remove it if no process is using the keychain")
            }
        }
    }

    /// Linux's `O_PATH` (not exported to Swift by Glibc): a descriptor that names a file without
    /// opening it for reading or writing. `fstat` works on it, and closing it drops no POSIX lock
    /// (the kernel's `filp_close` skips path-only files), whereas closing any other descriptor of
    /// a file drops every lock the process holds on it, SQLite's included
    /// (<https://www.sqlite.org/howtocorrupt.html>, section 2.2). The value of x86-64 and arm64.
    static let pathOnly: Int32 = 0o10000000

    /// Opens `path` without following a symlink and checks the file actually opened (`fstat`):
    /// a regular file owned by this user that group and others cannot access, with one name
    /// unless `allowHardLinks`. This closes the gap between an `lstat` check and the open, where
    /// the name could be swapped for another file. Returns the open descriptor (close-on-exec),
    /// which the caller closes.
    static func openVerified(_ path: String, flags: Int32 = O_RDONLY, allowHardLinks: Bool = false) throws(KeychainStoreError) -> Int32 {
        let fd = IOSeam.open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw failure(errno, "cannot open \(path)") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            IOSeam.close(fd)
            throw failure(code, "cannot inspect \(path)")
        }
        // With `O_NOFOLLOW`, a path-only open of a symlink names the link instead of failing:
        // refuse it as the other opens do.
        if flags & pathOnly != 0, info.st_mode & S_IFMT == S_IFLNK {
            IOSeam.close(fd)
            throw failure(ELOOP, "cannot open \(path)")
        }
        do {
            try check(info, of: path, allowHardLinks: allowHardLinks)
        } catch {
            IOSeam.close(fd)
            throw error
        }
        return fd
    }

    /// Checks an existing file: a regular file (not a symlink), owned by this user, not
    /// readable or writable by group or others, and — unless `allowHardLinks` — with no second
    /// hard link (SQLite would keep the journal of each name apart and corrupt the file).
    /// Returns false if it does not exist.
    static func validateExisting(_ path: String, allowHardLinks: Bool = false) throws(KeychainStoreError) -> Bool {
        var info = stat()
        guard IOSeam.lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw failure(errno, "cannot inspect \(path)")
        }
        try check(info, of: path, allowHardLinks: allowHardLinks)
        return true
    }

    /// Refuses a file that is not a regular file of this user's with one name (unless
    /// `allowHardLinks`) and no access for group or others.
    private static func check(_ info: stat, of path: String, allowHardLinks: Bool) throws(KeychainStoreError) {
        guard info.st_mode & S_IFMT == S_IFREG else { throw KeychainStoreError(.notARegularFile(path: path)) }
        guard info.st_uid == geteuid() else { throw .unusableKeychain("\(path) belongs to another user") }
        guard allowHardLinks || info.st_nlink == 1 else {
            throw .unusableKeychain("\(path) has \(info.st_nlink) hard links; a keychain file must have one name")
        }
        guard info.st_mode & 0o077 == 0 else { throw KeychainStoreError(.unsafeFileMode(path: path, mode: UInt32(info.st_mode & 0o777))) }
    }

    /// The size of the open file `descriptor` (nil if it cannot be inspected).
    static func size(of descriptor: Int32) -> Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// The refusal of an empty file at a keychain path, with the fix.
    static func emptyFile(_ path: String) -> KeychainStoreError {
        KeychainStoreError(.notAKeychain(path: path, problem: emptyFileReason(path)))
    }

    /// Why an empty file at a keychain path is refused, with the fix.
    private static func emptyFileReason(_ path: String) -> String {
        "\(path) is empty (0 bytes): it is not a keychain (a keychain file is never empty). If it should hold "
            + "your keychain, restore it from a backup; otherwise remove it, and the next item stored creates a new keychain there"
    }

    /// Creates the (empty) file at `path` with mode 0600 unless it exists.
    static func createEmpty(_ path: String) throws(KeychainStoreError) {
        let fd = IOSeam.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return }
            throw failure(errno, "cannot create \(path)")
        }
        defer { IOSeam.close(fd) }
        if IOSeam.fchmod(fd, 0o600) != 0 { throw failure(errno, "cannot set the mode of \(path)") }
    }

    /// Writes `bytes` to a new file (0600), durably; does nothing if the file already exists.
    /// The bytes go to a private temporary name first and are linked into place only once they
    /// are on disk, so a concurrent reader never sees a half-written file, and a process that
    /// loses the race keeps the winner's file.
    static func writeNew(_ bytes: Data, to path: String) throws(KeychainStoreError) {
        try ensureDirectory(FilePaths.deletingLastComponent(path))
        let temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0 ... .max))"
        let fd = IOSeam.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 { throw failure(errno, "cannot create \(temporary)") }
        defer { _ = unlink(temporary) }  // after a successful link the file lives on under `path`
        do {
            defer { IOSeam.close(fd) }
            guard IOSeam.fchmod(fd, 0o600) == 0 else { throw failure(errno, "cannot set the mode of \(temporary)") }
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                var done = 0
                while done < buffer.count {
                    let result = IOSeam.write(fd, base.advanced(by: done), buffer.count - done)  // EINTR is retried inside
                    if result < 0 { return -1 }
                    done += result
                }
                return done
            }
            guard written == bytes.count else { throw failure(errno, "cannot write \(temporary)") }
            guard IOSeam.fsync(fd) == 0 else { throw failure(errno, "cannot write \(temporary)") }
        }
        // link(2) never replaces an existing file: whoever links first wins.
        if link(temporary, path) != 0, errno != EEXIST { throw failure(errno, "cannot create \(path)") }
        // The new name must survive a power loss too: ThisDeviceOnly keys are wrapped under it.
        let directory = FilePaths.deletingLastComponent(path)
        let directoryFD = IOSeam.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw failure(errno, "cannot open \(directory)") }
        defer { IOSeam.close(directoryFD) }
        guard IOSeam.fsync(directoryFD) == 0 else { throw failure(errno, "cannot write \(directory)") }
    }

    /// The error for a failed system call, from `errno`: a full disk is `.diskFull` (errSecDiskFull),
    /// a read-only file system `.readOnly`, a hardware or network failure `.io` (errSecIO), and
    /// anything about names, permissions or links `.unusableKeychain`.
    static func failure(_ code: Int32, _ what: String) -> KeychainStoreError {
        let reason = "\(what): \(String(cString: strerror(code)))"
        var error: KeychainStoreError
        switch code {
        case ENOSPC, EDQUOT: error = .diskFull
        case EROFS: error = .readOnly
        case EIO, ENXIO, ENODEV, ETIMEDOUT, ESTALE, ENOMEM, EAGAIN, EMFILE, ENFILE: error = .io(reason)
        default: error = .unusableKeychain(reason)
        }
        error.systemErrno = code
        return error
    }

    /// Reads a whole small file after validating it; nil if it does not exist.
    static func read(_ path: String) throws(KeychainStoreError) -> Data? {
        // The device key briefly has two names while `writeNew` links it into place.
        guard try validateExisting(path, allowHardLinks: true) else { return nil }
        let fd = try openVerified(path, allowHardLinks: true)
        defer { IOSeam.close(fd) }
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer { buffer.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }  // it held key bytes
        while true {
            let count = buffer.withUnsafeMutableBytes { IOSeam.read(fd, $0.baseAddress, $0.count) }  // EINTR is retried inside
            if count < 0 { throw failure(errno, "cannot read \(path)") }
            if count == 0 { break }
            out.append(contentsOf: buffer[0..<count])
            if out.count > 1 << 20 { throw .unusableKeychain("\(path) is unexpectedly large") }
        }
        return out
    }
}
