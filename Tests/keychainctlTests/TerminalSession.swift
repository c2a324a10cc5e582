import Foundation
import PseudoTerminalSupport

/// Runs a tool with a pseudo-terminal as its standard input, output and error, as if a person ran
/// it in a terminal: the test waits for a prompt on the screen, then types.
final class TerminalSession: @unchecked Sendable {
    private let terminal: PseudoTerminal
    private let process = Process()

    /// Starts `executable` on a new pseudo-terminal.
    init(_ executable: String, _ arguments: [String], environment: [String: String], directory: String) throws {
        terminal = try PseudoTerminal()
        guard let device = FileHandle(forUpdatingAtPath: terminal.devicePath) else { throw CocoaError(.fileNoSuchFile) }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = device
        process.standardOutput = device
        process.standardError = device
        try process.run()
        try device.close()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Everything shown on the terminal so far (output, prompts and any echo).
    var text: String { terminal.text }

    /// Waits (up to 10 s) until `marker` has appeared `occurrence` times, then types `input`.
    func type(_ input: String, after marker: String, occurrence: Int = 1) -> Bool {
        terminal.answer(after: marker, occurrence: occurrence, with: input)
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
