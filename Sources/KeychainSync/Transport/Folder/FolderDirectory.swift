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

/// File operations inside a shared folder that never follow a symbolic link below its root:
/// every path is walked one component at a time from a descriptor of the folder with `openat`
/// and `O_NOFOLLOW`, so that a link planted by whoever else writes to the folder (another
/// device, the sync tool) cannot send a read or a write outside it, even if it appears between
/// a check and the use.
struct FolderDirectory {
    /// An open directory inside the folder (closed by ``close()``).
    struct Handle {
        let descriptor: Int32
        func close() { closeDescriptor(descriptor) }
    }

    /// What a directory entry is, from `fstatat(…, AT_SYMLINK_NOFOLLOW)`.
    enum Kind { case file(size: Int, modified: timespec, inode: UInt64), directory, symbolicLink, other }

    /// A system call that failed, with the path inside the folder.
    struct Failure: Error {
        var operation: String
        var path: String
        var code: Int32
        var message: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
    }

    /// Opens the folder itself (its own path may be a link: the user chose it).
    static func openRoot(_ path: String) throws(Failure) -> Handle {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(operation: "open", path: path, code: errno) }
        return Handle(descriptor: descriptor)
    }

    /// Opens the subdirectory `name` of `parent`, refusing a link; with `create`, makes it (0700) first.
    static func openDirectory(_ name: String, in parent: Handle, create: Bool) throws(Failure) -> Handle {
        if create, mkdirat(parent.descriptor, name, 0o700) != 0, errno != EEXIST {
            throw Failure(operation: "mkdir", path: name, code: errno)
        }
        let descriptor = openat(parent.descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(operation: "open", path: name, code: errno) }
        return Handle(descriptor: descriptor)
    }

    /// The entry names of `directory`, without `.` and `..`.
    static func entries(of directory: Handle) throws(Failure) -> [String] {
        let copy = dup(directory.descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let code = errno
            throw Failure(operation: "opendir", path: ".", code: code)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// What `name` in `directory` is, without following a link; nil when it does not exist.
    static func kind(of name: String, in directory: Handle) throws(Failure) -> Kind? {
        var status = stat()
        guard fstatat(directory.descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            throw Failure(operation: "stat", path: name, code: errno)
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .file(size: Int(status.st_size), modified: status.st_mtim, inode: UInt64(status.st_ino))
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// The bytes of the regular file `name`, or nil when it is not one (gone, a link, a FIFO) or
    /// larger than `limit`. Opened without following a link and without blocking on a FIFO,
    /// then checked on the open descriptor.
    static func readFile(_ name: String, in directory: Handle, limit: Int) throws(Failure) -> Data? {
        let descriptor = openat(directory.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ELOOP || errno == ENXIO { return nil }
            throw Failure(operation: "open", path: name, code: errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(operation: "stat", path: name, code: errno) }
        guard status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) <= limit else { return nil }
        var bytes = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw Failure(operation: "read", path: name, code: errno) }
            if count == 0 { break }
            bytes.append(buffer, count: count)
            if bytes.count > limit { return nil }  // grew while being read
        }
        return bytes
    }

    /// Replaces `name` with `bytes` atomically: a temporary file in the same directory, written,
    /// fsynced, renamed over `name`, and the directory fsynced, so that a reader (or the sync tool)
    /// sees the old file or the new one, never a part, and a crash leaves one of the two.
    static func writeFile(_ name: String, _ bytes: Data, in directory: Handle) throws(Failure) {
        let temporary = FolderTransport.temporaryPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".tmp"
        let descriptor = openat(directory.descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(operation: "create", path: temporary, code: errno) }
        var failure: Failure?
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in write(descriptor, raw.baseAddress! + offset, raw.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { failure = Failure(operation: "write", path: temporary, code: errno); break }
            offset += written
        }
        if failure == nil, fsync(descriptor) != 0 { failure = Failure(operation: "fsync", path: temporary, code: errno) }
        if close(descriptor) != 0, failure == nil { failure = Failure(operation: "close", path: temporary, code: errno) }
        if failure == nil, renameat(directory.descriptor, temporary, directory.descriptor, name) != 0 {
            failure = Failure(operation: "rename", path: name, code: errno)
        }
        if let failure {
            unlinkat(directory.descriptor, temporary, 0)
            throw failure
        }
        try syncDirectory(directory, path: name)
    }

    /// Removes the file `name` (absent is fine) and makes the removal durable.
    static func removeFile(_ name: String, in directory: Handle) throws(Failure) {
        guard unlinkat(directory.descriptor, name, 0) == 0 || errno == ENOENT else {
            throw Failure(operation: "remove", path: name, code: errno)
        }
        try syncDirectory(directory, path: name)
    }

    private static func syncDirectory(_ directory: Handle, path: String) throws(Failure) {
        // EINVAL: some network file systems cannot fsync a directory; the rename is still atomic.
        guard fsync(directory.descriptor) == 0 || errno == EINVAL else { throw Failure(operation: "fsync the folder of", path: path, code: errno) }
    }
}

/// `close(2)`; a name of its own because inside `FolderDirectory.Handle` `close` is its method. At
/// file scope the name is the C library's.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
