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

/// Which file a name leads to: its device and inode numbers. A handle records the identity of
/// the keychain file it opened and compares it with what the path names before each call, so a
/// file deleted or replaced (a restore, a `mv`, a sync tool writing a new copy) under a running
/// process is noticed instead of writes going on into a file no one will open again.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// What `path` names now, compared with an identity recorded earlier.
    enum PathState: Equatable {
        /// The path names the same file.
        case same
        /// The path names another file, or nothing (deleted).
        case replaced
        /// The path could not be inspected (an I/O error): nothing is known, nothing is concluded.
        case uninspectable(errno: Int32)
    }

    /// Whether `path` (a symlink itself, not its target) still names the file with this identity.
    func state(of path: String) -> PathState {
        var info = stat()
        guard IOSeam.lstat(path, &info) == 0 else {
            let code = errno
            return code == ENOENT || code == ENOTDIR ? .replaced : .uninspectable(errno: code)
        }
        return FileIdentity(info) == self ? .same : .replaced
    }

    /// The identity of the open file `descriptor`.
    static func of(descriptor: Int32) -> FileIdentity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileIdentity(info)
    }
}
