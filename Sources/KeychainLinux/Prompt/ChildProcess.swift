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

/// A helper program started with `posix_spawn`, talking over two pipes (its standard input and
/// output; its standard error goes to /dev/null). Used instead of Foundation's `Process`, whose
/// child reaping on Linux depends on a run loop and can stall a second spawn from the same thread.
///
/// The peer is not trusted to behave: every read waits at most until a deadline, a line may be
/// at most ``maximumLineLength`` bytes and the whole conversation at most ``maximumTotalRead``,
/// and a child that broke one of these rules (or does not exit soon after its input closes) is
/// killed when the object is released, so a hung or flooding program cannot hang the caller.
final class ChildProcess {
    /// Assuan's limit: a line is at most 1000 bytes, its LF included.
    static let maximumLineLength = 1000
    /// All the bytes one prompt may send: a greeting, a few `OK`s and one password fit many
    /// times over.
    static let maximumTotalRead = 64 * 1024
    /// Seconds a well-behaved child gets to exit after its input is closed before it is killed.
    static let exitGracePeriod = 2.0

    let pid: pid_t
    private var input: Int32
    private let output: Int32
    /// Bytes read and not yet returned as lines: a fixed allocation (never grown, so never
    /// copied behind our back) that may hold the password, zeroed as lines leave it and when
    /// the object is released.
    private let buffer: UnsafeMutablePointer<UInt8>
    private var buffered = 0
    /// Bytes asked of each `read`.
    private static let chunkSize = 512
    private static let bufferCapacity = maximumLineLength + chunkSize
    private var totalRead = 0
    /// Set once a read failed (timeout, oversized output, closed pipe): the child is then killed
    /// at once instead of being given time to exit.
    private(set) var hasFailed = false

    /// Starts `path` with no arguments (through `Subprocess.spawn`: no descriptor of ours but the
    /// two pipes reaches it), its standard error on /dev/null.
    init(path: String) throws(PinentryFailure) {
        let toChild: (read: Int32, write: Int32)
        let fromChild: (read: Int32, write: Int32)
        do {
            toChild = try Subprocess.pipe()
            do {
                fromChild = try Subprocess.pipe()
            } catch {
                close(toChild.read); close(toChild.write)
                throw error
            }
        } catch {
            throw .unavailable("cannot create a pipe (\(SystemErrorText.of(error)))")
        }
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        let child: pid_t
        do {
            guard devNull >= 0 else { throw Subprocess.Failure("/dev/null: \(String(cString: strerror(errno)))") }
            child = try Subprocess.spawn(executable: path, arguments: [path], environment: nil,
                                         stdin: toChild.read, stdout: fromChild.write, stderr: devNull)
        } catch {
            for descriptor in [toChild.read, toChild.write, fromChild.read, fromChild.write, devNull] where descriptor >= 0 { close(descriptor) }
            throw .unavailable("cannot start \(path) (\(SystemErrorText.of(error)))")
        }
        close(devNull)
        close(toChild.read)
        close(fromChild.write)
        pid = child
        input = toChild.write
        output = fromChild.read
        buffer = .allocate(capacity: Self.bufferCapacity)
        buffer.initialize(repeating: 0, count: Self.bufferCapacity)
    }

    deinit {
        closeInput()
        close(output)
        buffer.update(repeating: 0, count: Self.bufferCapacity)
        buffer.deallocate()
        reap()
    }

    /// Waits for the child to exit: at most ``exitGracePeriod`` seconds, none if it misbehaved;
    /// then kills it, so releasing a `ChildProcess` always returns.
    private func reap() {
        var status: Int32 = 0
        let grace = Deadline(secondsFromNow: hasFailed ? 0 : Self.exitGracePeriod)
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return }
            if result < 0 {
                if errno == EINTR { continue }
                return  // Not our child any more (already reaped): nothing to wait for.
            }
            if grace.hasPassed {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return
            }
            usleep(10_000)
        }
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

    /// The next line of the child's output, without its newline, waiting until `deadline` at
    /// most. The caller owns the returned bytes and should zero them once used.
    func readLine(deadline: Deadline) throws(PinentryFailure) -> Data {
        do {
            return try nextLine(deadline: deadline)
        } catch {
            hasFailed = true
            throw error
        }
    }

    private func nextLine(deadline: Deadline) throws(PinentryFailure) -> Data {
        while true {
            if let newline = UnsafeBufferPointer(start: buffer, count: buffered).firstIndex(of: UInt8(ascii: "\n")) {
                guard newline < Self.maximumLineLength else { throw .unavailable("the prompt program sent an over-long line") }
                let line = Data(bytes: buffer, count: newline)
                // Move the rest to the front and zero what it leaves behind.
                let rest = buffered - (newline + 1)
                if rest > 0 { memmove(buffer, buffer + newline + 1, rest) }
                (buffer + rest).update(repeating: 0, count: buffered - rest)
                buffered = rest
                return line
            }
            guard buffered < Self.maximumLineLength else { throw .unavailable("the prompt program sent an over-long line") }
            guard totalRead < Self.maximumTotalRead else { throw .unavailable("the prompt program sent far more than a prompt needs") }
            var entry = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, deadline.remainingMilliseconds(cap: 1000))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .unavailable("cannot wait for the prompt program")
            }
            if ready == 0 {
                if deadline.hasPassed { throw .unavailable("the prompt program did not answer in time") }
                continue
            }
            // Straight into the buffer: no intermediate copy of the password to forget.
            let count = read(output, buffer + buffered, Self.chunkSize)
            if count < 0 { if errno == EINTR { continue }; throw .unavailable("cannot read from the prompt program") }
            if count == 0 { throw .unavailable("the prompt program closed the connection") }
            totalRead += count
            buffered += count
        }
    }
}
