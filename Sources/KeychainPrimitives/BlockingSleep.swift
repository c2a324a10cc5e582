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

/// Foundation's `Thread.sleep(forTimeInterval:)`, which FoundationEssentials lacks (`Thread` is not
/// in it): blocks the calling thread, for the synchronous poll loops (the sync transports'
/// `waitForChange`) that wait between looks without an event to wait on.
package enum BlockingSleep {
    /// Blocks the calling thread for `duration` (nothing for zero or less), resuming after a
    /// signal for the time left, as Foundation does.
    package static func sleep(for duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(clamping: seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}
