import Foundation
import Testing
import KeychainPrimitives

/// The POSIX lock that replaced Foundation's `NSLock` and `NSRecursiveLock` in the store and the engine.
@Suite("Thread lock")
struct ThreadLockTests {
    @Test func aRecursiveLockIsTakenAgainByItsHolder() {
        let lock = ThreadLock(recursive: true)
        let tookItAgain = lock.withLock { lock.withLock { lock.tryLock() } }
        #expect(tookItAgain)
        if tookItAgain { lock.unlock() }
        #expect(tryLockOnAnotherThread(lock), "the holder released every taking")
    }

    @Test func anotherThreadCannotTakeAHeldLock() {
        for lock in [ThreadLock(), ThreadLock(recursive: true)] {
            lock.lock()
            #expect(!tryLockOnAnotherThread(lock))
            lock.unlock()
            #expect(tryLockOnAnotherThread(lock))
        }
    }

    /// Whether a new thread can take `lock` (released again at once).
    private func tryLockOnAnotherThread(_ lock: ThreadLock) -> Bool {
        final class Outcome: @unchecked Sendable { var tookIt = false }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            outcome.tookIt = lock.tryLock()
            if outcome.tookIt { lock.unlock() }
            done.signal()
        }
        thread.start()
        done.wait()
        return outcome.tookIt
    }
}
