import Foundation
import LoopbackPortSupport
import PrivateBusSupport
import RequiredToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// A scratch folder for one test, removed when released.
final class ScratchFolder: @unchecked Sendable {
    let path: String

    init(_ label: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("kk-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)  // test cleanup only
    }
}

/// Runs the real git (or another program) for a test's own set-up and checks, failing loudly.
enum Shell {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `arguments` (argv[0] an absolute path or found on PATH), returns standard output.
    @discardableResult
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:],
                    allowFailure: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") }
        merged["LC_ALL"] = "C"
        merged.merge(environment) { _, new in new }
        process.environment = merged
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0 && !allowFailure {
            throw Failure(description: "\(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: err, as: UTF8.self))")
        }
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `git --git-dir=<repository> <arguments>`.
    @discardableResult
    static func git(_ repository: String, _ arguments: [String], input: String? = nil, allowFailure: Bool = false) throws -> String {
        try run(["git", "--git-dir=\(repository)"] + arguments, input: input, allowFailure: allowFailure)
    }

    /// Waits until something accepts connections on 127.0.0.1:`port`.
    static func waitForListener(port: UInt16, process: BackgroundProcess, timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if LoopbackPort.isAccepting(port) { return }
            guard process.isRunning else { throw Failure(description: "\(process.name) exited: \(process.log)") }
            usleep(50_000)
        }
        throw Failure(description: "\(process.name) did not listen on \(port): \(process.log)")
    }
}

/// A bare repository standing for the remote every device pushes to, reachable over file://,
/// over git:// (a `git daemon` on a loopback port) or over ssh (an `sshd` of the test's own).
final class GitRemote: @unchecked Sendable {
    let scratch: ScratchFolder
    /// The bare repository's path.
    let repository: String

    init() throws {
        try RequiredTool.git.require()
        scratch = try ScratchFolder("git-remote")
        repository = scratch.path + "/remote.git"
        try Shell.run(["git", "init", "--quiet", "--bare", repository])
    }

    var fileURL: String { "file://" + repository }

    /// The head of `branch` in the remote, or nil.
    func head(_ branch: String = "keychainkit") throws -> String? {
        let head = try Shell.git(repository, ["rev-parse", "--verify", "--quiet", "refs/heads/\(branch)"], allowFailure: true)
        return head.isEmpty ? nil : head
    }
}

/// `git daemon` serving a folder of repositories (push enabled) on a free loopback port.
final class GitDaemon: @unchecked Sendable {
    let process: BackgroundProcess
    let port: UInt16

    init(serving directory: String, log: String) throws {
        try RequiredTool.gitDaemon.require()
        port = try LoopbackPort.next()
        process = try BackgroundProcess(
            name: "git daemon",
            arguments: ["/usr/lib/git-core/git-daemon", "--reuseaddr", "--listen=127.0.0.1", "--port=\(port)",
                        "--base-path=\(directory)", "--export-all", "--enable=receive-pack", "--informative-errors", directory],
            environment: ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": directory], logPath: log)
        try Shell.waitForListener(port: port, process: process)
    }

    func url(_ name: String) -> String { "git://127.0.0.1:\(port)/\(name)" }
}

/// Debian's `sshd` on a free loopback port with a throwaway host key, accepting one throwaway
/// user key for the current user; `environment` makes git's ssh use exactly those keys.
final class SSHServer: @unchecked Sendable {
    let process: BackgroundProcess
    let port: UInt16
    let directory: String
    let user: String

    static let executable = "/usr/sbin/sshd"

    init(in directory: String) throws {
        try RequiredTool.require([.sshd, .sshKeygen])
        self.directory = directory
        port = try LoopbackPort.next()
        guard let entry = getpwuid(getuid()) else { throw Shell.Failure(description: "no passwd entry for uid \(getuid())") }
        user = String(cString: entry.pointee.pw_name)
        try Shell.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "kk-test-host", "-f", directory + "/host_key"])
        try Shell.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "kk-test-user", "-f", directory + "/user_key"])
        try Shell.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "kk-test-stranger", "-f", directory + "/stranger_key"])
        try FileManager.default.copyItem(atPath: directory + "/user_key.pub", toPath: directory + "/authorized_keys")
        let hostKey = try String(contentsOfFile: directory + "/host_key.pub", encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
        try "[127.0.0.1]:\(port) \(hostKey)\n".write(toFile: directory + "/known_hosts", atomically: true, encoding: .utf8)
        // StrictModes off: the files live in a temporary folder whose parents the test does not own.
        let config = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(directory)/host_key
            AuthorizedKeysFile \(directory)/authorized_keys
            PidFile \(directory)/sshd.pid
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            StrictModes no
            """
        try config.write(toFile: directory + "/sshd_config", atomically: true, encoding: .utf8)
        // As root, sshd separates privileges into /run/sshd, which Debian makes only when its
        // service starts (not here: the test's sshd is not the system's).
        if getuid() == 0 { try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true) }
        process = try BackgroundProcess(name: "sshd", arguments: [Self.executable, "-D", "-e", "-f", directory + "/sshd_config"],
                                        environment: ["PATH": "/usr/local/bin:/usr/bin:/bin"], logPath: directory + "/sshd.log")
        try Shell.waitForListener(port: port, process: process)
    }

    /// The ssh URL of the repository at `path` on this server.
    func url(_ path: String) -> String { "ssh://\(user)@127.0.0.1:\(port)\(path)" }

    /// `GIT_SSH_COMMAND` using `key` and only this server's known_hosts, never prompting.
    func environment(key: String = "user_key") -> [String: String] {
        ["GIT_SSH_COMMAND": "ssh -F /dev/null -i \(directory)/\(key) -o IdentitiesOnly=yes -o UserKnownHostsFile=\(directory)/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes"]
    }
}
