import Foundation
import PrivateBusSupport
#if canImport(Glibc)
import Glibc
#endif

/// What one client process did.
public struct ClientRun: Sendable, CustomStringConvertible {
    /// The exit status, or 128 + the signal number that ended it.
    public var status: Int32
    /// Everything it wrote on standard output, byte for byte.
    public var stdoutBytes: [UInt8]
    /// Everything it wrote on standard error.
    public var stderr: String
    /// Whether the harness had to kill it (it hung past its deadline).
    public var timedOut: Bool

    /// Standard output as text.
    public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }

    /// Status and standard error only: standard output may hold a secret.
    public var description: String { "status \(status)\(timedOut ? " (killed: hung)" : ""), stderr: \(stderr)" }

    /// Runs `argv` to completion with `environment`, `stdin` on standard input (then closed; empty
    /// input when nil), both outputs collected through pipes (never files: they may hold secrets);
    /// killed with SIGKILL after `timeout` seconds.
    static func run(_ argv: [String], environment: [String: String], stdin: [UInt8]?, timeout: Double) throws -> ClientRun {
        let input = try ChildProcess.pipe(), output = try ChildProcess.pipe(), errors = try ChildProcess.pipe()
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(argv, environment: environment, stdin: input.read, stdout: output.write, stderr: errors.write)
        } catch {
            for descriptor in [input.read, input.write, output.read, output.write, errors.read, errors.write] { close(descriptor) }
            throw error
        }
        close(input.read)
        close(output.write)
        close(errors.write)
        ChildProcess.writeAll(stdin ?? [], to: input.write)
        close(input.write)
        let deadline = Date().addingTimeInterval(timeout)
        var collected: [Int32: [UInt8]] = [output.read: [], errors.read: []]
        var open = [output.read, errors.read]
        var timedOut = false
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { break }
            for entry in descriptors where entry.revents != 0 {
                let count = read(entry.fd, &chunk, chunk.count)
                if count > 0 {
                    collected[entry.fd, default: []] += chunk[0..<count]
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        close(output.read)
        close(errors.read)
        var status: Int32 = 0
        if !timedOut {
            // Outputs closed: the process is exiting (or detached them); it gets the rest of the deadline.
            while true {
                let reaped = waitpid(pid, &status, WNOHANG)
                if reaped == pid || (reaped < 0 && errno != EINTR) { break }
                if deadline.timeIntervalSinceNow <= 0 {
                    timedOut = true
                    kill(pid, SIGKILL)
                    waitpid(pid, &status, 0)
                    break
                }
                usleep(2_000)
            }
        } else {
            waitpid(pid, &status, 0)
        }
        // WIFSIGNALED / WEXITSTATUS by hand (the C macros are not imported).
        let signal = status & 0x7f
        let exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return ClientRun(status: exitStatus, stdoutBytes: collected[output.read] ?? [], stderr: String(decoding: collected[errors.read] ?? [], as: UTF8.self),
                         timedOut: timedOut)
    }
}
