import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system rules for everything the keychain keeps on disk: directories 0700, files 0600
/// whatever the umask, never through a symlink, never a file another user owns or others can
/// read. A file that breaks a rule is refused with a clear error rather than silently repaired:
/// a loosened mode may mean the secret already leaked, and the user should know.
enum SecureFile {
    /// Creates `directory` and its missing parents with mode 0700, refusing a symlink at the leaf.
    static func ensureDirectory(_ directory: String) throws(KeychainStoreError) {
        var info = stat()
        if lstat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw .unusableKeychain("\(directory) is not a directory (symlinks are refused)")
            }
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != directory, parent != "/" {
            var parentInfo = stat()
            if stat(parent, &parentInfo) != 0 { try ensureDirectory(parent) }
        }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw .unusableKeychain("cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        // mkdir's mode is filtered by the umask; set it exactly.
        if chmod(directory, 0o700) != 0 {
            throw .unusableKeychain("cannot set the mode of \(directory): \(String(cString: strerror(errno)))")
        }
    }

    /// Checks an existing file: a regular file (not a symlink), owned by this user, not
    /// readable or writable by group or others. Returns false if it does not exist.
    static func validateExisting(_ path: String) throws(KeychainStoreError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw .unusableKeychain("cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .unusableKeychain("\(path) is not a regular file (symlinks are refused)")
        }
        guard info.st_uid == geteuid() else {
            throw .unusableKeychain("\(path) belongs to another user")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw .unusableKeychain(
                "\(path) is accessible by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 on it")
        }
        return true
    }

    /// Creates the (empty) file at `path` with mode 0600 unless it exists.
    static func createEmpty(_ path: String) throws(KeychainStoreError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return }
            throw .unusableKeychain("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        if fchmod(fd, 0o600) != 0 { throw .unusableKeychain("cannot set the mode of \(path)") }
    }

    /// Writes `bytes` to a new file (0600), durably; does nothing if the file already exists.
    static func writeNew(_ bytes: Data, to path: String) throws(KeychainStoreError) {
        try ensureDirectory((path as NSString).deletingLastPathComponent)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return }
            throw .io("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else { throw .io("cannot set the mode of \(path)") }
        let written = bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let result = write(fd, buffer.baseAddress!.advanced(by: done), buffer.count - done)
                if result < 0 { if errno == EINTR { continue }; return -1 }
                done += result
            }
            return done
        }
        guard written == bytes.count, fsync(fd) == 0 else { throw .io("cannot write \(path)") }
    }

    /// Reads a whole small file after validating it; nil if it does not exist.
    static func read(_ path: String) throws(KeychainStoreError) -> Data? {
        guard try validateExisting(path) else { return nil }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue }; throw .io("cannot read \(path)") }
            if count == 0 { break }
            out.append(contentsOf: buffer[0..<count])
            if out.count > 1 << 20 { throw .unusableKeychain("\(path) is unexpectedly large") }
        }
        return out
    }
}
