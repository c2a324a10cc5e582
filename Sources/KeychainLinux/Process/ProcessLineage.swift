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

/// A process and the chain of processes that started it, as the kernel describes them in `/proc`.
///
/// This is how the Secret Service provider and `keychainctl` name who asked for a secret: the
/// executable of the caller and of each parent up to `init`. It is evidence for the user (in a
/// prompt, in the access log) and the key of per-application access lists — not proof: a process
/// of the same user can ptrace another or run a trusted executable with its own arguments, which
/// docs/SECRET-SERVICE.md states ("Per-application access: what it stops and what it cannot").
///
/// A process may exit, and its id be reused, between two reads of `/proc`. Each link therefore
/// carries the process's start time; ``isStillRunning(_:)`` tells whether an id still names the
/// same process, so a caller can read the lineage, decide, and check that the process it decided
/// about is the one that is still there.
package struct ProcessLineage: Sendable, Equatable {
    /// One process of the chain.
    package struct Link: Sendable, Equatable {
        /// The process id.
        package var pid: Int32
        /// The executable's absolute path (`/proc/<pid>/exe`), or `nil` when the kernel does not let
        /// us read it (a process of another user) or the process exited. A path that no longer
        /// exists ends in " (deleted)", as the kernel reports it.
        package var executable: String?
        /// The kernel's short command name (`/proc/<pid>/comm`, at most 15 bytes, set by the process
        /// itself: shown beside the executable, never trusted on its own).
        package var commandName: String?
        /// When the process started, in clock ticks since boot (`/proc/<pid>/stat`, field 22): with
        /// the pid, what identifies one process across pid reuse.
        package var startTime: UInt64
        /// The parent's process id (0 for the top of the chain).
        package var parentPID: Int32

        /// A link as read from `/proc`, or as a record of one (the access log reads them back).
        package init(pid: Int32, executable: String?, commandName: String?, startTime: UInt64, parentPID: Int32) {
            self.pid = pid
            self.executable = executable
            self.commandName = commandName
            self.startTime = startTime
            self.parentPID = parentPID
        }
    }

    /// The process itself first, then its parent, grandparent… up to `init` (pid 1) or the depth limit.
    package var links: [Link]

    /// A lineage of `links` (the process first): read from `/proc` by ``of(pid:)``, or read back
    /// from a record of one.
    package init(links: [Link]) {
        self.links = links
    }

    /// The process this lineage describes.
    package var process: Link { links[0] }
    /// Its parents, nearest first.
    package var ancestors: ArraySlice<Link> { links.dropFirst() }

    /// How many parents are read at most: deep enough for any shell, terminal multiplexer, IDE and
    /// agent chain, and a bound on the work a caller with a contrived chain can cause.
    package static let maximumDepth = 32

    /// Reads the lineage of `pid` from `/proc`.
    ///
    /// - Throws: ``ProcessLineageError/noSuchProcess(_:)`` when `pid` has no `/proc` entry (it
    ///   exited, or was never there). A parent that exits while the chain is read ends the chain.
    package static func of(pid: Int32) throws(ProcessLineageError) -> ProcessLineage {
        guard let first = link(pid) else { throw .noSuchProcess(pid) }
        var links = [first]
        var seen: Set<Int32> = [pid]
        while links.count < maximumDepth + 1, let parent = links.last.map(\.parentPID), parent > 0,
              !seen.contains(parent), let next = link(parent) {
            seen.insert(parent)
            links.append(next)
        }
        return ProcessLineage(links: links)
    }

    /// The lineage of the running process.
    package static func current() throws(ProcessLineageError) -> ProcessLineage {
        try of(pid: getpid())
    }

    /// Whether `link`'s process id still names the process it named when it was read (it has not
    /// exited and had its id reused).
    package static func isStillRunning(_ link: Link) -> Bool {
        guard let now = stat(of: link.pid) else { return false }
        return now.startTime == link.startTime
    }

    private static func link(_ pid: Int32) -> Link? {
        guard let status = stat(of: pid) else { return nil }
        return Link(pid: pid, executable: executablePath(of: pid), commandName: commandName(of: pid),
                    startTime: status.startTime, parentPID: status.parentPID)
    }

    /// The two fields of `/proc/<pid>/stat` we need. The command name (field 2) is in parentheses
    /// and may itself contain spaces and parentheses, so fields are counted after the last ')'.
    private static func stat(of pid: Int32) -> (parentPID: Int32, startTime: UInt64)? {
        // Read as bytes, not as a String: Character-wise search and split cost about 0.3 million
        // instructions per process of the chain, on every access-log entry keychainctl writes. The
        // command name (field 2) may hold any bytes, ')' and ' ' included, so the fields start after
        // the last ')'.
        guard let bytes = readSmallBytes("/proc/\(pid)/stat"),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After ')': field 3 (state) is index 0, field 4 (ppid) index 1, field 22 (starttime) index 19.
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, let parent = Int32(String(decoding: fields[1], as: UTF8.self)),
              let start = UInt64(String(decoding: fields[19], as: UTF8.self)) else {
            return nil
        }
        return (parent, start)
    }

    private static func executablePath(of pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func commandName(of pid: Int32) -> String? {
        readSmallFile("/proc/\(pid)/comm").map { $0.hasSuffix("\n") ? String($0.dropLast()) : $0 }
    }

    /// A `/proc` file's text: these files are a few hundred bytes; 4 KiB bounds the read.
    private static func readSmallFile(_ path: String) -> String? {
        readSmallBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A `/proc` file's bytes (at most 4 KiB, as ``readSmallFile(_:)``), or nil if it cannot be read.
    private static func readSmallBytes(_ path: String) -> ArraySlice<UInt8>? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return nil }
        return bytes[..<count]
    }
}

/// Why a process's lineage could not be read.
package enum ProcessLineageError: Error, Equatable, CustomStringConvertible {
    /// No process has this id (it exited, or it is in another pid namespace).
    case noSuchProcess(Int32)

    package var description: String {
        switch self {
        case .noSuchProcess(let pid): "no process \(pid) is running (it may have exited)"
        }
    }
}
