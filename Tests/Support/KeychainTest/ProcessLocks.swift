import Foundation

/// The POSIX locks a process holds, from `/proc/locks`: what tests read to check that a step did
/// not drop SQLite's locks (closing any descriptor of a file drops every POSIX lock the process
/// holds on it).
package enum ProcessLocks {
    /// How many POSIX locks this process holds on the file at `path`; nil when `path` does not
    /// exist or `/proc/locks` cannot be read. A line reads
    /// "… POSIX ADVISORY READ <pid> <major>:<minor>:<inode> <start> <end>".
    package static func held(on path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, let handle = FileHandle(forReadingAtPath: "/proc/locks"),
              let bytes = try? handle.readToEnd() else { return nil }
        let pid = String(getpid())
        let inode = String(info.st_ino)
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let posix = fields.firstIndex(of: "POSIX"), fields.count > posix + 4 else { return false }
            return fields[posix + 3] == pid && fields[posix + 4].split(separator: ":").last.map(String.init) == inode
        }.count
    }
}
