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

/// What the last Keychain Services call on this thread knew about its failure beyond the
/// `OSStatus` Apple's C API returns: the store's error (its reason and fix) and how many matching
/// items a read skipped because they could not be decrypted, with the first one's reason. Per
/// thread, because the C API's callers read it right after their call on the same thread;
/// `KeychainServicesExtras` offers it to users, keychainctl and the helpers print it. Never holds a
/// secret (errors never do).
///
/// Only the Apple-shaped edges fill it (the `SecItem…` and `SecKeychain…` functions, KeychainKit's
/// engine backend), from the error the engine returns: the store and the engine never write it.
/// It lives here, beside the error, because those edges are in modules that do not depend on each other.
package enum FailureReport {
    /// One thread's record.
    private final class Record {
        var failure: KeychainStoreError?
        var unreadableItems = 0
        var firstUnreadable: KeychainStoreError?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // The destructor releases a thread's record when the thread ends.
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(pointer)).release()
        }
        return key
    }()

    private static func record(creating: Bool) -> Record? {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Record>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
        }
        guard creating else { return nil }
        let record = Record()
        pthread_setspecific(key, Unmanaged.passRetained(record).toOpaque())
        return record
    }

    /// Starts a call: forgets what the previous call on this thread recorded. Allocates nothing
    /// on a thread that never recorded anything.
    package static func beginCall() {
        guard let record = record(creating: false) else { return }
        record.failure = nil
        record.unreadableItems = 0
        record.firstUnreadable = nil
    }

    /// Records the failure the current call returns.
    package static func fail(_ error: KeychainStoreError) {
        record(creating: true)?.failure = error
    }

    /// Records that a read skipped `count` matching items it could not decrypt, the first of
    /// them for the reason `first`.
    package static func skippedUnreadable(_ count: Int, first: KeychainStoreError?) {
        guard count > 0, let record = record(creating: true) else { return }
        record.unreadableItems += count
        if record.firstUnreadable == nil { record.firstUnreadable = first }
    }

    /// The failure the last call on this thread recorded, if its status is `status`.
    package static func lastFailure(status: Int32) -> KeychainStoreError? {
        guard let failure = record(creating: false)?.failure, failure.osStatus == status else { return nil }
        return failure
    }

    /// How many matching items the last call on this thread skipped as unreadable.
    package static var lastUnreadableItems: Int { record(creating: false)?.unreadableItems ?? 0 }

    /// Why the first item the last read on this thread skipped could not be read.
    package static var lastFirstUnreadable: KeychainStoreError? { record(creating: false)?.firstUnreadable }
}
