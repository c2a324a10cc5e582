import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A background program started for a test (a bus, fprintd, a polkit stand-in), its output going
/// to a log file. It runs under `timeout`, which leads a process group of its own, so that even a
/// test process that dies without cleaning up leaves it running for at most five minutes; and
/// through `setpriv --pdeathsig KILL`, so that it dies with its `timeout` whatever kills that.
/// It is stopped when released: SIGTERM to the whole group, then SIGKILL after a grace period.
///
/// The child starts with no blocked signals and default signal actions: a test runner's threads
/// may block SIGTERM, and a spawned program inherits the mask of the thread that spawns it.
final class DaemonProcess {
    let pid: pid_t
    let name: String
    let logPath: String
    private var stopped = false

    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `arguments[0]` (an absolute path) with `arguments` and `environment`.
    init(name: String, arguments: [String], environment: [String: String], logPath: String) throws {
        self.name = name
        self.logPath = logPath
        let argv = ["/usr/bin/timeout", "--kill-after=5", "300", "/usr/bin/setpriv", "--pdeathsig", "KILL"] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
        let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let result = posix_spawn(&child, argv[0], &actions, &attributes, cArguments, cEnvironment)
        guard result == 0 else { throw SpawnError(description: "cannot start \(name): \(String(cString: strerror(result)))") }
        pid = child
    }

    deinit {
        stop()
    }

    /// Whether the program is still running (reaps it if it has exited).
    var isRunning: Bool {
        guard !stopped else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { stopped = true }
        return result == 0
    }

    /// The program's output so far (for failure messages).
    var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Stops the program and its process group: SIGTERM, up to three seconds, then SIGKILL;
    /// always reaps it.
    func stop() {
        guard !stopped else { return }
        signalGroup(SIGTERM)
        let deadline = Date().addingTimeInterval(3)
        var status: Int32 = 0
        while Date() < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno == ECHILD) { stopped = true; return }
            usleep(20_000)
        }
        signalGroup(SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        stopped = true
    }

    /// Sends `signal` to `timeout`'s process group (it and the program), or to `timeout` alone
    /// if the group is not there yet (it calls setpgid right after starting).
    private func signalGroup(_ signal: Int32) {
        if kill(-pid, signal) != 0 { kill(pid, signal) }
    }
}
