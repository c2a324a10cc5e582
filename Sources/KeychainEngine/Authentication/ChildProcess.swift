import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A helper program started with `posix_spawn`, talking over two pipes (its standard input and
/// output; its standard error goes to /dev/null). Used instead of Foundation's `Process`, whose
/// child reaping on Linux depends on a run loop and can stall a second spawn from the same thread.
final class ChildProcess {
    let pid: pid_t
    private var input: Int32
    private let output: Int32
    private var buffer = Data()

    /// Starts `path` with no arguments.
    init(path: String) throws(PinentryFailure) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw .unavailable("cannot create a pipe") }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            throw .unavailable("cannot create a pipe")
        }
        // Close-on-exec for every descriptor, so other children never inherit them; the child
        // gets its ends through dup2, which clears the flag. (pipe2 is not exported to Swift.)
        for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var child: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        defer { for argument in arguments { free(argument) } }
        let result = posix_spawn(&child, path, &actions, nil, arguments, environ)
        close(toChild[0])
        close(fromChild[1])
        guard result == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw .unavailable("cannot start \(path)")
        }
        pid = child
        input = toChild[1]
        output = fromChild[0]
    }

    deinit {
        closeInput()
        close(output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Writes one line (a newline is appended). A closed pipe is reported by the next read.
    func send(_ line: String) {
        guard input >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue }; return }
            written += count
        }
    }

    /// Closes the child's standard input (it sees end of file).
    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// The next line of the child's output, without its newline.
    func readLine() throws(PinentryFailure) -> Data {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[buffer.startIndex..<newline])
                buffer = Data(buffer[buffer.index(after: newline)...])
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 512)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue }; throw .unavailable("cannot read from the prompt program") }
            if count == 0 { throw .unavailable("the prompt program closed the connection") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
