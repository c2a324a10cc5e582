import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing

/// The result of running one of the built tools.
struct ToolRun {
    /// The exit status (or the signal number + 128).
    var status: Int32
    /// Everything written on standard output.
    var stdout: String
    /// Everything written on standard error.
    var stderr: String
    /// Whether the harness had to kill the process (it hung).
    var timedOut: Bool
    /// Wall-clock seconds the process ran.
    var seconds: Double
}

/// A private directory with its own HOME, keychain, device key and (empty) git configuration, in
/// which the built `keychainctl` and `docker-credential-keychainkit` run as separate processes
/// with a controlled environment and standard input that is never a terminal.
final class ToolSandbox: @unchecked Sendable {
    /// The sandbox's temporary keychain directory (its device key is this sandbox's).
    private let scratch: TemporaryKeychain
    /// The sandbox directory.
    var directory: String { scratch.directory }
    /// `KEYCHAINKIT_KEYCHAIN`: the default keychain of processes run here.
    var keychainPath: String { directory + "/keychains/login.keychain-db" }
    /// The environment every run gets (plus its own additions).
    private(set) var environment: [String: String]
    /// Password keychains created here, deleted by `cleanUp()` so their kernel-keyring entries go too.
    private var keychainsToDelete: [String] = []

    /// The folder holding the built tools: the test bundle's own folder (`.build/debug`).
    static var binaries: String { BuiltProducts.folder }

    init() throws {
        let scratch = try TemporaryKeychain("cli")
        self.scratch = scratch
        try FileManager.default.createDirectory(atPath: scratch.file("home"), withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": scratch.file("home"),
            "KEYCHAINKIT_KEYCHAIN": scratch.file("keychains/login.keychain-db"),
            "KEYCHAINKIT_DEVICE_KEY_FILE": scratch.deviceKeyPath,
            "KEYCHAINKIT_TESTING_KDF": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "LC_ALL": "C",
        ]
    }

    /// Path of a built tool.
    func tool(_ name: String) -> String { Self.binaries + "/" + name }

    /// Runs `keychainctl` with `arguments`.
    @discardableResult
    func keychainctl(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]) throws -> ToolRun {
        try run(tool("keychainctl"), arguments, stdin: stdin, environment: extra)
    }

    /// Runs `docker-credential-keychainkit` with `arguments`.
    @discardableResult
    func docker(_ arguments: [String], stdin: String? = nil) throws -> ToolRun {
        try run(tool("docker-credential-keychainkit"), arguments, stdin: stdin)
    }

    /// Creates a password keychain at `name` in the sandbox (password on standard input) and
    /// remembers it for `cleanUp()`. Returns its path.
    func createKeychain(_ name: String, password: String) throws -> String {
        let path = directory + "/" + name
        let created = try keychainctl(["create-keychain", path, "-p"], stdin: password + "\n")
        #expect(created.status == 0, "create-keychain: \(created.stderr)")
        keychainsToDelete.append(path)
        return path
    }

    /// Runs `executable`; standard input is the given text or /dev/null (never a terminal);
    /// standard output and error go to files; killed after `timeout` seconds.
    func run(_ executable: String, _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:],
             timeout: Double = 30) throws -> ToolRun {
        try RequiredTool.requireIfKnown(executable)
        let id = UUID().uuidString
        let outPath = directory + "/out-\(id)", errPath = directory + "/err-\(id)"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment.merging(extra) { _, new in new }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle(forReadingAtPath: "/dev/null") : input
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        let start = Date()
        try process.run()
        if let stdin {
            // A tool that exits without reading its input must not kill the test run (SIGPIPE).
            signal(SIGPIPE, SIG_IGN)
            try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))  // test code: EPIPE is fine
        }
        try? input.fileHandleForWriting.close()  // test code: already closed when the tool is gone
        var timedOut = false
        while process.isRunning {
            if Date().timeIntervalSince(start) > timeout {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        let stdout = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return ToolRun(status: status, stdout: stdout, stderr: stderr, timedOut: timedOut, seconds: seconds)
    }

    /// Deletes the password keychains made here (dropping their kernel-keyring entries) and the directory.
    func cleanUp() {
        for path in keychainsToDelete where FileManager.default.fileExists(atPath: path) {
            _ = try? keychainctl(["delete-keychain", path])  // test cleanup only
        }
        if FileManager.default.fileExists(atPath: keychainPath) {
            _ = try? keychainctl(["delete-keychain", keychainPath])  // test cleanup only
        }
        scratch.remove()
    }
}

/// Runs `body` in a fresh sandbox and cleans it up afterwards.
func withSandbox(_ body: (ToolSandbox) throws -> Void) throws {
    let sandbox = try ToolSandbox()
    defer { sandbox.cleanUp() }
    try body(sandbox)
}
