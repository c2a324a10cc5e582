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

/// Whether a caller (a uid and its groups) could have changed a file the service is asked to
/// vouch for: written it, or replaced it through a directory on its path. Paths are resolved in
/// the caller's own view of the file system (`/proc/<pid>/root`), so a process in another mount
/// namespace is judged by the files it actually sees.
struct CallerFileAccess {
    /// The caller's uid (`SO_PEERCRED`).
    let uid: UInt32
    /// The caller's primary and supplementary groups (`/proc/<pid>/status`).
    let groups: Set<UInt32>
    /// `/proc/<pid>/root`: the caller's root directory, prefixed to every absolute path.
    let root: String

    /// Whether the caller may write to a file or directory with `info`'s owner and mode.
    func canWrite(_ info: stat) -> Bool {
        if uid == 0 { return true }
        let mode = UInt32(info.st_mode)
        return info.st_uid == uid && mode & 0o200 != 0
            || groups.contains(info.st_gid) && mode & 0o020 != 0
            || mode & 0o002 != 0
    }

    /// Why the caller could have changed the file at absolute `path` (`info` is the file's own
    /// status): it may write the file, or one of the directories above it lets it rename or
    /// replace an entry (a sticky directory, like `/tmp`, protects entries its caller does not
    /// own). Nil when it could not.
    func modification(of path: String, info: stat) -> String? {
        if canWrite(info) { return "\(path) is writable by uid \(uid)" }
        var child = path
        var childOwner = info.st_uid
        while child != "/" {
            let parent = Self.parent(of: child)
            var parentInfo = stat()
            guard stat(root + parent, &parentInfo) == 0 else { return "\(parent) cannot be examined (\(String(cString: strerror(errno))))" }
            let sticky = UInt32(parentInfo.st_mode) & UInt32(S_ISVTX) != 0
            if canWrite(parentInfo) && !(sticky && childOwner != uid && parentInfo.st_uid != uid) {
                return "\(parent) (above \(path)) is writable by uid \(uid)"
            }
            child = parent
            childOwner = parentInfo.st_uid
        }
        return nil
    }

    /// The directory holding absolute `path` (`/` for a top-level entry).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
