import Dispatch

/// A point on the monotonic clock by which an operation must finish.
package struct Deadline: Sendable {
    private let uptimeNanoseconds: UInt64

    /// The deadline `seconds` from now (negative or NaN counts as now).
    package init(secondsFromNow seconds: Double) {
        let clamped = seconds.isNaN ? 0 : min(max(seconds, 0), 86_400)
        uptimeNanoseconds = DispatchTime.now().uptimeNanoseconds + UInt64(clamped * 1_000_000_000)
    }

    /// Milliseconds left (0 once passed), capped at `cap`, for `poll`.
    package func remainingMilliseconds(cap: Int32) -> Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now < uptimeNanoseconds else { return 0 }
        let left = (uptimeNanoseconds - now + 999_999) / 1_000_000
        return Int32(min(UInt64(cap), left))
    }

    /// Whether the deadline has passed.
    package var hasPassed: Bool { DispatchTime.now().uptimeNanoseconds >= uptimeNanoseconds }
}
