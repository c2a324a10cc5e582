import Foundation
import Testing

/// Shared unlock through the Linux kernel keyring: one process unlocks, others read without the
/// password; a lock or the auto-lock timeout ends it for all; "after first unlock" items stay.
@Suite("keychainctl shared unlock (kernel keyring)")
struct SessionSharingTests {
    @Test("unlock in one process, read in another without the password; a lock ends it for every process")
    func unlockAndLockAcrossProcesses() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("shared.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "shared\n").status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path]).status == 36)

            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "pw\n").status == 0)
            let reader = try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path])
            #expect(reader.status == 0, "another process reads without the password: \(reader.stderr)")
            #expect(reader.stdout == "shared\n")

            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path]).status == 36)
        }
    }

    @Test("a password change in one process replaces the shared keys: other processes read and write with the new ones")
    func passwordChangeRepublishes() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("rotated.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "before\n").status == 0)
            #expect(try sandbox.keychainctl(["set-keychain-password", path], stdin: "pw\nnew\n").status == 0)
            // The class keys were replaced; the session holds the new ones, not the old.
            let reader = try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path])
            #expect(reader.status == 0, "\(reader.stderr)")
            #expect(reader.stdout == "before\n")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "b", "-s", "s", path, "-w"], stdin: "after\n").status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "new\n").status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "b", "-w", path]).stdout == "after\n")
        }
    }

    @Test("the kernel keyring is what shares: with KEYCHAINKIT_SESSION_KEYRING=off nothing is published or adopted")
    func sharingOff() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("private.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "x\n").status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            let off = ["KEYCHAINKIT_SESSION_KEYRING": "off"]
            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "pw\n", environment: off).status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", path]).status == 36, "a private unlock is not shared")

            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "pw\n").status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", path], environment: off).status == 36,
                    "a process that opts out does not adopt")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", path]).status == 0)
        }
    }

    @Test("after a lock, 'after first unlock' items stay readable in other processes; 'when unlocked' ones do not")
    func afterFirstUnlockSurvivesLock() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("classes.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "ck", "-s", "s", "--accessible", "after-first-unlock",
                                             path, "-w"], stdin: "background\n").status == 0)
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "ak", "-s", "s", path, "-w"], stdin: "foreground\n").status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "ck", "-w", path]).stdout == "background\n")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "ak", "-w", path]).status == 36)
        }
    }

    @Test("the auto-lock timeout locks every process; 'after first unlock' items stay readable")
    func autoLockTimeout() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("timeout.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "ak", "-s", "s", path, "-w"], stdin: "a\n").status == 0)
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "ck", "-s", "s", "--accessible", "after-first-unlock",
                                             path, "-w"], stdin: "c\n").status == 0)
            #expect(try sandbox.keychainctl(["set-keychain-settings", "-t", "1", path]).status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "pw\n").status == 0)
            // The timeout (1 s) locks it: wait for the lock (a read does not renew it), at most 15 s.
            let deadline = ContinuousClock.now + .seconds(15)
            while try sandbox.keychainctl(["find-generic-password", "-a", "ak", path]).status == 0, ContinuousClock.now < deadline {
                usleep(50_000)
            }
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "ak", path]).status == 36)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "ck", "-w", path]).stdout == "c\n")
        }
    }

    @Test("keyring entries are possessor-only (perm 3f010000: no group or other access)")
    func entryPermissions() throws {
        try withSandbox { (sandbox) throws in
            _ = try sandbox.createKeychain("perm.keychain-db", password: "pw")
            let keys = try String(contentsOfFile: "/proc/keys", encoding: .utf8)
            let entries = keys.split(separator: "\n").filter { $0.contains(" keychainkit:") }
            #expect(!entries.isEmpty, "create-keychain publishes the unlock")
            for entry in entries {
                let fields = entry.split(separator: " ", omittingEmptySubsequences: true)
                #expect(fields.count > 4 && fields[4] == "3f010000", "\(entry)")
            }
        }
    }
}
