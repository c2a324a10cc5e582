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

/// The `/proc` files of one connected process that the service re-reads before each of its
/// requests (``ConnectedPeer``), held open from the moment it connected: its `/proc/<pid>`
/// directory and, in it, `status` and `stat`.
///
/// A descriptor opened under `/proc/<pid>` stays bound to that process, not to the number: once
/// the process exits its reads fail (or show a zombie, which the caller's pidfd tells apart), and a
/// later process given the same pid is never seen through it. Each read starts at offset 0, where
/// the kernel builds the file anew, so it shows the process as it is now — after an exec, a
/// `setuid`, a tracer's attach — exactly as opening the path again would, without looking the pid
/// up each time.
final class ProcessFiles {
    private let pid: Int32
    private let directory: Int32
    private let statusFile: Int32
    private let statFile: Int32
    /// Read into and reused: one connection's checks run on its own thread, one at a time.
    private var buffer = [UInt8](repeating: 0, count: 4_096)

    /// The files of process `pid`. The caller checks afterwards (with its pidfd) that the process
    /// it means was still alive, so that `pid` named that process when these were opened.
    init(pid: Int32) throws(PeerIdentification.Failure) {
        let path = "/proc/\(pid)"
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw Self.failure("cannot open \(path)") }
        let statusFile = openat(directory, "status", O_RDONLY | O_CLOEXEC)
        guard statusFile >= 0 else {
            let failure = Self.failure("cannot open \(path)/status")
            close(directory)
            throw failure
        }
        let statFile = openat(directory, "stat", O_RDONLY | O_CLOEXEC)
        guard statFile >= 0 else {
            let failure = Self.failure("cannot open \(path)/stat")
            close(statusFile)
            close(directory)
            throw failure
        }
        self.pid = pid
        self.directory = directory
        self.statusFile = statusFile
        self.statFile = statFile
    }

    deinit {
        close(statFile)
        close(statusFile)
        close(directory)
    }

    /// `/proc/<pid>/status` now.
    func status() throws(PeerIdentification.Failure) -> [UInt8] {
        try contents(statusFile, name: "status")
    }

    /// The image in `/proc/<pid>/stat` now.
    func image() throws(PeerIdentification.Failure) -> ProcessImage {
        guard let image = ProcessImage.parse(bytes: try contents(statFile, name: "stat")) else {
            throw PeerIdentification.Failure(description: "/proc/\(pid)/stat lacks the fields of the process's image")
        }
        return image
    }

    /// The status of the file the process runs now (`/proc/<pid>/exe`).
    func executable() throws(PeerIdentification.Failure) -> stat {
        var info = stat()
        guard fstatat(directory, "exe", &info, 0) == 0 else { throw Self.failure("cannot examine /proc/\(pid)/exe") }
        return info
    }

    /// The whole file of `descriptor`, read from its start (at most ``ProcessFile/maximumBytes``).
    ///
    /// `status` and `stat` are single-record `seq_file`s: the kernel builds the whole file for a
    /// read at offset 0 and hands out as much of it as fits, so a read that leaves room in the
    /// buffer has returned all of it. Reading on to the end (a second `pread` at a nonzero offset)
    /// would make the kernel build the file a second time per request for the empty answer; the
    /// buffer grows and reading goes on only when a read filled it.
    func contents(_ descriptor: Int32, name: String) throws(PeerIdentification.Failure) -> [UInt8] {
        var length = 0
        while true {
            if length == buffer.count {
                guard buffer.count < ProcessFile.maximumBytes else {
                    throw PeerIdentification.Failure(description: "/proc/\(pid)/\(name) is longer than \(ProcessFile.maximumBytes) bytes")
                }
                buffer += [UInt8](repeating: 0, count: buffer.count)
            }
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + length, $0.count - length, off_t(length)) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.failure("cannot read /proc/\(pid)/\(name)")
            }
            length += count
            if length < buffer.count { break }
        }
        return Array(buffer[..<length])
    }

    private static func failure(_ what: String) -> PeerIdentification.Failure {
        PeerIdentification.Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
