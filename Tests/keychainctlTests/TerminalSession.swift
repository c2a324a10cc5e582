import Foundation

/// Runs a tool with a pseudo-terminal as its standard input, output and error, as if a person ran
/// it in a terminal: the test waits for a prompt on the screen, then types.
final class TerminalSession: @unchecked Sendable {
    private let controller: Int32
    private let process = Process()
    private let lock = NSLock()
    private var screen = Data()

    /// Linux ioctl numbers (asm-generic): TIOCSPTLCK = _IOW('T', 0x31, int), TIOCGPTN = _IOR('T', 0x30, unsigned).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430

    /// Starts `executable` on a new pseudo-terminal.
    init(_ executable: String, _ arguments: [String], environment: [String: String], directory: String) throws {
        controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard controller >= 0, ioctl(controller, Self.setLock, &unlock) == 0, ioctl(controller, Self.getNumber, &number) == 0,
              let device = FileHandle(forUpdatingAtPath: "/dev/pts/\(number)")
        else { throw CocoaError(.fileNoSuchFile) }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = device
        process.standardOutput = device
        process.standardError = device
        try process.run()
        try device.close()
        let fd = controller
        Thread.detachNewThread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { return }
                guard let self else { return }
                self.lock.withLock { self.screen.append(contentsOf: buffer[0..<count]) }
            }
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        close(controller)
    }

    /// Everything shown on the terminal so far (output, prompts and any echo).
    var text: String { lock.withLock { String(decoding: screen, as: UTF8.self) } }

    /// Waits (up to 10 s) until `marker` has appeared `occurrence` times, then types `input`.
    func type(_ input: String, after marker: String, occurrence: Int = 1) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if text.components(separatedBy: marker).count - 1 >= occurrence {
                let bytes = Array(input.utf8)
                return write(controller, bytes, bytes.count) == bytes.count
            }
            usleep(10_000)
        }
        return false
    }

    /// Waits (up to 10 s) for the tool to exit; its status, or nil if it had to be killed.
    func waitForExit() -> Int32? {
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        usleep(50_000)  // let the reader thread drain the last output
        return process.terminationStatus
    }
}

extension ToolSandbox {
    /// Starts `keychainctl` on a pseudo-terminal in this sandbox.
    func keychainctlOnTerminal(_ arguments: [String]) throws -> TerminalSession {
        try TerminalSession(tool("keychainctl"), arguments, environment: environment, directory: directory)
    }
}
