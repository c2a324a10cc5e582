import Foundation

/// A clock that stands still until the test moves it: what a test gives the code under test in
/// place of the continuous clock, so that an hour of idleness takes no time and a test asserts
/// the state after it instead of sleeping and hoping the machine kept up.
package final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private let start = ContinuousClock.now
    private let startDate = Date()
    private var elapsed: Duration = .zero

    /// A clock reading the real time (and date) of its creation, until moved.
    package init() {}

    /// The time now, as this clock tells it.
    package func now() -> ContinuousClock.Instant {
        lock.withLock { start + elapsed }
    }

    /// The wall-clock date now, as this clock tells it: the real date of its creation, moved
    /// as far as the clock was (what `KeychainDatabase.Options.currentDate` stamps items with).
    package func date() -> Date {
        lock.withLock {
            startDate.addingTimeInterval(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
    }

    /// Moves the clock forward by `duration`.
    package func advance(by duration: Duration) {
        precondition(duration >= .zero, "a clock does not go back")
        lock.withLock { elapsed += duration }
    }
}
