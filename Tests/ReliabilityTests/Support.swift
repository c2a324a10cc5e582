import CSQLite
import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore
import KeychainVocabulary
#if canImport(Glibc)
import Glibc
#endif

/// Suite-wide settings. `KEYCHAINKIT_LONG=1` (scripts/reliability-long.sh) raises every count.
enum Reliability {
    static let isLong = ProcessInfo.processInfo.environment["KEYCHAINKIT_LONG"] == "1"

    /// `ci` in CI, `long` in long mode; `KEYCHAINKIT_<NAME>` overrides either.
    static func count(_ name: String, ci: Int, long: Int) -> Int {
        if let text = ProcessInfo.processInfo.environment["KEYCHAINKIT_\(name)"], let value = Int(text) { return value }
        return isLong ? long : ci
    }

    /// Prints one figure line ("FIGURE <test> key=value …") and appends it to
    /// `$KEYCHAINKIT_FIGURES_FILE` if set; docs/RELIABILITY.md is written from these lines.
    static func figure(_ test: String, _ values: KeyValuePairs<String, Any>) {
        let line = "FIGURE \(test) " + values.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print(line)
        if let path = ProcessInfo.processInfo.environment["KEYCHAINKIT_FIGURES_FILE"],
           let handle = FileHandle(forWritingAtPath: path) ?? {
               _ = FileManager.default.createFile(atPath: path, contents: nil)
               return FileHandle(forWritingAtPath: path)
           }() {
            handle.seekToEndOfFile()
            handle.write(Data((line + "\n").utf8))
            handle.closeFile()
        }
    }

    /// Seconds since `start`, for figures only (never asserted).
    static func seconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return String(format: "%.2f", seconds)
    }
}

/// The reliability suite opens the shared fixture as `keychainkit-torture` does.
extension TemporaryKeychain {
    /// The keychain file (the torture tool's name for ``TemporaryKeychain/path``).
    var keychainPath: String { path }

    /// Opens the keychain with the password of torture generation `generation` (nil: none).
    func open(generation: Int? = 0, options: KeychainDatabase.Options? = nil) throws(KeychainStoreError) -> KeychainDatabase {
        try open(password: generation.map(Torture.password(generation:)), options: options)
    }
}

/// Runs the `keychainkit-torture` executable built next to the test bundle.
enum TortureTool {
    static var path: String { BuiltProducts.path("keychainkit-torture") }

    /// Starts the tool; stdout and stderr go to files in `directory`.
    static func start(_ arguments: [String], in directory: String, label: String,
                      environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        for (key, value) in environment { variables[key] = value }
        process.environment = variables
        _ = FileManager.default.createFile(atPath: directory + "/\(label).out", contents: nil)
        _ = FileManager.default.createFile(atPath: directory + "/\(label).err", contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: directory + "/\(label).out")
        process.standardError = FileHandle(forWritingAtPath: directory + "/\(label).err")
        try process.run()
        return process
    }

    /// The outcome of a run under a timeout.
    struct Outcome {
        var exitStatus: Int32
        var terminatedBySignal: Bool
        var timedOut: Bool
        var output: String
        var errorOutput: String
    }

    /// Runs to completion, killing the process after `timeout` seconds (reported, not asserted on time).
    static func run(_ arguments: [String], in directory: String, label: String, timeout: Double = 120,
                    environment: [String: String] = [:]) throws -> Outcome {
        let process = try start(arguments, in: directory, label: label, environment: environment)
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        let output = (try? String(contentsOfFile: directory + "/\(label).out", encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: directory + "/\(label).err", encoding: .utf8)) ?? ""
        return Outcome(exitStatus: process.terminationStatus, terminatedBySignal: process.terminationReason == .uncaughtSignal,
                       timedOut: timedOut, output: output, errorOutput: errors)
    }
}

/// Direct SQLite access to a keychain file, bypassing the library (tampering, integrity checks).
final class RawSQLite {
    private var handle: OpaquePointer?

    init(_ path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            sqlite3_close_v2(handle)
            throw CocoaError(.fileReadCorruptFile)
        }
        sqlite3_busy_timeout(handle, 30_000)
    }

    deinit { sqlite3_close_v2(handle) }

    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw RawError(message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            switch argument {
            case .null: sqlite3_bind_null(statement, index)
            case .integer(let value): sqlite3_bind_int64(statement, index, value)
            case .text(let value): sqlite3_bind_text(statement, index, value, -1, transient)
            case .blob(let value):
                _ = value.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), transient)
                }
            }
        }
        var rows: [[SQLiteValue]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw RawError(message: String(cString: sqlite3_errmsg(handle))) }
            var row: [SQLiteValue] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_NULL: row.append(.null)
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                default:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    row.append(.blob(count == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, column), count: count)))
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Flips the lowest bit of the last byte of every live item's sealed payload in the keychain
    /// file at `path`, keeping the column a blob, and closes the connection before returning (no
    /// second connection stays open beside the library's). Returns how many items it altered.
    static func flipLastPayloadBit(of path: String) throws -> Int {
        let raw = try RawSQLite(path)
        var altered = 0
        for row in try raw.execute("SELECT id, payload FROM items WHERE tombstone = 0") {
            guard case .integer(let id) = row[0], case .blob(var payload) = row[1], !payload.isEmpty else { continue }
            payload[payload.index(before: payload.endIndex)] ^= 0x01
            try raw.execute("UPDATE items SET payload = ? WHERE id = ?", [.blob(payload), .integer(id)])
            altered += 1
        }
        raw.close()
        return altered
    }

    /// Closes the connection now (otherwise when the object is released).
    func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// `PRAGMA integrity_check`'s answer ("ok" when the file is sound).
    func integrityCheck() throws -> String {
        try execute("PRAGMA integrity_check").compactMap { row -> String? in
            if case .text(let text)? = row.first { return text }
            return nil
        }.joined(separator: "; ")
    }

    struct RawError: Error { var message: String }
}

/// Runs `body` expecting success or a store error; returns the OSStatus (0 for success).
func status(_ body: () throws -> Void) -> Int32 {
    storeError(body)?.osStatus ?? 0
}
