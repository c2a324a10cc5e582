#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock with a condition variable, for threads that wait until another changes what the lock
/// guards: Foundation's `NSCondition`, which FoundationEssentials lacks (Synchronization's `Mutex`
/// has no wait). As with `NSCondition`, a waiter may wake without a signal, so it re-checks what
/// it waits for in a loop.
package final class ThreadCondition: @unchecked Sendable {
    // Heap-allocated: a pthread mutex or condition must not move once initialized.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Takes the lock, waiting while another thread holds it.
    package func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock, which the calling thread holds.
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Releases the lock, waits for a ``signal()`` or ``broadcast()`` (or a spurious wake-up), and
    /// takes the lock again before it returns. Called with the lock held.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// As ``wait()``, but waits no later than `deadline` (on the wall clock, as
    /// `NSCondition.wait(until:)` does): false when the deadline passes first (or had passed), true
    /// on a signal (or a spurious wake-up). Called with the lock held.
    package func wait(until deadline: Date) -> Bool {
        guard deadline.timeIntervalSinceNow > 0 else { return false }
        // Clamped: a deadline centuries away waits as long as the C type allows, not a trap.
        let nanoseconds = Int64(min(deadline.timeIntervalSince1970 * 1e9, Double(Int64.max / 2)))
        var time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &time) == 0
    }

    /// Wakes one thread waiting in ``wait()``, if any.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every thread waiting in ``wait()``.
    package func broadcast() { pthread_cond_broadcast(condition) }

    /// Runs `body` with the lock held.
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
