import Foundation
import KeychainEngine
@testable import KeychainServiceCore
import Synchronization
import Testing

/// Locking on sleep in the service, in process: the sleep watch fires once per growth of the
/// suspended time (and not for the clocks' jitter), and a sleep locks exactly the unlocked
/// keychains whose users asked for it, each after its access log's flush. The service's calls
/// (`set-keychain-settings -l`, `show-keychain-info`) are in ServedKeychainPasswordTests.
@Suite("Keychain service: lock on sleep")
struct LockOnSleepTests {
    /// A suspended-time clock the test moves.
    final class FakeSuspendedTime: Sendable {
        let value = Mutex(Duration.seconds(100))
        func advance(by duration: Duration) { value.withLock { $0 += duration } }
        var now: Duration { value.withLock { $0 } }
    }

    @Test("the sleep watch runs its body once per sleep, not for a growth below its tolerance")
    func sleepWatch() {
        let clock = FakeSuspendedTime()
        let watch = SleepWatch(suspendedTime: { clock.now })
        var runs = 0
        #expect(!watch.afterSleep { runs += 1 }, "no sleep yet")
        clock.advance(by: SleepWatch.tolerance / 2)
        #expect(!watch.afterSleep { runs += 1 }, "jitter is no sleep")
        clock.advance(by: .seconds(30))
        #expect(watch.afterSleep { runs += 1 })
        #expect(!watch.afterSleep { runs += 1 }, "the same sleep is seen once")
        clock.advance(by: .seconds(2))
        #expect(watch.afterSleep { runs += 1 })
        #expect(runs == 2)
    }

    @Test("the kernel's suspended time is never negative and never goes back")
    func kernelSuspendedTime() {
        let first = SuspendedTime.now()
        let second = SuspendedTime.now()
        #expect(first >= .zero)
        #expect(second >= first - .microseconds(1), "\(first) then \(second)")
    }

    @Test("a sleep locks the unlocked password keychains that asked for it, after their log's flush, and no other")
    func sleepLocksWhatAskedForIt() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("lock-on-sleep-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: state) }
        let keychains = UserKeychains(stateDirectory: state, testingKDF: true)
        func make(_ uid: UInt32, password: String?) throws -> ServedKeychain {
            let keychain = try keychains.servedKeychain(of: uid)
            try KeychainLifecycle(registry: keychain.registry).create(at: keychain.keychainPath, password: password.map { Data($0.utf8) })
            return keychain
        }
        func isUnlocked(_ keychain: ServedKeychain) throws -> Bool {
            try #require(keychain.registry.openDatabase(at: keychain.keychainPath)).status.isUnlocked
        }
        let asked = try make(1001, password: "correct horse")
        let notAsked = try make(1002, password: "battery staple")
        let noPassword = try make(1003, password: nil)
        try LockOnSleepSetting.set(true, for: asked)
        try LockOnSleepSetting.set(true, for: noPassword)
        #expect(LockOnSleepSetting.isSet(for: asked) && !LockOnSleepSetting.isSet(for: notAsked))
        #expect(try isUnlocked(asked) && isUnlocked(notAsked))

        var flushed: [UInt32] = []
        let locked = keychains.lockForSleep { uid in
            // The flush runs while the keychain is still unlocked (its checkpoint is kept in it).
            #expect((try? isUnlocked(asked)) == true)
            flushed.append(uid)
        }
        #expect(locked == [1001] && flushed == [1001], "a keychain without a password has nothing to lock")
        #expect(try !isUnlocked(asked))
        #expect(try isUnlocked(notAsked))

        // Turned off, durably: a later sleep leaves the keychain unlocked.
        try KeychainLifecycle(registry: asked.registry).unlock(asked.keychainPath, password: Data("correct horse".utf8))
        try LockOnSleepSetting.set(false, for: asked)
        try LockOnSleepSetting.set(false, for: asked)  // turning off what is off is no error
        #expect(!LockOnSleepSetting.isSet(for: asked))
        #expect(keychains.lockForSleep().isEmpty)
        #expect(try isUnlocked(asked))
    }
}
