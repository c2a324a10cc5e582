import Foundation
import KeychainAudit
import KeychainLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The group commit's bounded durability (`AccessLogGroupCommit.syncBound`): a reader returns once
/// its entry is written to the log file (in the page cache: a SIGKILL loses nothing, which
/// `AccessLogKillTests` shows with a real provider), the `fdatasync` follows within the bound or at
/// `flush()`, `syncBound` 0 syncs before the reader returns, and a log altered while entries wait
/// for their sync is refused as before.
@Suite("Access log bounded sync: written before the read returns, synced within the bound")
struct AccessLogBoundedSyncTests {
    typealias Group = AccessLogGroupCommitTests

    @Test("bounded: the entry is in the file when record returns, unsynced until flush; flush syncs it")
    func writtenThenSyncedAtFlush() throws {
        try Group.withLog { log in
            let caller = try ProcessLineage.current()
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 60, syncBound: 60)
            // The first entry starts the file, which is synced (with its directory) at once.
            try group.record(Group.event("first", caller: caller))
            #expect(!group.hasUnsyncedEntries, "a new file is synced when it is started")
            try group.record(Group.event("pending", caller: caller))
            #expect(group.hasUnsyncedEntries, "the sync is left to the bound")
            // Another reader (a second process would see the same page cache) finds the entry, chained.
            #expect(Group.labels(try AccessLog(files: log.files).read()) == ["first", "pending"])
            try group.flush()
            #expect(!group.hasUnsyncedEntries, "flush syncs what was written")
            #expect(Group.labels(try AccessLog(files: log.files).read()) == ["first", "pending"])
        }
    }

    @Test("every read (sync bound 0): synced before each record returns")
    func everyReadSynced() throws {
        try Group.withLog { log in
            let caller = try ProcessLineage.current()
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 60, syncBound: 0)
            for read in 0..<3 {
                try group.record(Group.event("r\(read)", caller: caller))
                #expect(!group.hasUnsyncedEntries, "read \(read) returned before its entry was synced")
            }
            #expect(Group.labels(try AccessLog(files: log.files).read()) == ["r0", "r1", "r2"])
        }
    }

    @Test("the bound runs out: the written entries are synced without a flush, many reads by one sync")
    func syncedWithinTheBound() throws {
        try Group.withLog { log in
            let caller = try ProcessLineage.current()
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 60, syncBound: 0.05)
            for read in 0..<20 { try group.record(Group.event("r\(read)", caller: caller)) }
            // Generous, not a timing claim: on a loaded machine the sync's thread may run seconds late.
            var synced = false
            for _ in 0..<200 where !synced {
                Thread.sleep(forTimeInterval: 0.05)
                synced = !group.hasUnsyncedEntries
            }
            #expect(synced, "the entries were never synced without a flush")
            #expect(Group.labels(try AccessLog(files: log.files).read()) == (0..<20).map { "r\($0)" })
        }
    }

    @Test("the log cut short below its checkpoint while entries wait for their sync: the read is refused, the log reads as altered")
    func truncatedWhilePending() throws {
        try Group.withLog { log in
            let caller = try ProcessLineage.current()
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 60, syncBound: 60)
            try group.record(Group.event("r0", caller: caller))
            try group.record(Group.event("r1", caller: caller))
            try group.flush()  // the checkpoint vouches for r1
            try group.record(Group.event("r2", caller: caller))
            #expect(group.hasUnsyncedEntries)
            let path = log.files.currentPath
            let full = try Data(contentsOf: URL(fileURLWithPath: path))
            // The adversary cuts the file back to r0 only, while r2 still waits for its sync.
            let firstEntryEnd = try #require(try Self.firstEntryEnd(of: log))
            #expect(truncate(path, off_t(firstEntryEnd)) == 0)
            #expect(throws: AccessLogError.self, "the next read is refused: its entry could not be chained") {
                try group.record(Group.event("r3", caller: caller))
            }
            #expect(Self.isAltered { _ = try AccessLog(files: log.files).read() }, "the cut is reported as an alteration")

            // An edited entry while r2 is pending: also refused.
            var edited = full
            edited[edited.startIndex + 40] ^= 0x01
            try edited.write(to: URL(fileURLWithPath: path))
            #expect(Self.isAltered { _ = try AccessLog(files: log.files).read() }, "the edited entry is reported")

            // Put back as it was: the writer goes on from the log as it is.
            try full.write(to: URL(fileURLWithPath: path))
            try group.record(Group.event("r4", caller: caller))
            try group.flush()
            #expect(Group.labels(try AccessLog(files: log.files).read()) == ["r0", "r1", "r2", "r4"])
        }
    }

    /// Where the first entry of the current file ends, from its clear header (AccessLogFrame:
    /// "KKA1", a 4-byte big-endian ciphertext length, sequence 8, previous tag 16, nonce 12, then
    /// the ciphertext and a 16-byte tag).
    static func firstEntryEnd(of log: AccessLog) throws -> Int? {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: log.files.currentPath)))
        guard data.count > 8, data[0..<4] == [UInt8]("KKA1".utf8)[...] else { return nil }
        let length = data[4..<8].reduce(0) { $0 << 8 | Int($1) }
        let end = 4 + 4 + 8 + 16 + 12 + length + 16
        return end < data.count ? end : nil
    }

    static func isAltered(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch AccessLogError.altered {
            return true
        } catch {
            return false
        }
    }
}
