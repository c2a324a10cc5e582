import Foundation
import RequiredToolSupport
import Testing

/// The login keychain's password through the service, against real users: created with a
/// password, locked, unlocked (a wrong password unlocks nothing), locked again when idle — with
/// the real keychainctl's `create-keychain`, `lock-keychain` and `unlock-keychain` run under the
/// users' own uids. Needs root (CI runs as root) and useradd/setpriv.
@Suite("Keychain service: login keychain password, lock and unlock (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct LoginKeychainTests {
    /// `keychainctl` exits with an `OSStatus`'s low byte.
    static func exitCode(_ status: Int32) -> Int32 { Int32(UInt8(truncatingIfNeeded: status)) }

    @Test("a password-protected login keychain is locked and unlocked through the service; a wrong password unlocks nothing")
    func lockAndUnlock() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let alice = fixture.alice, program = fixture.program
        let created = try fixture.run(as: alice, [program, "create-keychain", "-p"], stdin: "correct horse\n")
        #expect(created.status == 0, "\(created.error) \(fixture.log)")
        // The keychain is the service's, not a file of Alice's.
        #expect(!FileManager.default.fileExists(atPath: alice.home + "/.local/share/keychainkit/login.keychain-db"))
        let keychain = fixture.stateDirectory + "/\(try fixture.uid(alice))/login.keychain-db"
        #expect(FileManager.default.fileExists(atPath: keychain))
        let again = try fixture.run(as: alice, [program, "create-keychain", "-p"], stdin: "other\n")
        #expect(again.status == Self.exitCode(-25296), "a second create must not replace the keychain: \(again.status) \(again.error)")
        #expect(try ServiceIsolationTests.add(fixture, as: alice, secret: "alice-secret").status == 0)
        #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n")

        let locked = try fixture.run(as: alice, [program, "lock-keychain"])
        #expect(locked.status == 0, "\(locked.error)")
        let whileLocked = try ServiceIsolationTests.find(fixture, as: alice)
        #expect(whileLocked.status == 36 && !whileLocked.output.contains("alice-secret"), "\(whileLocked.status) \(whileLocked.error)")
        // Without a password (no terminal, no password file) a locked keychain stays locked.
        let bare = try fixture.run(as: alice, [program, "unlock-keychain"])
        #expect(bare.status == 36, "\(bare.status) \(bare.error)")

        let wrong = try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "battery staple\n")
        #expect(wrong.status == Self.exitCode(-25293), "a wrong password must be errSecAuthFailed: \(wrong.status) \(wrong.error)")
        #expect(try ServiceIsolationTests.find(fixture, as: alice).status == 36, "a wrong password unlocked the keychain")

        // Bob's lock and unlock reach only his own keychain (he has none): Alice's stays as it is.
        let bobUnlock = try fixture.run(as: fixture.bob, [program, "unlock-keychain", "-p"], stdin: "correct horse\n")
        #expect(bobUnlock.status == Self.exitCode(-25294), "\(bobUnlock.status) \(bobUnlock.error)")
        #expect(try ServiceIsolationTests.find(fixture, as: alice).status == 36)

        let right = try fixture.run(as: alice, [program, "unlock-keychain", "-p"], stdin: "correct horse\n")
        #expect(right.status == 0, "\(right.error)")
        #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n")
        #expect(try fixture.run(as: fixture.bob, [program, "lock-keychain"]).status == Self.exitCode(-25294))
        #expect(try ServiceIsolationTests.find(fixture, as: alice).output == "alice-secret\n", "Bob's lock reached Alice's keychain")
        // The password never reaches the service's log.
        #expect(!fixture.log.contains("correct horse") && !fixture.log.contains("battery staple"))
    }

    @Test("the service locks a keychain nobody used for --lock-after seconds")
    func idleTimeoutLocks() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start(extraArguments: ["--lock-after", "1"])
        let alice = fixture.alice
        // create-keychain leaves the keychain unlocked; a second later the service locks it.
        #expect(try fixture.run(as: alice, [fixture.program, "create-keychain", "-p"], stdin: "correct horse\n").status == 0)
        let uid = try fixture.uid(alice)
        // The sweep runs every 0.25 s here: the lock is logged within a few seconds.
        for _ in 0..<50 where !fixture.log.contains("locked the keychain of uid \(uid)") { usleep(100_000) }
        #expect(fixture.log.contains("locked the keychain of uid \(uid)"), "\(fixture.log)")
        // Locked: a "when unlocked" item can be neither stored nor read until the next unlock.
        let stored = try ServiceIsolationTests.add(fixture, as: alice, secret: "alice-secret")
        #expect(stored.status == 36, "\(stored.status) \(stored.error)")
        #expect(try fixture.run(as: alice, [fixture.program, "unlock-keychain", "-p"], stdin: "correct horse\n").status == 0)
    }
}
