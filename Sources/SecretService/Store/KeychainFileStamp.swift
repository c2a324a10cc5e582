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

/// A cheap fingerprint of a keychain file's committed state, read without opening the keychain:
/// when two stamps of one path differ, some process may have written to it in between.
///
/// The keychain file is an SQLite database in WAL mode shared by every process that uses it
/// (the provider, `keychainctl`, apps). Each commit rewrites the WAL index header at the start of
/// the `-shm` file (its change counter, last valid frame and salts: the "WAL-index header" of
/// <https://www.sqlite.org/walformat.html>); a checkpoint, or the last connection closing, rewrites
/// the database file itself. The stamp is that header plus the identity, size and modification
/// time of the database and WAL files, so it moves on every commit by anyone.
///
/// A stamp that did not move means nothing was committed; one that moved may also move for a
/// commit that changed nothing a search sees (the access log's checkpoint): callers then refresh
/// cheaply (``SecretStore`` lists persistent references, which needs no decryption).
struct KeychainFileStamp: Equatable {
    /// The fingerprint's bytes (an absent file contributes a fixed marker).
    private let bytes: [UInt8]

    /// The first 136 bytes of `-shm`: both copies of the WAL-index header and the checkpoint
    /// information after them.
    private static let walIndexHeaderBytes = 136

    /// Reads the stamp of the keychain file at `path`.
    init(path: String) {
        var bytes: [UInt8] = []
        for file in [path, path + "-wal"] {
            bytes += Self.statBytes(file)
        }
        bytes += Self.leadingBytes(of: path + "-shm", count: Self.walIndexHeaderBytes)
        self.bytes = bytes
    }

    /// Device, inode, size and modification time (to the nanosecond the filesystem keeps) of a file.
    private static func statBytes(_ file: String) -> [UInt8] {
        var info = stat()
        guard stat(file, &info) == 0 else { return [0xFF] }  // absent (or unreadable): a fixed marker
        let fields: [Int64] = [Int64(bitPattern: UInt64(info.st_dev)), Int64(bitPattern: UInt64(info.st_ino)), Int64(info.st_size),
                               Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec),
                               Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec)]
        return fields.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
    }

    /// The first `count` bytes of a file, with the number read first (a missing file: a marker).
    /// The file is read through a descriptor this process keeps open (``KeptDescriptors``).
    private static func leadingBytes(of file: String, count: Int) -> [UInt8] {
        guard let descriptor = KeptDescriptors.shared.descriptor(for: file) else { return [0xFF] }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        return [UInt8(truncatingIfNeeded: max(read, 0))] + buffer.prefix(max(read, 0))
    }
}

/// Descriptors of `-shm` files that stay open for the life of the process.
///
/// Closing any descriptor of a file drops every POSIX lock this process holds on it, including
/// the locks SQLite's own connections hold on `-shm` to tell other processes the keychain is in
/// use. Another process that then opens the keychain believes it is alone, truncates `-shm` and
/// starts it afresh, and this process's connection, which maps that file, dies with `SIGBUS` or
/// works on an index nobody else sees (<https://www.sqlite.org/howtocorrupt.html>, section 2.2).
/// So a stamp's read of `-shm` never closes its descriptor: it is opened once per file and kept.
/// When the name comes to hold another file (every connection closed, and `-shm` was made anew),
/// the old descriptor belongs to a file no connection of this process uses, and is closed.
private final class KeptDescriptors: @unchecked Sendable {
    static let shared = KeptDescriptors()

    private let lock = ThreadLock()
    private var kept: [String: (descriptor: Int32, device: UInt64, inode: UInt64)] = [:]

    /// A descriptor of the file now at `path`, or nil when there is none (or it cannot be opened).
    func descriptor(for path: String) -> Int32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let identity = (device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        return lock.withLock { () -> Int32? in
            if let current = kept[path] {
                if current.device == identity.device && current.inode == identity.inode { return current.descriptor }
                close(current.descriptor)
                kept[path] = nil
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            var opened = stat()
            guard fstat(descriptor, &opened) == 0 else { return nil }  // kept unclosed: see above
            kept[path] = (descriptor, UInt64(opened.st_dev), UInt64(opened.st_ino))
            return descriptor
        }
    }
}
