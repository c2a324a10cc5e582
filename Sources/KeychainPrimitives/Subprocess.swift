#if os(Linux)
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

/// The one way KeychainKit starts a program (git, pinentry, the TPM tools) and the one way its test
/// support does: `posix_spawn` of an absolute path with an argument array (never a shell), an empty
/// signal mask and default signal actions in the child (a caller's threads may block signals, and a
/// child inherits the mask of the thread that spawns it), the given descriptors as standard
/// input/output/error and **no other descriptor**: every one above 2 is closed in the child, not only
/// the close-on-exec ones, so a keychain file or a socket opened elsewhere in this process never
/// lives on in the program.
///
/// Secrets go to a child on its standard input (``run(executable:arguments:environment:input:deadline:outputLimit:)``'s
/// `input`), never in its arguments: any local user can read a process's argv from /proc.
package enum Subprocess {
    /// A program that could not be started, or a descriptor that could not be made for it.
    package struct Failure: Error, CustomStringConvertible {
        /// What failed, with the system's reason.
        package let description: String

        package init(_ description: String) { self.description = description }
    }

    /// What one ``run(executable:arguments:environment:input:deadline:outputLimit:)`` produced.
    package struct Outcome: Sendable {
        /// The exit status (128 + the signal's number when a signal ended it).
        package var status: Int32
        /// Standard output, at most the run's limit.
        package var output: Data
        /// The end of standard error (at most 8 KiB), for messages.
        package var errorText: String
        /// Whether the deadline passed and the program (with its process group) was killed.
        package var timedOut: Bool
        /// Whether standard output went over the limit and the program was killed.
        package var outputOverLimit: Bool

        /// Exit status 0, in time and within the output limit.
        package var succeeded: Bool { status == 0 && !timedOut && !outputOverLimit }
    }

    /// Starts `executable` (an absolute path) with `arguments` (its argv, `argv[0]` included) and
    /// returns its pid. `environment` nil passes this process's own. With `ownProcessGroup` the
    /// child leads a new process group from its first instruction, so that `kill(-pid, …)` reaches
    /// it and everything it starts.
    package static func spawn(executable: String, arguments: [String], environment: [String: String]?,
                              stdin: Int32, stdout: Int32, stderr: Int32, ownProcessGroup: Bool = false) throws(Failure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stdout, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stderr, STDERR_FILENO)
        // After the dup2s, which may read descriptors above 2. Without it (glibc before 2.34, or
        // another libc) the child still gets none of the close-on-exec descriptors.
        if let addCloseFrom = addCloseFromFunction {
            let added = addCloseFrom(&actions, STDERR_FILENO + 1)
            guard added == 0 else { throw Failure("posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(added)))") }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let cEnvironment: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment ?? [] { free(pointer) }
        }
        var child: pid_t = 0
        let result = cEnvironment.map { posix_spawn(&child, executable, &actions, &attributes, cArguments, $0) }
            ?? posix_spawn(&child, executable, &actions, &attributes, cArguments, ProcessEnvironment.entries)
        guard result == 0 else { throw Failure("cannot start \(executable): \(String(cString: strerror(result)))") }
        return child
    }

    /// Runs `executable` with `arguments` (argv, `argv[0]` included), writing `input` to its standard
    /// input and collecting its standard output and error in one `poll` loop (so that neither side
    /// can fill a buffer and wait for the other) until it exits. At `deadline`, or once its output
    /// passes `outputLimit` bytes, the program and everything it started (it leads its own process
    /// group) are killed, and the outcome says which.
    package static func run(executable: String, arguments: [String], environment: [String: String]?, input: Data = Data(),
                            deadline: ContinuousClock.Instant, outputLimit: Int = 64 << 20) throws(Failure) -> Outcome {
        let stdinPair = try socketPair()
        let stdoutPair: (Int32, Int32)
        let stderrPair: (Int32, Int32)
        do {
            stdoutPair = try socketPair()
        } catch {
            close(stdinPair.0); close(stdinPair.1)
            throw error
        }
        do {
            stderrPair = try socketPair()
        } catch {
            close(stdinPair.0); close(stdinPair.1); close(stdoutPair.0); close(stdoutPair.1)
            throw error
        }
        // Ours: .0; the child's: .1 (dup2'd onto 0, 1, 2, which clears close-on-exec there only).
        let child: pid_t
        do {
            child = try spawn(executable: executable, arguments: arguments, environment: environment,
                              stdin: stdinPair.1, stdout: stdoutPair.1, stderr: stderrPair.1, ownProcessGroup: true)
        } catch {
            for descriptor in [stdinPair.0, stdinPair.1, stdoutPair.0, stdoutPair.1, stderrPair.0, stderrPair.1] { close(descriptor) }
            throw error
        }
        close(stdinPair.1); close(stdoutPair.1); close(stderrPair.1)
        var outcome = exchange(input: input, stdin: stdinPair.0, stdout: stdoutPair.0, stderr: stderrPair.0,
                               deadline: deadline, outputLimit: outputLimit, child: child)
        outcome.status = waitForExit(child)
        if outcome.timedOut || outcome.outputOverLimit { awaitGroupGone(child) }
        return outcome
    }

    /// After the group was killed: waits (at most two seconds) until no process of group `group`
    /// is still running, so that a caller told "killed" finds nothing left (SIGKILL is delivered
    /// asynchronously, and a grandchild such as git-remote-http can outlive its parent's reaping
    /// for a moment on a busy machine). Zombies waiting for their new parent to reap them count
    /// as gone: they run nothing.
    private static func awaitGroupGone(_ group: pid_t) {
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            guard kill(-group, SIGKILL) == 0, groupHasRunningMembers(group) else { return }
            usleep(10_000)
        }
    }

    /// Whether a process of group `group` is alive and not a zombie (`/proc/<pid>/stat`: the
    /// state is the first field after the command name, the process group the third).
    private static func groupHasRunningMembers(_ group: pid_t) -> Bool {
        guard let directory = opendir("/proc") else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard Int32(name) != nil else { continue }
            let descriptor = open("/proc/\(name)/stat", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            var bytes = [UInt8](repeating: 0, count: 1024)
            let count = read(descriptor, &bytes, bytes.count)
            close(descriptor)
            guard count > 0, let nameEnd = bytes[..<count].lastIndex(of: UInt8(ascii: ")")) else { continue }
            let fields = bytes[(nameEnd + 1)..<count].split(separator: UInt8(ascii: " "))
            guard fields.count > 2, let state = fields[0].first,
                  Int32(String(decoding: fields[2], as: UTF8.self)) == group else { continue }
            if state != UInt8(ascii: "Z") { return true }
        }
        return false
    }

    /// Feeds `input`, collects output, and kills the process group at the deadline or over the limit.
    private static func exchange(input: Data, stdin: Int32, stdout: Int32, stderr: Int32, deadline: ContinuousClock.Instant,
                                 outputLimit: Int, child: pid_t) -> Outcome {
        var outcome = Outcome(status: -1, output: Data(), errorText: "", timedOut: false, outputOverLimit: false)
        var errorBytes = Data()
        var written = 0
        var stdinOpen = true
        var stdoutOpen = true
        var stderrOpen = true
        if input.isEmpty { shutdown(stdin, Int32(SHUT_WR)); close(stdin); stdinOpen = false }
        defer {
            if stdinOpen { close(stdin) }
            if stdoutOpen { close(stdout) }
            if stderrOpen { close(stderr) }
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while stdoutOpen || stderrOpen {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero {
                outcome.timedOut = true
                kill(-child, SIGKILL)
                break
            }
            var descriptors: [pollfd] = []
            if stdoutOpen { descriptors.append(pollfd(fd: stdout, events: Int16(POLLIN), revents: 0)) }
            if stderrOpen { descriptors.append(pollfd(fd: stderr, events: Int16(POLLIN), revents: 0)) }
            if stdinOpen { descriptors.append(pollfd(fd: stdin, events: Int16(POLLOUT), revents: 0)) }
            let milliseconds = Int32(clamping: max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
            let ready = poll(&descriptors, nfds_t(descriptors.count), min(milliseconds, 1000))
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            for entry in descriptors where entry.revents != 0 {
                if entry.fd == stdin {
                    let sent = input.withUnsafeBytes { raw in
                        send(stdin, raw.baseAddress! + written, min(raw.count - written, 65536), Int32(MSG_NOSIGNAL))
                    }
                    if sent > 0 { written += sent }
                    if sent < 0 && errno != EAGAIN && errno != EINTR { written = input.count }  // the program stopped reading
                    if written >= input.count {
                        shutdown(stdin, Int32(SHUT_WR)); close(stdin); stdinOpen = false
                    }
                    continue
                }
                let count = recv(entry.fd, &buffer, buffer.count, 0)
                if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                if count <= 0 {
                    close(entry.fd)
                    if entry.fd == stdout { stdoutOpen = false } else { stderrOpen = false }
                    continue
                }
                if entry.fd == stdout {
                    outcome.output.append(buffer, count: count)
                    if outcome.output.count > outputLimit {
                        outcome.outputOverLimit = true
                        kill(-child, SIGKILL)
                        close(stdout); stdoutOpen = false
                        close(stderr); stderrOpen = false
                    }
                } else {
                    errorBytes.append(buffer, count: count)
                    if errorBytes.count > 16384 { errorBytes = Data(errorBytes.suffix(8192)) }
                }
            }
        }
        outcome.errorText = String(decoding: errorBytes.suffix(8192), as: UTF8.self)
        return outcome
    }

    /// Waits for `child` to exit and returns its status: the exit code, or 128 + the signal's
    /// number if a signal ended it; -1 if it is not (or no longer) our child.
    package static func waitForExit(_ child: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        if status & 0x7f == 0 { return (status >> 8) & 0xff }  // exited
        return 128 + (status & 0x7f)                             // killed by a signal
    }

    /// A close-on-exec pipe: (read end, write end). Made close-on-exec atomically with pipe2, so
    /// that no child spawned meanwhile by another thread inherits it.
    package static func pipe() throws(Failure) -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard let pipe2 = pipe2Function else { throw Failure("pipe2 is not available") }
        guard pipe2(&descriptors, O_CLOEXEC) == 0 else { throw Failure("pipe2: \(String(cString: strerror(errno)))") }
        return (descriptors[0], descriptors[1])
    }

    /// A close-on-exec stream socket pair, non-blocking on our side: (ours, the child's).
    private static func socketPair() throws(Failure) -> (Int32, Int32) {
        var descriptors: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0 else {
            throw Failure("socketpair: \(String(cString: strerror(errno)))")
        }
        let flags = fcntl(descriptors[0], F_GETFL)
        _ = fcntl(descriptors[0], F_SETFL, flags | O_NONBLOCK)
        return (descriptors[0], descriptors[1])
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), looked up at run time: Swift's
    /// Glibc module does not declare it (it needs _GNU_SOURCE).
    private static let addCloseFromFunction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }  // nil is RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// glibc's pipe2, looked up at run time: Swift's Glibc module does not declare it (it needs _GNU_SOURCE).
    private static let pipe2Function: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "pipe2") else { return nil }  // nil is RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    }()
}
#endif
