import EtcdClusterSupport
import Foundation
import RequiredToolSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `keychainctl sync` against a shared folder that whoever can write to it has filled: a pass reads
/// at most 4,096 records and 64 MiB (docs/SYNC.md), smallest first, and reports the rest unread;
/// names it did not read are neither overwritten nor deleted.
@Suite("keychainctl sync against a flooded folder", .serialized)
struct SyncFolderFloodTests {
    /// How many 1 MiB files the attacker plants: 10,000 MiB if a pass read them all.
    static let plantedCount = 10_000
    static let plantedBytes = 1 << 20
    /// The peak resident memory allowed for the pass: the 64 MiB read limit, the copies the
    /// merge makes of what it read and the tool's own footprint, with room to spare.
    static let peakBound = 384 << 20

    /// A record name that sorts before any real item's (those are 64 random hex digits).
    static func plantedName(_ index: Int) -> String {
        let digits = String(index, radix: 16)
        return String(repeating: "0", count: 64 - digits.count) + digits
    }

    /// Plants `count` sparse files of `plantedBytes` each under `folder/items/`.
    static func plant(_ count: Int, in folder: String) throws {
        for index in 0..<count {
            let descriptor = open(folder + "/items/" + plantedName(index), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            defer { close(descriptor) }
            guard ftruncate(descriptor, off_t(plantedBytes)) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        }
    }

    /// A process's peak resident memory (VmHWM), in bytes, or nil once it is gone.
    static func peakResident(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),  // test code: gone is nil
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    struct WatchedRun {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The highest VmHWM seen while it ran.
        var peak: Int
        /// Killed for going over the bound.
        var killed: Bool
    }

    /// Runs keychainctl with `arguments` in `sandbox`, reading its VmHWM every few milliseconds,
    /// and kills it if that passes `bound` (a pass that read everything would take the machine's
    /// memory, not just fail).
    static func keychainctlWatchingMemory(_ sandbox: ToolSandbox, _ arguments: [String], bound: Int) throws -> WatchedRun {
        let outPath = sandbox.directory + "/flood-out", errPath = sandbox.directory + "/flood-err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sandbox.tool("keychainctl"))
        process.arguments = arguments
        process.environment = sandbox.environment
        process.currentDirectoryURL = URL(fileURLWithPath: sandbox.directory)
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        let start = Date()
        var peak = 0
        var killed = false
        while process.isRunning {
            if let now = peakResident(process.processIdentifier) { peak = max(peak, now) }
            if peak > bound || Date().timeIntervalSince(start) > 300 {
                killed = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(1_000)
        }
        process.waitUntilExit()
        return WatchedRun(status: process.terminationStatus,
                          stdout: String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self),
                          stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self),
                          peak: peak, killed: killed)
    }

    /// The record file an item's sync added to `folder` (the only new one since `before`).
    static func newRecord(in folder: String, since before: Set<String>) throws -> String {
        let added = Set(try FileManager.default.contentsOfDirectory(atPath: folder + "/items")).subtracting(before)
        try #require(added.count == 1, "one new record: \(added)")
        return folder + "/items/" + added.first!
    }

    @Test("10,000 planted 1 MiB files: the real sync pass stays under 384 MiB, honest items still sync, the rest is reported unread and a record left unread is not overwritten", .reliability, .tags(.reliability))
    func floodedFolder() async throws {
        try await onDedicatedThread {
            try withSandbox { (sandbox) throws in
                let folder = sandbox.directory + "/Sync/keychain"
                let (a, b) = try sandbox.twoKeychainCircle(place: ["--transport", "folder", "--folder", folder])
                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "mail", "-s", "svc", "--synchronizable", a, "-w"],
                                                stdin: "m-1\n").status == 0)
                #expect(try sandbox.keychainctl(["sync", a]).stdout.contains("pushed 1"))
                let beforeBank = Set(try FileManager.default.contentsOfDirectory(atPath: folder + "/items"))
                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "bank", "-s", "svc", "--synchronizable", a, "-w"],
                                                stdin: "b-1\n").status == 0)
                #expect(try sandbox.keychainctl(["sync", a]).stdout.contains("pushed 1"))
                let bankRecord = try Self.newRecord(in: folder, since: beforeBank)
                #expect(try sandbox.keychainctl(["sync", b]).stdout.contains("pulled 2"))

                // The attacker floods the folder, and replaces bank's record by a 1 MiB file that
                // sorts after the planted ones: over the limit, so no pass reads it.
                try Self.plant(Self.plantedCount, in: folder)
                let parked = Data(repeating: 0x5A, count: Self.plantedBytes)
                try parked.write(to: URL(fileURLWithPath: bankRecord))
                // Both devices change their items; B's bank change must not overwrite what it did not read.
                #expect(try sandbox.keychainctl(["add-generic-password", "-U", "-a", "mail", "-s", "svc", "--synchronizable", a, "-w"],
                                                stdin: "m-2\n").status == 0)
                #expect(try sandbox.keychainctl(["add-generic-password", "-U", "-a", "bank", "-s", "svc", "--synchronizable", b, "-w"],
                                                stdin: "b-2\n").status == 0)
                #expect(try sandbox.keychainctl(["sync", a]).status == 0)

                let pass = try Self.keychainctlWatchingMemory(sandbox, ["sync", b], bound: Self.peakBound)
                #expect(!pass.killed, "the pass's peak resident memory passed \(Self.peakBound >> 20) MiB (VmHWM \(pass.peak >> 20) MiB)")
                #expect(pass.status == 0, "\(pass.stderr)")
                #expect(pass.peak > 0 && pass.peak <= Self.peakBound, "peak \(pass.peak >> 20) MiB")
                #expect(pass.stdout.contains("pulled 1"), "A's mail change arrives: \(pass.stdout)")
                // 64 MiB of 1 MiB files at most are read: at least 9,937 of the 10,001 large files are not.
                let unread = pass.stdout.split(separator: ",").first { $0.contains("records unread") }
                    .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
                #expect((unread ?? 0) >= Self.plantedCount - 64 && (unread ?? 0) <= Self.plantedCount + 1, "\(pass.stdout)")
                #expect(try sandbox.keychainctl(["find-generic-password", "-a", "mail", "-w", b]).stdout == "m-2\n")
                #expect(try Data(contentsOf: URL(fileURLWithPath: bankRecord)) == parked, "a record left unread is not overwritten")
                #expect(try sandbox.keychainctl(["find-generic-password", "-a", "bank", "-w", b]).stdout == "b-2\n", "B's change is kept")
                print("sync pass over \(Self.plantedCount) planted 1 MiB files: peak resident \(pass.peak >> 20) MiB, \(unread ?? -1) records unread")
            }
        }
    }
}
