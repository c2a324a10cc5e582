#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// A growing wait after wrong keychain passwords, per user (uid), kept in the service's memory:
/// a client that reconnects, or another program of the same user, finds the same wait.
///
/// The first ``freeAttempts`` wrong passwords in a row cost nothing (typing mistakes). Each one
/// after that makes the user wait before the next attempt: ``firstDelay`` seconds, doubling with
/// every further wrong password up to ``longestDelay``. While the wait runs every password call
/// of that user (unlock, password change) is refused without trying the password; the right
/// password after the wait clears the count. The wait never grows past ``longestDelay``, so the
/// user is never locked out for good.
///
/// What it costs an attacker who runs as the user (and so can ask the service, but cannot read
/// its files to guess offline): after the free attempts at most one guess per ``longestDelay``
/// (10 minutes), about 150 a day, on top of the key derivation each guess runs. A service restart
/// (root only) clears the count.
final class WrongPasswordDelay: @unchecked Sendable {
    /// Wrong passwords in a row that cost no wait.
    static let freeAttempts = 3
    /// The wait after the first wrong password past the free ones.
    static let firstDelay: Duration = .seconds(5)
    /// The longest wait.
    static let longestDelay: Duration = .seconds(600)

    private struct Record {
        var failures = 0
        var retryAt: ContinuousClock.Instant?
    }

    private let lock = ThreadLock()
    private var records: [UInt32: Record] = [:]
    private var attemptLocks: [UInt32: ThreadLock] = [:]

    /// Runs `attempt` — a password check of `uid`, with its wait and its count — after any other
    /// attempt of `uid` has ended: many connections sending guesses at once get them checked one
    /// at a time, each seeing the wait the one before it started.
    func oneAtATime<T>(for uid: UInt32, _ attempt: () -> T) -> T {
        let attemptLock = lock.withLock { () -> ThreadLock in
            if let existing = attemptLocks[uid] { return existing }
            let made = ThreadLock()
            attemptLocks[uid] = made
            return made
        }
        return attemptLock.withLock(attempt)
    }

    /// The time `uid` has to wait before its next password attempt, or nil when it may try now.
    func remainingWait(of uid: UInt32, now: ContinuousClock.Instant = .now) -> Duration? {
        lock.withLock {
            guard let retryAt = records[uid]?.retryAt, retryAt > now else { return nil }
            return retryAt - now
        }
    }

    /// Records a wrong password of `uid`; returns the wait it starts (nil while still free).
    @discardableResult
    func recordWrongPassword(of uid: UInt32, now: ContinuousClock.Instant = .now) -> Duration? {
        lock.withLock {
            var record = records[uid] ?? Record()
            record.failures += 1
            let charged = record.failures - Self.freeAttempts
            records[uid] = record
            guard charged > 0 else { return nil }
            // 5 s, 10 s, 20 s, … capped; the exponent is capped too, so no shift overflows.
            let wait = min(Self.firstDelay * (1 << min(charged - 1, 16)), Self.longestDelay)
            records[uid]?.retryAt = now + wait
            return wait
        }
    }

    /// The right password of `uid`: the count starts again.
    func recordRightPassword(of uid: UInt32) {
        _ = lock.withLock { records.removeValue(forKey: uid) }
    }

    /// The words of a refusal during a wait of `wait`: how long, and that it ends.
    static func refusal(_ wait: Duration) -> String {
        let seconds = max(1, Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up)))
        return "too many wrong passwords: try again in \(seconds) s (the wait grows with each wrong password, "
            + "up to \(Int(longestDelay.components.seconds)) s, and ends with the right one)"
    }
}
