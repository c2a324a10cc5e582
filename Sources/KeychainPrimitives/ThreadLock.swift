#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX mutex, in place of Foundation's `NSLock` and `NSRecursiveLock` (neither is in
/// FoundationEssentials): the store's and the engine's locks. Beside ``ThreadCondition``, the
/// lock for threads that also wait.
///
/// Synchronization's `Mutex` guards one value and hands it back as `sending`; the locks here guard
/// several properties of their owner and return non-`Sendable` values (open keychains), so they
/// stay plain locks. A recursive one lets its holder take it again: the calls a keychain handle
/// makes inside one of its own locked calls (the body of `atomically`) must not deadlock.
/// The mutex is allocated once and never moved, as a `pthread_mutex_t` in use must not be.
package final class ThreadLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock; `recursive`: one its holder may take again (and must release as often).
    package init(recursive: Bool = false) {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(recursive ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL))
        let code = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        // Fails only without memory: there is no keychain to serve then.
        precondition(code == 0, "pthread_mutex_init failed with \(code)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock, waiting while another thread holds it.
    package func lock() {
        let code = pthread_mutex_lock(mutex)
        precondition(code == 0, "pthread_mutex_lock failed with \(code)")
    }

    /// Takes the lock if it is free (or, for a recursive lock, held by this thread); false
    /// without waiting otherwise.
    package func tryLock() -> Bool {
        pthread_mutex_trylock(mutex) == 0
    }

    /// Releases one taking of the lock by this thread.
    package func unlock() {
        let code = pthread_mutex_unlock(mutex)
        precondition(code == 0, "pthread_mutex_unlock failed with \(code)")
    }

    /// Runs `body` holding the lock.
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
