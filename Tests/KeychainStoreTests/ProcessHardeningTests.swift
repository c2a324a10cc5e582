import Foundation
import Testing
@testable import KeychainStore

/// Issue 12, item 8: the auto-lock by inactivity in a process, and the non-dumpable process.
@Suite("Auto-lock by inactivity and process hardening")
struct ProcessHardeningTests {
    @Test("a keychain idle longer than its timeout is locked at its next call; use keeps it unlocked; 0 never locks")
    func inactivityLock() throws {
        let keychain = try TestKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "pw")
        _ = try database.insert(genericPassword(account: "a", secret: "s"))
        _ = try database.insert(genericPassword(account: "c", secret: "background", protection: .afterFirstUnlock))

        try database.setAutoLockTimeout(seconds: 1)
        usleep(1_300_000)  // idle past the timeout (a state is asserted below, not a duration)
        #expect(database.isLocked)
        #expect(storeError { _ = try readSecret(database, account: "a") } == .locked)
        #expect(try readSecret(database, account: "c") == "background", "after-first-unlock items stay, as with a lock")

        try database.unlock(password: Data("pw".utf8))
        try database.setAutoLockTimeout(seconds: 4)
        for _ in 0..<5 {  // used every 0.5 s for 2.5 s: never idle for 4 s
            usleep(500_000)
            #expect(try readSecret(database, account: "a") == "s")
        }

        try database.setAutoLockTimeout(seconds: 0)
        usleep(1_300_000)
        #expect(!database.isLocked, "0: never locks")
        #expect(try readSecret(database, account: "a") == "s")
    }

    @Test("a timeout set by another handle applies to this one")
    func timeoutFromAnotherHandle() throws {
        let keychain = try TestKeychain()
        defer { keychain.remove() }
        let first = try keychain.open(password: "pw")
        _ = try first.insert(genericPassword(account: "a", secret: "s"))
        try keychain.open(password: "pw").setAutoLockTimeout(seconds: 1)
        #expect(try readSecret(first, account: "a") == "s")  // picks up the new timeout
        usleep(1_300_000)
        #expect(storeError { _ = try readSecret(first, account: "a") } == .locked)
    }

    #if os(Linux)
    @Test("unlocking a keychain with a password makes the process non-dumpable (no core dump, no same-user ptrace)")
    func nonDumpable() throws {
        let keychain = try TestKeychain()
        defer { keychain.remove() }
        _ = try keychain.open(password: "pw")  // opening with the password unlocks it
        #expect(ProcessHardening.isDumpable == false)
    }
    #endif
}
