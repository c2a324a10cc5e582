import Foundation
import KeychainTestSupport

/// A real keychain service for one test: a system user made with `useradd --system`, two client
/// users made with `useradd`, an installed (root-owned) copy of keychainctl, and the service
/// started as root from it. Everything is removed by ``stop()``.
final class ServiceFixture {
    struct User {
        let name: String
        let uid: UInt32
        let home: String
    }

    struct Run {
        let status: Int32
        let output: String
        let error: String
    }

    let base: String
    let serviceUser: User
    let alice: User
    let bob: User
    let program: String
    let socket: String
    let stateDirectory: String
    let grantsDirectory: String
    private(set) var service: Process?
    private var users: [String] = []
    private let logPath: String

    /// Makes the users and files; `grants` are written (root-owned, 0644) before the service starts.
    init(grants: [String: String] = [:]) throws {
        let tag = String(UUID().uuidString.prefix(6)).lowercased()
        base = "/tmp/kksvc-\(tag)"
        program = base + "/bin/keychainctl"
        socket = base + "/run/keychain.sock"
        stateDirectory = base + "/state"
        grantsDirectory = base + "/grants"
        logPath = base + "/service.log"
        for directory in [base, base + "/bin", base + "/run", grantsDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        try FileManager.default.copyItem(atPath: BuiltProducts.path("keychainctl"), toPath: program)
        for (name, text) in grants {
            FileManager.default.createFile(atPath: grantsDirectory + "/" + name, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644])
        }
        serviceUser = User(name: "kks\(tag)", uid: 0, home: "")
        alice = User(name: "kka\(tag)", uid: 0, home: base + "/home-a")
        bob = User(name: "kkb\(tag)", uid: 0, home: base + "/home-b")
        try Self.must(["/usr/sbin/useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", serviceUser.name])
        users.append(serviceUser.name)
        for user in [alice, bob] {
            try Self.must(["/usr/sbin/useradd", "--no-create-home", "--shell", "/bin/sh", user.name])
            users.append(user.name)
            try FileManager.default.createDirectory(atPath: user.home, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try Self.must(["/bin/chown", "\(user.name):\(user.name)", user.home])
        }
    }

    /// The uid of `user` as the system has it.
    func uid(_ user: User) throws -> UInt32 {
        guard let entry = getpwnam(user.name) else { throw FixtureFailure("no user \(user.name)") }
        return entry.pointee.pw_uid
    }

    /// Starts `keychainctl service run` as root (with `extraArguments`) and waits until its socket
    /// accepts; with `openFileLimit`, under that `RLIMIT_NOFILE` (`prlimit`), as a systemd unit's
    /// `LimitNOFILE` sets it; `environment` is added to the service's own.
    func start(extraArguments: [String] = [], openFileLimit: Int? = nil, environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openFileLimit == nil ? program : "/usr/bin/prlimit")
        let limit = openFileLimit.map { ["--nofile=\($0):\($0)", "--", program] } ?? []
        process.arguments = limit + ["service", "run", "--user", serviceUser.name, "--socket", socket, "--state-dir", stateDirectory,
                             "--grants-dir", grantsDirectory] + extraArguments
        // Password keychains with the cheap test KDF: a calibrated scrypt run per unlock would cost
        // seconds each on a loaded CI machine.
        process.environment = ProcessInfo.processInfo.environment.merging(["KEYCHAINKIT_TESTING_KDF": "1"].merging(environment) { _, new in new }) { _, new in new }
        FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = FileHandle.nullDevice
        unlink(socket)  // a killed service's socket file: wait for the new one
        try process.run()
        service = process
        for _ in 0..<200 {
            if FileManager.default.fileExists(atPath: socket) { return }
            guard process.isRunning else { throw FixtureFailure("the service exited: \(log)") }
            usleep(50_000)
        }
        throw FixtureFailure("the service's socket did not appear: \(log)")
    }

    /// Starts the service as systemd's socket activation would: python3 makes the listening
    /// socket, puts it at descriptor 3 and execs `service run` with `LISTEN_FDS=1` and
    /// `LISTEN_PID` its own pid (exec keeps it). `--socket` names a path where nothing listens,
    /// so a served call proves the inherited socket is the one in use.
    func startActivated() throws {
        let activator = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666); s.listen(16)
            os.dup2(s.fileno(), 3); os.set_inheritable(3, True)
            env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
            os.execve(sys.argv[2], sys.argv[2:], env)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", activator, socket, program, "service", "run", "--user", serviceUser.name,
                             "--socket", base + "/run/unused.sock", "--state-dir", stateDirectory, "--grants-dir", grantsDirectory]
        // Password keychains with the cheap test KDF: a calibrated scrypt run per unlock would cost
        // seconds each on a loaded CI machine.
        process.environment = ProcessInfo.processInfo.environment.merging(["KEYCHAINKIT_TESTING_KDF": "1"]) { _, new in new }
        FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        service = process
        for _ in 0..<200 {
            if log.contains("serving") { return }
            guard process.isRunning else { throw FixtureFailure("the service exited: \(log)") }
            usleep(50_000)
        }
        throw FixtureFailure("the service did not start: \(log)")
    }

    /// What the service wrote on standard error.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Runs `arguments` (the program first) as `user` through `setpriv`, with `environment` on
    /// top of a minimal one (`HOME`, `PATH`, the service's socket), in a session of its own
    /// (`setsid`): without a controlling terminal, so keychainctl never puts a consent prompt on
    /// the terminal the tests were started from.
    func run(as user: User, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(user.name)", "--regid=\(user.name)", "--init-groups", "--", "/usr/bin/setsid", "-w"] + arguments
        process.environment = ["HOME": user.home, "PATH": "/usr/bin:/bin", "KEYCHAINKIT_SERVICE_SOCKET": socket]
            .merging(environment) { _, new in new }
        process.currentDirectoryURL = URL(fileURLWithPath: user.home)
        return try Self.run(process, stdin: stdin)
    }

    /// Starts `arguments` as `user` (as ``run(as:_:stdin:environment:)`` does) without waiting:
    /// the caller reads its output and closes its input.
    func launch(as user: User, _ arguments: [String]) throws -> (process: Process, input: Pipe, output: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(user.name)", "--regid=\(user.name)", "--init-groups", "--"] + arguments
        process.environment = ["HOME": user.home, "PATH": "/usr/bin:/bin", "KEYCHAINKIT_SERVICE_SOCKET": socket]
        process.currentDirectoryURL = URL(fileURLWithPath: user.home)
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, input, output)
    }

    /// Writes `text` to `path` owned by `user`, mode `mode`.
    func write(_ text: String, to path: String, owner user: User?, mode: Int) throws {
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
        if let user { try Self.must(["/bin/chown", "\(user.name):\(user.name)", path]) }
    }

    /// Removes the service, the users and the files.
    func stop() {
        if let service, service.isRunning {
            // SIGKILL: cleanup must not depend on the service honouring SIGTERM.
            kill(service.processIdentifier, SIGKILL)
            service.waitUntilExit()
        }
        for user in users { _ = try? Self.run(["/usr/sbin/userdel", user]) }
        try? FileManager.default.removeItem(atPath: base)
    }

    static func must(_ arguments: [String]) throws {
        let result = try run(arguments)
        guard result.status == 0 else { throw FixtureFailure("\(arguments.joined(separator: " ")) failed: \(result.error)") }
    }

    static func run(_ arguments: [String], stdin: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        return try run(process, stdin: stdin)
    }

    static func run(_ process: Process, stdin: String?) throws -> Run {
        let output = Pipe(), error = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                   error: String(decoding: errorData, as: UTF8.self))
    }
}

struct FixtureFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
