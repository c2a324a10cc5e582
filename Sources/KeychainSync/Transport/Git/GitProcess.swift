import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the real `git` binary: an argument array through `posix_spawn` (never a shell), standard
/// input/output/error on socket pairs read and written in one `poll` loop (so that neither side
/// can fill a buffer and wait for the other), a deadline after which git and everything it started
/// (ssh, a credential helper) are killed as one process group, and a cap on what is kept of its
/// output. The child gets no descriptor of ours beyond those three.
struct GitProcess: Sendable {
    /// What one run produced.
    struct Outcome {
        /// The exit status (128 + signal number when a signal ended it).
        var status: Int32
        /// Standard output, at most the run's limit.
        var output: Data
        /// The end of standard error (at most 8 KiB), for messages.
        var errorText: String
        /// Whether the deadline passed and the run was killed.
        var timedOut: Bool
        /// Whether standard output went over the limit and the run was killed.
        var outputOverLimit: Bool

        var succeeded: Bool { status == 0 && !timedOut && !outputOverLimit }
    }

    /// Why git could not be run at all.
    struct StartFailure: Error {
        var reason: String
    }

    /// The git executable (an absolute path).
    let executable: String
    /// The whole environment git runs with.
    let environment: [String: String]

    /// The absolute path of `git` on `PATH`, or nil.
    static func findGit(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for directory in directories where directory.hasPrefix("/") {
            let candidate = directory + "/git"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `git <arguments>` with `input` on its standard input until it exits or `deadline`.
    func run(_ arguments: [String], input: Data = Data(), deadline: ContinuousClock.Instant,
             outputLimit: Int = 64 << 20) throws(StartFailure) -> Outcome {
        let stdinPair = try Self.socketPair()
        let stdoutPair: (Int32, Int32)
        let stderrPair: (Int32, Int32)
        do {
            stdoutPair = try Self.socketPair()
        } catch {
            close(stdinPair.0); close(stdinPair.1)
            throw error
        }
        do {
            stderrPair = try Self.socketPair()
        } catch {
            close(stdinPair.0); close(stdinPair.1); close(stdoutPair.0); close(stdoutPair.1)
            throw error
        }
        // Ours: .0; the child's: .1 (dup2'd onto 0, 1, 2, which clears close-on-exec there only).
        let child: pid_t
        do {
            child = try spawn(["git"] + arguments, stdin: stdinPair.1, stdout: stdoutPair.1, stderr: stderrPair.1)
        } catch {
            for descriptor in [stdinPair.0, stdinPair.1, stdoutPair.0, stdoutPair.1, stderrPair.0, stderrPair.1] { close(descriptor) }
            throw error
        }
        close(stdinPair.1); close(stdoutPair.1); close(stderrPair.1)
        var outcome = exchange(input: input, stdin: stdinPair.0, stdout: stdoutPair.0, stderr: stderrPair.0,
                               deadline: deadline, outputLimit: outputLimit, child: child)
        outcome.status = Self.wait(for: child)
        return outcome
    }

    /// Feeds `input`, collects output, and kills the process group at the deadline or over the limit.
    private func exchange(input: Data, stdin: Int32, stdout: Int32, stderr: Int32, deadline: ContinuousClock.Instant,
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
                    if sent < 0 && errno != EAGAIN && errno != EINTR { written = input.count }  // git stopped reading
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

    private func spawn(_ argv: [String], stdin: Int32, stdout: Int32, stderr: Int32) throws(StartFailure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stdout, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stderr, STDERR_FILENO)
        // Every other descriptor closed in the child, not only the close-on-exec ones: a keychain
        // file or a socket opened elsewhere in this process must not live on in git or ssh.
        if let addCloseFrom = Self.addCloseFrom {
            let added = addCloseFrom(&actions, STDERR_FILENO + 1)
            guard added == 0 else { throw StartFailure(reason: "posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(added)))") }
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
        // Its own process group, so that a deadline kills git's ssh and helpers with it.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, cArguments, cEnvironment)
        guard result == 0 else { throw StartFailure(reason: "cannot start \(executable): \(String(cString: strerror(result)))") }
        return child
    }

    private static func wait(for child: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        if status & 0x7f == 0 { return (status >> 8) & 0xff }  // exited
        return 128 + (status & 0x7f)                             // killed by a signal
    }

    /// A close-on-exec, non-blocking-on-our-side stream socket pair: (ours, the child's).
    private static func socketPair() throws(StartFailure) -> (Int32, Int32) {
        var descriptors: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0 else {
            throw StartFailure(reason: "socketpair: \(String(cString: strerror(errno)))")
        }
        let flags = fcntl(descriptors[0], F_GETFL)
        _ = fcntl(descriptors[0], F_SETFL, flags | O_NONBLOCK)
        return (descriptors[0], descriptors[1])
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), looked up at run time: Swift's
    /// Glibc module does not declare it (it needs _GNU_SOURCE).
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}
