import Foundation
import LoopbackPortSupport
import RequiredToolSupport
import Testing

/// A software TPM 2.0 (`swtpm socket --tpm2`) on free local ports with its own state folder, for
/// the TPM-sealing tests; `tcti` is the `TPM2TOOLS_TCTI` value that reaches it. Killed by `stop()`.
final class SoftwareTPM: @unchecked Sendable {
    let process = Process()
    let stateDirectory: String
    let port: Int

    /// `TPM2TOOLS_TCTI` for this TPM.
    var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    init(in directory: String) throws {
        try RequiredTool.require([.swtpm, .tpm2Tools])
        stateDirectory = directory + "/swtpm-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        port = Int(try LoopbackPort.consecutive(2))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/swtpm")
        process.arguments = ["socket", "--tpm2", "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
                             "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1",
                             "--tpmstate", "dir=\(stateDirectory)", "--flags", "not-need-init,startup-clear"]
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        // Ready when a tool gets an answer from it.
        for _ in 0..<200 {
            if try tool("tpm2_getrandom", ["4"]).status == 0 { return }
            usleep(50_000)
        }
        stop()
        throw SoftwareTPMError.notReady
    }

    /// Runs a tpm2-tools program against this TPM.
    func tool(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/" + name)
        run.arguments = arguments
        run.environment = ["TPM2TOOLS_TCTI": tcti, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        run.standardOutput = output
        run.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try run.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        run.waitUntilExit()
        return (run.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

enum SoftwareTPMError: Error {
    case notReady
}
