import Foundation
import RequiredToolSupport
import Testing

/// The one access log the service writes for every front end: a secret read through the service
/// is recorded once, by the service, with the executable it verified; each user reads only their
/// own log, through the service. Needs root (CI runs as root) and useradd/setpriv.
@Suite("Keychain service: one access log, written by the service (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServiceAccessLogTests {
    /// Alice's or Bob's log as JSON objects, read through the service.
    static func log(_ fixture: ServiceFixture, as user: ServiceFixture.User) throws -> (run: ServiceFixture.Run, entries: [[String: Any]]) {
        let run = try fixture.run(as: user, [fixture.program, "access-log", "--json"])
        let entries = run.output.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        return (run, entries)
    }

    @Test("a read through the service is logged once, with the verified executable; another user cannot read that log")
    func oneLogPerUser() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let alice = fixture.alice
        #expect(try ServiceIsolationTests.add(fixture, as: alice, secret: "alice-secret").status == 0)
        #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n")
        // An attributes-only search hands out no secret: nothing to record.
        #expect(try fixture.run(as: alice, [fixture.program, "find-generic-password", "-a", "deploy", "-s", "api"]).status == 0)

        let (run, entries) = try Self.log(fixture, as: alice)
        #expect(run.status == 0, "\(run.error) \(fixture.log)")
        let reads = entries.filter { $0["operation"] as? String == "read" }
        #expect(reads.count == 1, "\(run.output)")
        let read = try #require(reads.first)
        #expect(read["channel"] as? String == "keychain-service")
        #expect(read["application"] as? String == fixture.program, "\(read)")
        #expect(read["uid"] as? Int == Int(try fixture.uid(alice)))
        #expect((read["item"] as? [String: Any])?["service"] as? String == "api")
        let caller = read["caller"] as? [[String: Any]] ?? []
        #expect(caller.first?["executable"] as? String == fixture.program, "\(caller)")
        #expect(entries.filter { $0["operation"] as? String == "create" }.count == 1, "\(run.output)")
        #expect(!run.output.contains("alice-secret"))
        // The log is the service's file: Alice's programs cannot open it themselves.
        let logFile = fixture.stateDirectory + "/\(try fixture.uid(alice))/login.keychain-db.access-log"
        #expect(FileManager.default.fileExists(atPath: logFile))
        #expect(try fixture.run(as: alice, ["/bin/cat", logFile]).status != 0)

        // Bob reaches only his own log: none yet, then his own entries and none of Alice's.
        let bobBefore = try Self.log(fixture, as: fixture.bob)
        #expect(bobBefore.run.status != 0 && bobBefore.entries.isEmpty && !bobBefore.run.output.contains("api"), "\(bobBefore.run.output)")
        #expect(try ServiceIsolationTests.add(fixture, as: fixture.bob, secret: "bob-secret").status == 0)
        let bob = try Self.log(fixture, as: fixture.bob)
        #expect(bob.run.status == 0 && bob.entries.count == 1, "\(bob.run.output) \(bob.run.error)")
        #expect(bob.entries.allSatisfy { $0["uid"] as? Int == Int(try! fixture.uid(fixture.bob)) })
    }

    @Test("no program, even a granted one, reaches the access log's key")
    func logGroupIsGrantedToNobody() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.write("executable = \(fixture.program)\naccess-groups = com.keychainkit.access-log\n",
                          to: fixture.grantsDirectory + "/log.grant", owner: nil, mode: 0o644)
        try fixture.start()
        // (A query naming the log's item by its service is refused by keychainctl itself: ask by another name.)
        let claimed = try fixture.run(as: fixture.alice, [fixture.program, "find-generic-password", "-s", "api", "-w"],
                                      environment: ["KEYCHAINKIT_ACCESS_GROUPS": "com.keychainkit.access-log"])
        #expect(claimed.status == LoginKeychainTests.exitCode(-34018), "\(claimed.status) \(claimed.error)")
        let stored = try ServiceIsolationTests.add(fixture, as: fixture.alice, secret: "alice-secret")
        #expect(stored.status == LoginKeychainTests.exitCode(-34018), "a program granted the log's group was served: \(stored.error)")
    }
}
