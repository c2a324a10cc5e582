import Foundation
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
        port = try Self.freePortPair()
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

    /// A port whose next port is free too (swtpm's control channel), found by binding to port 0.
    private static func freePortPair() throws -> Int {
        for _ in 0..<50 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            close(fd)
            let port = Int(UInt16(bigEndian: address.sin_port))
            if bound, port > 1024, port < 65000, isFree(port + 1) { return port }
        }
        throw SoftwareTPMError.noPort
    }

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

enum SoftwareTPMError: Error {
    case notReady, noPort
}
