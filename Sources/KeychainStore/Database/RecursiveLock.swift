#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock its holder may take again: the calls a keychain handle makes inside one of its own
/// locked calls (the body of ``KeychainDatabase/atomically(_:)``) must not deadlock on it.
///
/// Synchronization's `Mutex` is not recursive and Foundation's `NSRecursiveLock` is not in
/// FoundationEssentials, so this is a POSIX recursive mutex, allocated once and never moved
/// (a `pthread_mutex_t` must keep its address while in use).
package final class RecursiveLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
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

    /// Takes the lock if no other thread holds it; false (without waiting) when one does.
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
