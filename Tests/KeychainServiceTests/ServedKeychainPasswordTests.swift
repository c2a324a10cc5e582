import Foundation
import RequiredToolSupport
import Testing

/// The login keychain's password and auto-lock settings through the service, with real users and
/// the real keychainctl: `set-keychain-password` (a wrong old password changes nothing; after the
/// change the old one fails and the new one works, the items stay, and so after a restart),
/// `set-keychain-settings` shown by `show-keychain-info`, and the wait after wrong passwords,
/// which outlives the client's connection.
@Suite("Keychain service: password change, settings and wrong-password wait (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServedKeychainPasswordTests {
    static let authFailed = LoginKeychainTests.exitCode(-25293)

    @Test("set-keychain-password changes the served keychain's password: the old one fails, the new one works, items survive a restart")
    func changePassword() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let alice = fixture.alice, program = fixture.program
        #expect(try fixture.run(as: alice, [program, "create-keychain", "-p"], stdin: "old horse\n").status == 0, "\(fixture.log)")
        #expect(try ServiceIsolationTests.add(fixture, as: alice, secret: "alice-secret").status == 0)

        let wrong = try fixture.run(as: alice, [program, "set-keychain-password"], stdin: "not it\nnew staple\n")
        #expect(wrong.status == Self.authFailed, "a wrong old password must be errSecAuthFailed: \(wrong.status) \(wrong.error)")
        #expect(try fixture.run(as: alice, [program, "lock-keychain"]).status == 0)
        #expect(try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "new staple\n").status == Self.authFailed,
                "a refused change must leave the old password in place")
        #expect(try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "old horse\n").status == 0)

        let changed = try fixture.run(as: alice, [program, "set-keychain-password"], stdin: "old horse\nnew staple\n")
        #expect(changed.status == 0, "\(changed.error) \(fixture.log)")
        // Still unlocked after the change: the service holds the new keys.
        #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n")
        #expect(!FileManager.default.fileExists(atPath: alice.home + "/.local/share/keychainkit/login.keychain-db"))
        // Bob cannot change Alice's password, with hers or not: his calls reach only his keychain.
        let bobs = try fixture.run(as: fixture.bob, [program, "set-keychain-password"], stdin: "new staple\nbob's\n")
        #expect(bobs.status == LoginKeychainTests.exitCode(-25294), "\(bobs.status) \(bobs.error)")

        // Restart: the keychain is locked; the old password opens nothing, the new one everything.
        if let service = fixture.service {
            kill(service.processIdentifier, SIGTERM)
            service.waitUntilExit()
        }
        unlink(fixture.socket)  // start() waits for the new service's socket to appear
        try fixture.start()
        #expect(try ServiceIsolationTests.find(fixture, as: alice).status == 36, "a restarted service starts locked")
        #expect(try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "old horse\n").status == Self.authFailed)
        #expect(try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "new staple\n").status == 0)
        #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n")
        #expect(!fixture.log.contains("old horse") && !fixture.log.contains("new staple"))
    }

    @Test("set-keychain-settings stores the auto-lock interval and lock-on-sleep in the service; show-keychain-info shows them")
    func settings() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let alice = fixture.alice, program = fixture.program
        #expect(try fixture.run(as: alice, [program, "create-keychain", "-p"], stdin: "correct horse\n").status == 0, "\(fixture.log)")
        let initial = try fixture.run(as: alice, [program, "show-keychain-info"])
        #expect(initial.status == 0 && initial.output.hasPrefix("Keychain served by the keychain service timeout=300s unlocked\n"),
                "\(initial.output) \(initial.error)")
        let set = try fixture.run(as: alice, [program, "set-keychain-settings", "-t", "900"])
        #expect(set.status == 0, "\(set.error)")
        let shown = try fixture.run(as: alice, [program, "show-keychain-info", "--json"])
        #expect(shown.status == 0, "\(shown.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any])
        #expect(object["timeout"] as? Int == 900 && object["locked"] as? Bool == false && object["keychain"] as? String == "service",
                "\(shown.output)")
        #expect(try fixture.run(as: alice, [program, "set-keychain-settings"]).status == 0)
        #expect(try fixture.run(as: alice, [program, "show-keychain-info"]).output.hasPrefix("Keychain served by the keychain service no-timeout unlocked\n"))
        // Lock-on-sleep is stored by the service beside the keychain, where Alice cannot write.
        let sleep = try fixture.run(as: alice, [program, "set-keychain-settings", "-l", "-t", "60"])
        #expect(sleep.status == 0, "\(sleep.status) \(sleep.error)")
        #expect(try fixture.run(as: alice, [program, "show-keychain-info"]).output
                    .hasPrefix("Keychain served by the keychain service lock-on-sleep timeout=60s unlocked\n"))
        let sleepJSON = try fixture.run(as: alice, [program, "show-keychain-info", "--json"])
        let sleepObject = try #require(try JSONSerialization.jsonObject(with: Data(sleepJSON.output.utf8)) as? [String: Any])
        #expect(sleepObject["lockOnSleep"] as? Bool == true && sleepObject["timeout"] as? Int == 60, "\(sleepJSON.output)")
        // Bob's settings call reaches only his (missing) keychain.
        #expect(try fixture.run(as: fixture.bob, [program, "set-keychain-settings", "-t", "5"]).status == LoginKeychainTests.exitCode(-25294))
        #expect(try fixture.run(as: alice, [program, "show-keychain-info"]).output.hasPrefix("Keychain served by the keychain service lock-on-sleep timeout=60s "))
        // Settings without -l turn it off again, as on macOS.
        #expect(try fixture.run(as: alice, [program, "set-keychain-settings", "-t", "60"]).status == 0)
        #expect(try fixture.run(as: alice, [program, "show-keychain-info"]).output.hasPrefix("Keychain served by the keychain service timeout=60s unlocked\n"))
    }

    @Test("after repeated wrong passwords the service makes the user wait, across connections, even for the right password")
    func wrongPasswordWait() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let alice = fixture.alice, program = fixture.program
        #expect(try fixture.run(as: alice, [program, "create-keychain", "-p"], stdin: "correct horse\n").status == 0, "\(fixture.log)")
        #expect(try ServiceIsolationTests.add(fixture, as: alice, secret: "alice-secret").status == 0)
        #expect(try fixture.run(as: alice, [program, "lock-keychain"]).status == 0)
        // Each keychainctl run is a new connection: the count lives in the service, per uid.
        for attempt in 1...3 {
            let wrong = try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "guess \(attempt)\n")
            #expect(wrong.status == Self.authFailed && !wrong.error.contains("try again"), "attempt \(attempt): \(wrong.status) \(wrong.error)")
        }
        let fourth = try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "guess 4\n")
        #expect(fourth.status == Self.authFailed && fourth.error.contains("try again in 5 s"), "\(fourth.status) \(fourth.error)")
        // During the wait the right password is refused untried, and so is a password change.
        let right = try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "correct horse\n")
        #expect(right.status == Self.authFailed && right.error.contains("try again in"), "\(right.status) \(right.error)")
        let change = try fixture.run(as: alice, [program, "set-keychain-password"], stdin: "correct horse\nnew\n")
        #expect(change.status == Self.authFailed && change.error.contains("try again in"), "\(change.status) \(change.error)")
        #expect(try ServiceIsolationTests.find(fixture, as: alice).status == 36, "the keychain stays locked")
        // The wait is Alice's alone: Bob's keychain calls are answered at once.
        #expect(try fixture.run(as: fixture.bob, [program, "create-keychain", "-p"], stdin: "bob's\n").status == 0)
        #expect(try fixture.run(as: fixture.bob, [program, "unlock-keychain", "-p"], stdin: "bob's\n").status == 0)
        // The wait ends (5 s): the right password then unlocks and clears the count.
        var unlocked = false
        for _ in 0..<40 where !unlocked {
            usleep(250_000)
            unlocked = try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "correct horse\n").status == 0
        }
        #expect(unlocked, "the wait must end: nobody is locked out for good")
        #expect(try ServiceIsolationTests.find(fixture, as: alice).status == 0)
        #expect(!fixture.log.contains("correct horse") && !fixture.log.contains("guess"))
    }
}
