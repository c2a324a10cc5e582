import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore

/// The auto-lock by inactivity in a process, and the non-dumpable process.
@Suite("Auto-lock by inactivity and process hardening")
struct ProcessHardeningTests {
    /// Options whose auto-lock reads `clock`, which the test moves instead of sleeping.
    private static func options(_ keychain: TemporaryKeychain, _ clock: ManualClock) -> KeychainDatabase.Options {
        var options = keychain.options
        options.now = { clock.now() }
        return options
    }

    @Test("a keychain idle longer than its timeout is locked at its next call; use keeps it unlocked; 0 never locks")
    func inactivityLock() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let clock = ManualClock()
        let database = try keychain.open(password: Data("pw".utf8), options: Self.options(keychain, clock))
        _ = try database.insert(genericPassword(account: "a", secret: "s"))
        _ = try database.insert(genericPassword(account: "c", secret: "background", protection: .afterFirstUnlock))

        try database.setAutoLockTimeout(seconds: 1)
        clock.advance(by: .milliseconds(999))
        #expect(!database.isLocked, "not yet idle for the whole timeout")
        clock.advance(by: .milliseconds(300))  // idle past the timeout
        #expect(database.isLocked)
        #expect(storeError { _ = try readSecret(database, account: "a") } == .locked)
        #expect(try readSecret(database, account: "c") == "background", "after-first-unlock items stay, as with a lock")

        try database.unlock(password: Data("pw".utf8))
        try database.setAutoLockTimeout(seconds: 4)
        for _ in 0..<10 {  // used every 3 s for 30 s: never idle for 4 s
            clock.advance(by: .seconds(3))
            #expect(try readSecret(database, account: "a") == "s")
        }
        clock.advance(by: .seconds(4))
        #expect(database.isLocked, "idle for the whole timeout after the last use")

        try database.unlock(password: Data("pw".utf8))
        try database.setAutoLockTimeout(seconds: 0)
        clock.advance(by: .seconds(24 * 3600))
        #expect(!database.isLocked, "0: never locks")
        #expect(try readSecret(database, account: "a") == "s")
    }

    @Test("a timeout set by another handle applies to this one")
    func timeoutFromAnotherHandle() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let clock = ManualClock()
        let first = try keychain.open(password: Data("pw".utf8), options: Self.options(keychain, clock))
        _ = try first.insert(genericPassword(account: "a", secret: "s"))
        try keychain.open(password: "pw").setAutoLockTimeout(seconds: 1)
        #expect(try readSecret(first, account: "a") == "s")  // picks up the new timeout
        clock.advance(by: .milliseconds(1300))
        #expect(storeError { _ = try readSecret(first, account: "a") } == .locked)
    }

    #if os(Linux)
    @Test("unlocking a keychain with a password makes the process non-dumpable (no core dump, no same-user ptrace)")
    func nonDumpable() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        _ = try keychain.open(password: "pw")  // opening with the password unlocks it
        #expect(ProcessHardening.isDumpable == false)
    }
    #endif
}
