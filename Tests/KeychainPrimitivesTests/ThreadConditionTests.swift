import Dispatch
import Foundation
import KeychainPrimitives
import Testing

/// `ThreadCondition` (NSCondition for the FoundationEssentials-only modules): the lock excludes,
/// and a waiter wakes when another thread signals.
@Suite("ThreadCondition")
struct ThreadConditionTests {
    /// What the threads share, guarded by the condition's lock.
    final class Shared: @unchecked Sendable {
        var count = 0
        var ready = false
        var woke = false
    }

    @Test func theLockExcludesOtherThreads() {
        let condition = ThreadCondition()
        let shared = Shared()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<20_000 { condition.withLock { shared.count += 1 } }
        }
        #expect(condition.withLock { shared.count } == 80_000)
    }

    @Test func aWaiterWakesWhenSignalled() {
        let condition = ThreadCondition()
        let shared = Shared()
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            condition.lock()
            while !shared.ready { condition.wait() }
            shared.woke = true
            condition.unlock()
            finished.signal()
        }
        condition.withLock {
            shared.ready = true
            condition.signal()
        }
        #expect(finished.wait(timeout: .now() + 10) == .success, "the waiter did not wake")
        #expect(condition.withLock { shared.woke })
    }

    @Test func broadcastWakesEveryWaiter() {
        let condition = ThreadCondition()
        let shared = Shared()
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<3 {
            Thread.detachNewThread {
                condition.lock()
                while !shared.ready { condition.wait() }
                shared.count += 1
                condition.unlock()
                finished.signal()
            }
        }
        condition.withLock {
            shared.ready = true
            condition.broadcast()
        }
        for _ in 0..<3 { #expect(finished.wait(timeout: .now() + 10) == .success, "a waiter did not wake") }
        #expect(condition.withLock { shared.count } == 3)
    }

    @Test func aTimedWaitGivesUpAtItsDeadline() {
        let condition = ThreadCondition()
        let signalled = condition.withLock { condition.wait(until: Date().addingTimeInterval(0.05)) }
        #expect(!signalled, "nobody signalled, so the wait must report its deadline")
        let afterTheDeadline = condition.withLock { condition.wait(until: Date().addingTimeInterval(-1)) }
        #expect(!afterTheDeadline, "a deadline already passed waits for nothing")
        let atNaN = condition.withLock { condition.wait(until: Date(timeIntervalSince1970: .nan)) }
        #expect(!atNaN)
    }

    @Test func aTimedWaitWakesWhenSignalledBeforeItsDeadline() {
        let condition = ThreadCondition()
        let shared = Shared()
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            condition.lock()
            var signalled = true
            while !shared.ready && signalled { signalled = condition.wait(until: .distantFuture) }
            shared.woke = signalled && shared.ready
            condition.unlock()
            finished.signal()
        }
        condition.withLock {
            shared.ready = true
            condition.signal()
        }
        #expect(finished.wait(timeout: .now() + 10) == .success, "the waiter did not wake")
        #expect(condition.withLock { shared.woke }, "a wait with a far deadline must report the signal")
    }
}
