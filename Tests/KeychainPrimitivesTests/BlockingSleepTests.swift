import Foundation
import KeychainPrimitives
import Testing

/// `BlockingSleep`, Foundation's `Thread.sleep(forTimeInterval:)` without Foundation: it blocks for
/// at least the time asked (a lower bound, which no load can break; how long beyond is not tested).
@Suite("Blocking sleep")
struct BlockingSleepTests {
    @Test("blocks at least the duration, fractions of a second included; zero and negative durations are allowed")
    func blocksAtLeastTheDuration() {
        for duration: Duration in [.milliseconds(15), .microseconds(1_500)] {
            let start = ContinuousClock.now
            BlockingSleep.sleep(for: duration)
            #expect(ContinuousClock.now - start >= duration)
        }
        BlockingSleep.sleep(for: .zero)
        BlockingSleep.sleep(for: .milliseconds(-5))
    }
}
