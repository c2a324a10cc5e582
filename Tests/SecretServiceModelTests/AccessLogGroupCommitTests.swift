import Foundation
import KeychainAudit
import KeychainLinux
import KeychainToolSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The provider's access log with group commit (`AccessLogGroupCommit`): readers recording at once
/// share appends, each returns only once its own entry is written and fsynced, a reader whose entry
/// could not be written gets the error, and the keychain's checkpoint catches up (so a log cut short
/// is refused again).
@Suite("Access log group commit: every concurrent read durable before it returns")
struct AccessLogGroupCommitTests {
    static func event(_ label: String, caller: ProcessLineage) -> AccessEvent {
        AccessEvent(time: Date(), operation: .read, item: .init(label: label, service: "kk-group", account: "ann"),
                    caller: caller, callerUID: getuid(), channel: .secretService, decision: .allowedByPolicy)
    }

    static func labels(_ contents: AccessLog.Contents) -> [String] {
        contents.entries.compactMap { entry -> String? in
            guard case .access(let event) = entry.content else { return nil }
            return event.item.label
        }
    }

    /// A log about a fresh login keychain (the store creates it: a log is about an existing keychain).
    static func withLog(_ body: (AccessLog) throws -> Void) throws {
        // The log's key item is in its own access group, which keychainctl and the provider see
        // (they see every group); this process is given that one group, idempotently.
        if !KeychainRegistryGroups.includesLogGroup {
            KeychainToolSettings.ofThisProcess().grantAccessGroup(AccessLog.keyAccessGroup)
            KeychainRegistryGroups.includesLogGroup = true
        }
        try IsolatedKeychains.withStore { _, directory in
            try body(AccessLog(keychainAt: directory + "/login.keychain-db", settings: AccessLogSettings()))
        }
    }

    @Test("16 threads recording 20 reads each: once every record returned, all 320 entries are in the log, chained")
    func concurrentReadsAllPresent() throws {
        try Self.withLog { log in
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 60)
            let caller = try ProcessLineage.current()
            let errors = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 16) { thread in
                for read in 0..<20 {
                    do {
                        try group.record(Self.event("read-\(thread)-\(read)", caller: caller))
                    } catch {
                        errors.append("\(error)")
                    }
                }
            }
            #expect(errors.all.isEmpty, "\(errors.all)")
            // A reader of its own, as `keychainctl access-log` is: verifies the chain from the checkpoint.
            let labels = Self.labels(try AccessLog(files: log.files).read())
            #expect(labels.count == 320)
            #expect(Set(labels) == Set((0..<16).flatMap { thread in (0..<20).map { "read-\(thread)-\($0)" } }))
        }
    }

    @Test("the log file cannot be written: every reader of the batch gets the error; once repaired, records go on")
    func unwritableLogRefusesTheRead() throws {
        try Self.withLog { log in
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 60)
            let caller = try ProcessLineage.current()
            try group.record(Self.event("before", caller: caller))
            // The current file replaced by a directory: open(O_RDWR) fails (EISDIR), also for root.
            let path = log.files.currentPath
            let saved = path + ".saved"
            #expect(rename(path, saved) == 0)
            #expect(mkdir(path, 0o700) == 0)
            let answered = Collected<Int>(), failed = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                do {
                    try group.record(Self.event("lost-\(thread)", caller: caller))
                    answered.append(thread)
                } catch {
                    failed.append("\(error)")
                }
            }
            #expect(answered.all.isEmpty, "no reader is answered when its entry could not be written")
            #expect(failed.all.count == 8)
            #expect(failed.all.allSatisfy { $0.contains(path) && $0.contains("open") }, "\(failed.all)")

            #expect(rmdir(path) == 0 && rename(saved, path) == 0)
            try group.record(Self.event("after", caller: caller))
            #expect(Self.labels(try AccessLog(files: log.files).read()) == ["before", "after"])
        }
    }

    @Test("the checkpoint follows: after flush (or the delay), newest entries cut off are refused")
    func checkpointCatchesUp() throws {
        try Self.withLog { log in
            let caller = try ProcessLineage.current()
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 0.2)
            for read in 0..<3 { try group.record(Self.event("r\(read)", caller: caller)) }
            // Wait for the deferred checkpoint (0.2 s), without touching the file meanwhile (a
            // checkpoint finding the file cut short would rightly not vouch for it). The bound is
            // generous, not a timing claim: on a loaded machine the checkpoint's thread may be
            // scheduled seconds late.
            let path = log.files.currentPath
            let full = try Data(contentsOf: URL(fileURLWithPath: path))
            var caughtUp = false
            for _ in 0..<300 where !caughtUp {
                Thread.sleep(forTimeInterval: 0.1)
                caughtUp = !group.checkpointIsBehind
            }
            #expect(caughtUp, "the checkpoint never caught up without a flush")
            try full.prefix(full.count - 1).write(to: URL(fileURLWithPath: path))
            var refused = false
            do {
                _ = try AccessLog(files: log.files).read()
            } catch AccessLogError.altered {
                refused = true
            }
            try full.write(to: URL(fileURLWithPath: path))
            #expect(refused, "a log cut short is refused once the checkpoint caught up")

            // flush: the checkpoint vouches for the newest entry at once.
            let slow = AccessLogGroupCommit(log: log, checkpointDelay: 3600)
            try slow.record(Self.event("last", caller: caller))
            try slow.flush()
            let now = try Data(contentsOf: URL(fileURLWithPath: path))
            try now.prefix(full.count).write(to: URL(fileURLWithPath: path))
            #expect(throws: AccessLogError.self, "the cut-off newest entry is detected after flush") {
                _ = try AccessLog(files: log.files).read()
            }
            try now.write(to: URL(fileURLWithPath: path))
            #expect(Self.labels(try AccessLog(files: log.files).read()) == ["r0", "r1", "r2", "last"])
        }
    }

    @Test("keychainctl-style appends between group commits: the chain goes on, nothing lost")
    func otherWritersInterleave() throws {
        try Self.withLog { log in
            let caller = try ProcessLineage.current()
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 60)
            try group.record(Self.event("provider-1", caller: caller))
            try AccessLog(files: log.files).record(Self.event("other-process", caller: caller))
            try group.record(Self.event("provider-2", caller: caller))
            try group.flush()
            #expect(Self.labels(try AccessLog(files: log.files).read()) == ["provider-1", "other-process", "provider-2"])
        }
    }

    @Test("the files a long-lived writer keeps open are rotated and removed by others: its next appends follow the paths")
    func keptFilesReplacedElsewhere() throws {
        try Self.withLog { log in
            let caller = try ProcessLineage.current()
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 60)
            try group.record(Self.event("kept-1", caller: caller))
            // Another writer whose limit rotates the file at every append: the provider's open
            // descriptor now names `.1`, and a new current file is there.
            let rotating = AccessLog(files: AccessLogFiles(keychainPath: log.files.keychainPath, maximumFileSize: 1, rotatedFiles: 4))
            try rotating.record(Self.event("rotated-away", caller: caller))
            try group.record(Self.event("kept-2", caller: caller))
            #expect(Self.labels(try AccessLog(files: log.files).read()) == ["kept-1", "rotated-away", "kept-2"])
            #expect(access(log.files.rotatedPath(1), F_OK) == 0, "kept-1 was rotated out of the current file")

            // The lock file removed (as a tidy-up script might): the next append locks the file the path names again.
            let lockPath = log.files.keychainPath + ".access-log.lock"
            try #require(unlink(lockPath) == 0)
            try group.record(Self.event("kept-3", caller: caller))
            #expect(access(lockPath, F_OK) == 0, "the lock file is there again for the other writers")
            try group.flush()
            #expect(Self.labels(try AccessLog(files: log.files).read()) == ["kept-1", "rotated-away", "kept-2", "kept-3"])
        }
    }
}

/// Values appended from several threads.
final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []
    func append(_ value: Value) { lock.withLock { values.append(value) } }
    var all: [Value] { lock.withLock { values } }
}

/// Whether this process was given the access log's group (once: the registry keeps a list).
enum KeychainRegistryGroups {
    nonisolated(unsafe) static var includesLogGroup = false
}
