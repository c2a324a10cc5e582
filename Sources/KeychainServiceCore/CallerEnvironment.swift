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

/// Reads a caller's environment the way the service is allowed to. `/proc/<pid>/environ` is mode
/// 0400 and owned by the caller, and the service runs as a user of its own without
/// `CAP_DAC_OVERRIDE`, so it cannot open that file. What it holds is a region of the caller's
/// memory, between `env_start` and `env_end` (fields 50 and 51 of `/proc/<pid>/stat`), and
/// `process_vm_readv(2)` reads it with ptrace access rights alone — which `CAP_SYS_PTRACE` gives.
///
/// This is the environment as it is in the caller's memory now: the strings the kernel copied at
/// `exec`, as the process may have rewritten them since (as `/proc/<pid>/environ` would show).
/// The reader runs while the caller is identified; the caller of ``read(pid:)`` checks afterwards
/// that the pidfd's process is still alive, so the pid still named the process that connected.
enum CallerEnvironment {
    /// The largest environment read. Linux bounds a single string at 128 KiB and the whole of
    /// `argv` and `envp` by a quarter of the stack limit, which can be far larger; an environment
    /// beyond this bound is refused rather than read in part, so no variable can be pushed past
    /// the part the service looks at.
    static let maximumBytes = 1 << 20

    /// Why the environment could not be read.
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// The NUL-separated `NAME=value` strings of process `pid`'s environment.
    static func read(pid: Int32) throws(PeerIdentification.Failure) -> Result<Data, Unreadable> {
        let bounds: (start: UInt, end: UInt)
        switch try environmentBounds(pid: pid) {
        case .success(let found): bounds = found
        case .failure(let failure): return .failure(failure)
        }
        let length = Int(bounds.end - bounds.start)
        guard length <= maximumBytes else {
            return .failure(Unreadable(description: "has an environment of \(length) bytes (more than the \(maximumBytes) the service reads)"))
        }
        if length == 0 { return .success(Data()) }
        var contents = Data(count: length)
        let copied = contents.withUnsafeMutableBytes { buffer in
            LinuxSystemCalls.readMemory(pid: pid, address: bounds.start, into: buffer)
        }
        guard copied == length else {
            let reason = copied < 0 ? String(cString: strerror(errno)) : "\(copied) of \(length) bytes"
            throw PeerIdentification.Failure(description: "cannot read the environment of pid \(pid) (process_vm_readv: \(reason))")
        }
        return .success(contents)
    }

    /// `env_start` and `env_end` from `/proc/<pid>/stat`. The second field, the command name, is
    /// in parentheses and may itself hold spaces and parentheses: fields are counted after the last `)`.
    static func environmentBounds(pid: Int32) throws(PeerIdentification.Failure) -> Result<(start: UInt, end: UInt), Unreadable> {
        let text = try ProcessFile.text("/proc/\(pid)/stat")
        return environmentBounds(statLine: text)
    }

    /// See ``environmentBounds(pid:)``; `statLine` is the text of a `/proc/<pid>/stat`.
    static func environmentBounds(statLine text: String) -> Result<(start: UInt, end: UInt), Unreadable> {
        guard let close = text.lastIndex(of: ")") else {
            return .failure(Unreadable(description: "has a /proc stat line without its command name"))
        }
        // Field 3 (the state) is the first after the command name.
        let fields = text[text.index(after: close)...].split(whereSeparator: { $0 == " " || $0 == "\n" })
        let startIndex = 50 - 3, endIndex = 51 - 3
        guard fields.count > endIndex, let start = UInt(fields[startIndex]), let end = UInt(fields[endIndex]) else {
            return .failure(Unreadable(description: "has a /proc stat line without env_start and env_end (a kernel before 3.5?)"))
        }
        // The kernel shows 0 for both to a reader without ptrace access to the process.
        guard start != 0, end >= start else {
            return .failure(Unreadable(description: "hides its environment's bounds from the service (env_start \(start), env_end \(end))"))
        }
        return .success((start, end))
    }
}
