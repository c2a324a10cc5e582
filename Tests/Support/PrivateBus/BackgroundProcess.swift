import Foundation
import RequiredToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// A daemon started for a test (a bus, a Secret Service provider, fprintd, a polkit stand-in), its
/// output going to a log file. It runs under `timeout`, spawned as the leader of a process group
/// of its own, so that a test process that dies without cleaning up leaves it running for at most
/// ten minutes; and through `setpriv --pdeathsig KILL`, so that it dies with its `timeout` whatever
/// kills that (the death signal follows `timeout`, a single thread, not the test thread that
/// spawned it, which may end long before the daemon should). It is stopped with SIGKILL to the
/// whole group: no clean shutdown to wait for, and a test runner's threads block SIGTERM anyway.
public final class BackgroundProcess {
    /// What failure messages call it.
    public let name: String
    /// Where its standard output and error go.
    public let logPath: String
    private let pid: pid_t
    private var reaped = false

    /// Starts `arguments[0]` (an absolute path); `stdin`, when given, is written to its standard
    /// input through a pipe which is then closed (gnome-keyring-daemon reads its unlock password so).
    public init(name: String, arguments: [String], environment: [String: String], logPath: String, stdin: [UInt8]? = nil) throws {
        self.name = name
        self.logPath = logPath
        // argv[0] is `timeout`; the daemon is the program a missing package leaves out.
        try IntegrationTier.requireEnabled(toRun: arguments[0])
        try RequiredTool.requireIfKnown(arguments[0])
        let argv = ["/usr/bin/timeout", "--kill-after=5", "600", "/usr/bin/setpriv", "--pdeathsig", "KILL"] + arguments
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard log >= 0 else { throw ChildProcess.SpawnError(description: "cannot open \(logPath)") }
        defer { close(log) }
        let input = try ChildProcess.pipe()
        defer { close(input.read) }
        do {
            pid = try ChildProcess.spawn(argv, environment: environment, stdin: input.read, stdout: log, stderr: log,
                                         ownProcessGroup: true)
        } catch {
            close(input.write)
            throw error
        }
        ChildProcess.writeAll(stdin ?? [], to: input.write)
        close(input.write)
    }

    deinit {
        kill()
    }

    /// Whether the program is still running (reaps it if it has exited).
    public var isRunning: Bool {
        guard !reaped else { return false }
        let result = waitpid(pid, nil, WNOHANG)
        if result == pid { reaped = true }
        return result == 0
    }

    /// The program's output so far (for failure messages; no secret ever goes to a daemon's output).
    public var log: String {
        String(decoding: FileManager.default.contents(atPath: logPath) ?? Data(), as: UTF8.self)
    }

    /// SIGKILL to the whole process group (`timeout` leads it), then waits for `timeout` and reaps
    /// it. Calling it again does nothing.
    public func kill() {
        guard !reaped else { return }
        Glibc.kill(-pid, SIGKILL)
        Glibc.kill(pid, SIGKILL)
        while waitpid(pid, nil, 0) < 0 && errno == EINTR {}
        reaped = true
    }
}
