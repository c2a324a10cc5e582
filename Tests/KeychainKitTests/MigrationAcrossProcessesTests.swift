import Foundation
import KeychainTestSupport
import Testing

/// `migrateFromUserDefaults` must have removed the migrated keys from the
/// defaults file on disk before it reports success, and a migration in another process must
/// not store the old value again over a newer one. Each step runs in its own process
/// (`keychainkit-migration-probe`) with real `UserDefaults`, as separate launches of an app do.
@Suite("UserDefaults migration across processes")
struct MigrationAcrossProcessesTests {
    /// A private HOME (UserDefaults' files) and keychain for the probe processes.
    private struct Sandbox {
        let scratch: TemporaryKeychain
        let environment: [String: String]
        let suite = "com.example.migration-\(UUID().uuidString)"

        init() throws {
            scratch = try TemporaryKeychain("migration")
            environment = try scratch.environment()
        }

        static var probe: String { BuiltProducts.path("keychainkit-migration-probe") }

        func process(_ arguments: [String]) -> (Process, Pipe, Pipe) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.probe)
            process.arguments = arguments
            process.environment = environment
            let output = Pipe()
            let input = Pipe()
            process.standardOutput = output
            process.standardInput = input
            return (process, output, input)
        }

        /// Runs one probe step to the end; returns its output line, or throws on a failed step.
        @discardableResult
        func run(_ arguments: String...) throws -> String {
            let (process, output, input) = process(arguments)
            try process.run()
            try input.fileHandleForWriting.close()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard process.terminationStatus == 0 else {
                throw ProbeFailure(description: "probe \(arguments) exited \(process.terminationStatus): \(text)")
            }
            return text
        }

        func cleanUp() { scratch.remove() }
    }

    private struct ProbeFailure: Error, CustomStringConvertible { let description: String }

    @Test("the removal is on disk when the migration returns: the next launch finds nothing to migrate and keeps the newer value")
    func removalIsDurable() throws {
        let sandbox = try Sandbox()
        defer { sandbox.cleanUp() }
        try sandbox.run("set", sandbox.suite, "token", "old-token")
        #expect(try sandbox.run("get", sandbox.suite, "token") == "old-token")

        #expect(try sandbox.run("migrate", sandbox.suite, "token") == "token")
        // A later launch reads the defaults file: the key is gone from it.
        #expect(try sandbox.run("get", sandbox.suite, "token") == "<absent>")
        #expect(try sandbox.run("keychain-get", "token") == "old-token")

        // The app refreshes the token; the migration on the next launch must not put the old one back.
        try sandbox.run("keychain-set", "token", "refreshed-token")
        #expect(try sandbox.run("migrate", sandbox.suite, "token") == "")
        #expect(try sandbox.run("keychain-get", "token") == "refreshed-token")
    }

    @Test("a process that read the defaults before another migrated them moves nothing and keeps the newer value")
    func concurrentLaunchMovesNothing() throws {
        let sandbox = try Sandbox()
        defer { sandbox.cleanUp() }
        try sandbox.run("set", sandbox.suite, "token", "old-token")
        let (late, lateOutput, lateInput) = sandbox.process(["migrate-when-told", sandbox.suite, "token"])
        try late.run()
        defer { if late.isRunning { late.terminate() } }
        let lines = LineReader(lateOutput.fileHandleForReading)
        #expect(lines.next() == "ready")  // it has read the old value

        #expect(try sandbox.run("migrate", sandbox.suite, "token") == "token")
        try sandbox.run("keychain-set", "token", "refreshed-token")

        lateInput.fileHandleForWriting.write(Data("go\n".utf8))
        #expect(lines.next() == "")  // it moved nothing
        late.waitUntilExit()
        #expect(late.terminationStatus == 0)
        #expect(try sandbox.run("keychain-get", "token") == "refreshed-token")
    }
}

/// Reads a child's output line by line (blocking).
private final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }
            buffer.append(chunk)
        }
    }
}
