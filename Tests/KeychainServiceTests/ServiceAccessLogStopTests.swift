import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing

/// The attacker's view of the service's access log when the service stops: with entries written
/// but not yet synced (a 60 s sync bound, so the checkpoint stays behind them too), a SIGKILL loses
/// none of them, and a SIGTERM (`systemctl stop`) first brings the keychain's checkpoint up to the
/// newest entry, so that cutting it off the file afterwards is detected; so does an explicit
/// `lock-keychain`. Adds follow the same bound as reads: written before they are reported. Needs root (CI runs as root).
@Suite("Keychain service: the access log when the service is killed or stopped (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServiceAccessLogStopTests {
    /// A sync bound no test waits out: entries stay written but unsynced, the checkpoint behind them.
    static let longSyncBound = ["KEYCHAINKIT_ACCESS_LOG_SYNC_MS": "60000"]


    static func logFile(_ fixture: ServiceFixture, of user: ServiceFixture.User) throws -> String {
        fixture.stateDirectory + "/\(try fixture.uid(user))/login.keychain-db.access-log"
    }

    @Test("adds and reads through the service, then SIGKILL: every entry is on disk and verifies after a restart")
    func entriesSurviveKill() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start(environment: Self.longSyncBound)
        let alice = fixture.alice
        try #require(try ServiceIsolationTests.add(fixture, as: alice, secret: "alice-secret").status == 0)
        // A second add, into the log's file the first one started: reported once written, its sync left to the bound.
        let second = try fixture.run(as: alice, [fixture.program, "add-generic-password", "-a", "second", "-s", "api", "-w"], stdin: "two\n")
        try #require(second.status == 0, "\(second.error)")
        for _ in 0..<3 {
            #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n")
        }
        let service = try #require(fixture.service)
        kill(service.processIdentifier, SIGKILL)
        service.waitUntilExit()
        #expect(AccessLogFrames.ranges(in: try Data(contentsOf: URL(fileURLWithPath: try Self.logFile(fixture, of: alice)))).count == 5)

        try fixture.start(environment: Self.longSyncBound)
        let (run, entries) = try ServiceAccessLogTests.log(fixture, as: alice)
        #expect(run.status == 0, "\(run.error) \(fixture.log)")
        #expect(entries.filter { $0["operation"] as? String == "read" }.count == 3, "\(run.output)")
        #expect(entries.filter { $0["operation"] as? String == "create" }.count == 2, "\(run.output)")
        // The restarted service continues the chain after the kill.
        #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n")
        let after = try ServiceAccessLogTests.log(fixture, as: alice)
        #expect(after.run.status == 0 && after.entries.filter { $0["operation"] as? String == "read" }.count == 4,
                "\(after.run.output) \(after.run.error)")
    }

    @Test("SIGTERM right after a read: the service flushes the log first, so the read's entry cut off later is detected")
    func stopFlushesTheCheckpoint() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start(environment: Self.longSyncBound)
        let alice = fixture.alice
        try #require(try ServiceIsolationTests.add(fixture, as: alice, secret: "alice-secret").status == 0)
        #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n")
        let service = try #require(fixture.service)
        kill(service.processIdentifier, SIGTERM)
        // Bounded: a service deaf to SIGTERM fails the test instead of hanging it.
        for _ in 0..<200 where service.isRunning { usleep(50_000) }
        try #require(!service.isRunning, "the service did not stop on SIGTERM: \(fixture.log)")
        service.waitUntilExit()
        // It still dies of the signal, as systemd and shells expect.
        #expect(service.terminationReason == .uncaughtSignal && service.terminationStatus == SIGTERM,
                "\(service.terminationReason.rawValue) \(service.terminationStatus) \(fixture.log)")

        // The attacker cuts the read's entry off the end of the file while the service is down.
        let path = try Self.logFile(fixture, of: alice)
        let frames = AccessLogFrames.ranges(in: try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(frames.count == 2, "\(frames)")
        #expect(truncate(path, off_t(frames[1].lowerBound)) == 0)

        try fixture.start(environment: Self.longSyncBound)
        let (run, _) = try ServiceAccessLogTests.log(fixture, as: alice)
        #expect(run.status != 0, "the cut went unnoticed: \(run.output)")
        #expect(run.error.contains("the newest entries were removed"), "\(run.error)")
    }

    @Test("lock-keychain right after a read: the log is flushed before the lock is reported, so cutting the read's entry is detected")
    func explicitLockFlushesTheCheckpoint() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start(environment: Self.longSyncBound)
        let alice = fixture.alice, program = fixture.program
        try #require(try fixture.run(as: alice, [program, "create-keychain", "-p"], stdin: "correct horse\n").status == 0)
        try #require(try ServiceIsolationTests.add(fixture, as: alice, secret: "alice-secret").status == 0)
        #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n")
        let locked = try fixture.run(as: alice, [program, "lock-keychain"])
        #expect(locked.status == 0, "\(locked.error) \(fixture.log)")

        // The machine goes down right after the lock (the service killed: nothing more is flushed),
        // and the attacker cuts the read's entry off the end of the file.
        let service = try #require(fixture.service)
        kill(service.processIdentifier, SIGKILL)
        service.waitUntilExit()
        let path = try Self.logFile(fixture, of: alice)
        let frames = AccessLogFrames.ranges(in: try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(frames.count == 2, "\(frames)")
        #expect(truncate(path, off_t(frames[1].lowerBound)) == 0)

        try fixture.start(environment: Self.longSyncBound)
        #expect(try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "correct horse\n").status == 0)
        let (run, _) = try ServiceAccessLogTests.log(fixture, as: alice)
        #expect(run.status != 0, "the cut went unnoticed: the lock did not bring the checkpoint up to the read: \(run.output)")
        #expect(run.error.contains("the newest entries were removed"), "\(run.error)")
    }
}
