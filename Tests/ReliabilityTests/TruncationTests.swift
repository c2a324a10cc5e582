import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing
@testable import KeychainStore
#if canImport(Glibc)
import Glibc
#endif

/// Damaged-file cases run in a separate reader process (`keychainkit-torture verify`) under a
/// timeout, so that a crash or a hang is observed and reported instead of taking the suite down.
@Suite("Truncated and damaged files, read by a separate process under a timeout")
struct TruncationTests {
    struct Tally {
        var cases = 0
        var outcomes: [String: Int] = [:]
        var problems: [String] = []

        var summary: String { outcomes.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",") }
    }

    /// A populated keychain (14 items of 16 B … 70 KB) in `scratch`; `kill` leaves every commit in the WAL.
    static func populate(_ scratch: TemporaryKeychain, kill: Bool) throws {
        let outcome = try TortureTool.run(["populate", "--dir", scratch.directory, "--items", "14"] + (kill ? ["--kill"] : []),
                                          in: scratch.directory, label: "populate")
        try #require(kill ? outcome.terminatedBySignal : outcome.exitStatus == 0, "populate: \(outcome.errorOutput)")
        if kill { try #require(FileManager.default.fileExists(atPath: scratch.keychainPath + "-wal")) }
    }

    /// Copies the keychain (and its WAL and shared memory if present) into a case directory,
    /// lets `mutate` damage it, runs the reader and checks what it printed.
    static func runCase(_ name: String, from scratch: TemporaryKeychain, tally: inout Tally, keepShm: Bool = true,
                        integrityMustHold: Bool = false, mutate: (String) throws -> Void) throws {
        let dir = scratch.directory + "/case"
        do { try FileManager.default.removeItem(atPath: dir) } catch {}  // absent the first time
        try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        for file in ["torture.keychain-db", "torture.keychain-db-wal", "expected", "state/device.key"] + (keepShm ? ["torture.keychain-db-shm"] : [])
            where FileManager.default.fileExists(atPath: scratch.directory + "/" + file) {
            try FileManager.default.copyItem(atPath: scratch.directory + "/" + file, toPath: dir + "/" + file)
        }
        try mutate(dir + "/torture.keychain-db")
        tally.cases += 1
        let outcome = try TortureTool.run(["verify", "--dir", dir], in: dir, label: "verify", timeout: 120)
        if outcome.timedOut { tally.problems.append("\(name): hang (killed after 120 s)"); return }
        if outcome.terminatedBySignal || outcome.exitStatus != 0 {
            tally.problems.append("\(name): reader crashed (status \(outcome.exitStatus)): \(outcome.errorOutput.prefix(300))")
            return
        }
        for line in outcome.output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2 else { continue }
            let result = fields.dropFirst().joined(separator: " ")
            let key = fields[0] == "open" ? "open " + result : result
            tally.outcomes[key, default: 0] += 1
            if result == "altered" { tally.problems.append("\(name): \(fields[0]) returned ALTERED data") }
            // Clear refusals: errSecDecode, errSecIO; for an open also a wrong password (a damaged
            // "ak" entry is the password verifier); errSecNotAvailable when a damaged device-key id
            // makes ThisDeviceOnly items look moved. Anything else (errSecInternalComponent) is not.
            let allowed = fields[0] == "open" ? ["status -26275", "status -36", "status -25293", "status -25291"]
                : ["status -26275", "status -36", "status -25291"]
            if result.hasPrefix("status") && !allowed.contains(result) {
                tally.problems.append("\(name): \(fields[0]) \(result)")
            }
        }
        if integrityMustHold {
            let integrity = try RawSQLite(dir + "/torture.keychain-db").integrityCheck()
            if integrity != "ok" { tally.problems.append("\(name): integrity_check \(integrity)") }
        }
    }

    static func truncate(_ path: String, to length: Int) throws {
        guard Glibc.truncate(path, off_t(length)) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test("database truncated at page boundaries and random offsets: refused or items fail, never altered, no crash or hang")
    func truncatedDatabase() throws {
        let scratch = try TemporaryKeychain("truncate-db")
        defer { scratch.remove() }
        try Self.populate(scratch, kill: false)
        let start = ContinuousClock.now
        let size = try Self.size(scratch.keychainPath)
        let pages = size / 4096
        let stride = Reliability.isLong ? 1 : max(1, pages / 24)
        var offsets = Array(Swift.stride(from: 0, to: size, by: 4096 * stride))
        var random = SystemRandomNumberGenerator()
        offsets += (0..<Reliability.count("TRUNCATE_RANDOM", ci: 12, long: 200)).map { _ in Int.random(in: 1..<size, using: &random) }
        var tally = Tally()
        for offset in offsets {
            try Self.runCase("db truncated to \(offset)", from: scratch, tally: &tally) { try Self.truncate($0, to: offset) }
        }
        Reliability.figure("truncate-db", ["cases": tally.cases, "file_bytes": size, "outcomes": tally.summary,
                                           "seconds": Reliability.seconds(since: start)])
        #expect(tally.problems.isEmpty, "\(tally.problems)")
    }

    @Test("WAL truncated at every frame boundary and random offsets (with and without -shm): committed prefix survives, never altered", .reliability, .tags(.reliability))
    func truncatedWAL() throws {
        let scratch = try TemporaryKeychain("truncate-wal")
        defer { scratch.remove() }
        try Self.populate(scratch, kill: true)
        let start = ContinuousClock.now
        let wal = scratch.keychainPath + "-wal"
        let size = try Self.size(wal)
        let frame = 24 + 4096
        var offsets = Array(Swift.stride(from: 32, through: size, by: frame)) + [0, 16]
        var random = SystemRandomNumberGenerator()
        offsets += (0..<Reliability.count("TRUNCATE_RANDOM", ci: 12, long: 200)).map { _ in Int.random(in: 1..<size, using: &random) }
        var tally = Tally()
        for (index, offset) in offsets.enumerated() {
            try Self.runCase("WAL truncated to \(offset)", from: scratch, tally: &tally, keepShm: index % 2 == 0, integrityMustHold: true) { path in
                try Self.truncate(path + "-wal", to: offset)
            }
        }
        Reliability.figure("truncate-wal", ["cases": tally.cases, "wal_bytes": size, "outcomes": tally.summary,
                                            "seconds": Reliability.seconds(since: start)])
        #expect(tally.problems.isEmpty, "\(tally.problems)")
        #expect((tally.outcomes["ok"] ?? 0) > 0 && (tally.outcomes["absent"] ?? 0) > 0, "truncation kept a prefix and lost a suffix")
    }

    @Test("one-bit flips at random offsets of the database file and of the WAL: never altered data, no crash or hang", .reliability, .tags(.reliability))
    func rawFileFlips() throws {
        var tally = Tally()
        let start = ContinuousClock.now
        let samples = Reliability.count("RAW_FLIPS", ci: 48, long: 2_000)
        for inWAL in [false, true] {
            let scratch = try TemporaryKeychain(inWAL ? "flip-wal" : "flip-db")
            defer { scratch.remove() }
            try Self.populate(scratch, kill: inWAL)
            let target = scratch.keychainPath + (inWAL ? "-wal" : "")
            let size = try Self.size(target)
            var random = SystemRandomNumberGenerator()
            // The first page (file header, schema, meta and keybag) always, then random offsets.
            var offsets = Reliability.isLong ? Array(0..<4096) : Array(Swift.stride(from: 0, to: 4096, by: 97))
            offsets += (0..<samples).map { _ in Int.random(in: 0..<size, using: &random) }
            for offset in offsets {
                let bit = UInt8(1) << UInt8.random(in: 0...7, using: &random)
                try Self.runCase("\(inWAL ? "WAL" : "db") byte \(offset) ^ \(bit)", from: scratch, tally: &tally) { path in
                    let file = inWAL ? path + "-wal" : path
                    guard let handle = FileHandle(forUpdatingAtPath: file) else { throw CocoaError(.fileNoSuchFile) }
                    defer { handle.closeFile() }
                    handle.seek(toFileOffset: UInt64(offset))
                    let byte = handle.readData(ofLength: 1)
                    handle.seek(toFileOffset: UInt64(offset))
                    handle.write(Data([byte[byte.startIndex] ^ bit]))
                }
            }
        }
        Reliability.figure("raw-flips", ["cases": tally.cases, "outcomes": tally.summary, "seconds": Reliability.seconds(since: start)])
        #expect(tally.problems.isEmpty, "\(tally.problems)")
    }
}
