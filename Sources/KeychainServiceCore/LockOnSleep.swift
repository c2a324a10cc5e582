#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import KeychainEngine
import KeychainVocabulary
import Synchronization

// Locking on sleep, as macOS's "Lock when sleeping" (`SecKeychainSettings.lockOnSleep`): a user who
// asks for it finds their keychain locked after the machine has slept.
//
// How the service knows. `CLOCK_BOOTTIME` counts the time the machine was suspended and
// `CLOCK_MONOTONIC` does not (clock_gettime(2)), so their difference grows only while the machine
// sleeps. The service compares it, before it answers any request and every few seconds in
// between, with what it saw last: when it grew, the machine slept since, and every keychain whose
// user asked for it is locked before anything else is answered. This needs no hook that could be
// missed (no D-Bus signal, no unit ordered before `sleep.target`) and no privilege. What it
// cannot do is lock *before* the suspend: the class keys stay in the service's memory (locked
// pages, never swapped) while the machine sleeps, and leave it when it wakes.

/// The time the machine has spent suspended since it booted, as the kernel counts it.
package enum SuspendedTime {
    /// `CLOCK_BOOTTIME` minus `CLOCK_MONOTONIC`, now.
    package static func now() -> Duration {
        var monotonic = timespec(), boot = timespec()
        // Read in the order monotonic, boot: a difference can only come out larger by the few
        // nanoseconds between the two calls, far below ``SleepWatch/tolerance``.
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        clock_gettime(CLOCK_BOOTTIME, &boot)
        return duration(boot) - duration(monotonic)
    }

    private static func duration(_ time: timespec) -> Duration {
        .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}

/// Notices that the machine slept: ``afterSleep(_:)`` runs its body once for each time the
/// suspended time grew since the last call, and every other caller waits for that body, so no
/// request is answered after a sleep before the keychains that lock on sleep are locked.
package final class SleepWatch: Sendable {
    /// A growth of the suspended time below this is not a sleep (a suspend and resume take far
    /// longer than this; the clocks' own reading differs by nanoseconds).
    package static let tolerance: Duration = .milliseconds(50)

    private let suspendedTime: @Sendable () -> Duration
    private let lastSeen: Mutex<Duration>

    /// A watch over `suspendedTime` (the kernel's, unless a test gives its own), starting now.
    package init(suspendedTime: @escaping @Sendable () -> Duration = SuspendedTime.now) {
        self.suspendedTime = suspendedTime
        lastSeen = Mutex(suspendedTime())
    }

    /// Runs `body` when the machine slept since the last call, holding every other caller until
    /// it returns. Returns whether it ran.
    @discardableResult
    package func afterSleep(_ body: () -> Void) -> Bool {
        lastSeen.withLock { last in
            let now = suspendedTime()
            guard now - last >= Self.tolerance else { return false }
            last = now
            body()
            return true
        }
    }
}

/// Whether a user asked the service to lock their keychain on sleep: a file `lock-on-sleep` beside
/// the served keychain, in the user's directory of the service's state directory (mode 0700, the
/// service's own user), so only the service changes it, and it outlives a restart of the service.
package enum LockOnSleepSetting {
    /// Whether the keychain `keychain` locks on sleep. A flag that cannot be read counts as set:
    /// locking once too often costs the user a password, missing a lock costs a secret.
    package static func isSet(for keychain: ServedKeychain) -> Bool {
        var status = stat()
        if lstat(path(for: keychain), &status) == 0 { return true }
        return errno != ENOENT
    }

    /// Records (`on`) or removes the flag, durably (the file and its directory are synced).
    package static func set(_ on: Bool, for keychain: ServedKeychain) throws(KeychainStoreError) {
        let file = path(for: keychain)
        if on {
            let descriptor = open(file, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw failure("cannot record lock-on-sleep in \(file)") }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else { throw failure("cannot record lock-on-sleep in \(file)") }
        } else if unlink(file) != 0 && errno != ENOENT {
            throw failure("cannot remove \(file)")
        }
        let directory = open(directoryPath(for: keychain), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw failure("cannot open \(directoryPath(for: keychain))") }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw failure("cannot sync \(directoryPath(for: keychain))") }
    }

    private static func directoryPath(for keychain: ServedKeychain) -> String {
        let path = keychain.keychainPath
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func path(for keychain: ServedKeychain) -> String {
        directoryPath(for: keychain) + "/lock-on-sleep"
    }

    private static func failure(_ what: String) -> KeychainStoreError {
        KeychainStoreError(.io("\(what): \(String(cString: strerror(errno)))"))
    }
}
