import Foundation
@testable import KeychainServiceCore
import Testing

/// The wait after wrong keychain passwords, with a clock the test moves: free typing mistakes,
/// then a wait that doubles, is capped, is per uid, and ends with the right password.
@Suite("Keychain service: the wait after wrong passwords")
struct WrongPasswordDelayTests {
    @Test("three wrong passwords are free; each one after starts a doubling wait, capped, for that uid only")
    func growsAndCaps() {
        let delay = WrongPasswordDelay()
        var now = ContinuousClock.now
        for _ in 0..<WrongPasswordDelay.freeAttempts {
            #expect(delay.recordWrongPassword(of: 1000, now: now) == nil)
            #expect(delay.remainingWait(of: 1000, now: now) == nil)
        }
        #expect(delay.recordWrongPassword(of: 1000, now: now) == .seconds(5))
        #expect(delay.remainingWait(of: 1000, now: now) == .seconds(5))
        // Another user is not slowed down by uid 1000's attacker.
        #expect(delay.remainingWait(of: 1001, now: now) == nil)
        now += .seconds(5)
        #expect(delay.remainingWait(of: 1000, now: now) == nil, "the wait ends")
        #expect(delay.recordWrongPassword(of: 1000, now: now) == .seconds(10))
        var waits: [Duration] = []
        for _ in 0..<30 {
            now += .seconds(600)
            waits.append(delay.recordWrongPassword(of: 1000, now: now) ?? .zero)
        }
        #expect(waits.max() == WrongPasswordDelay.longestDelay, "the wait never exceeds the cap: never locked out for good")
        #expect(waits.last == .seconds(600))
    }

    @Test("the right password clears the count: the next mistakes are free again")
    func rightPasswordResets() {
        let delay = WrongPasswordDelay()
        let now = ContinuousClock.now
        for _ in 0...WrongPasswordDelay.freeAttempts { delay.recordWrongPassword(of: 7, now: now) }
        #expect(delay.remainingWait(of: 7, now: now) != nil)
        delay.recordRightPassword(of: 7)
        #expect(delay.remainingWait(of: 7, now: now) == nil)
        #expect(delay.recordWrongPassword(of: 7, now: now) == nil)
    }

    @Test("the refusal says how long to wait and that the wait ends")
    func refusalWords() {
        let words = WrongPasswordDelay.refusal(.milliseconds(4_200))
        #expect(words.contains("try again in 5 s"), "\(words)")
        #expect(words.contains("up to 600 s"), "\(words)")
    }

    /// What the concurrent guesses saw, under a lock.
    final class Tally: @unchecked Sendable {
        let lock = NSLock()
        var running = 0, mostAtOnce = 0, checked = 0, refused = 0
    }

    @Test("guesses sent at once on many connections of one uid are checked one at a time, so only the free ones are free")
    func concurrentGuessesQueue() {
        let delay = WrongPasswordDelay()
        let tally = Tally()
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            delay.oneAtATime(for: 1000) {
                tally.lock.withLock {
                    tally.running += 1
                    tally.mostAtOnce = max(tally.mostAtOnce, tally.running)
                }
                // What the service does per attempt: refuse during a wait, else check and count.
                if delay.remainingWait(of: 1000) != nil {
                    tally.lock.withLock { tally.refused += 1 }
                } else {
                    usleep(1_000)  // the password check
                    delay.recordWrongPassword(of: 1000)
                    tally.lock.withLock { tally.checked += 1 }
                }
                tally.lock.withLock { tally.running -= 1 }
            }
        }
        #expect(tally.mostAtOnce == 1)
        #expect(tally.checked == WrongPasswordDelay.freeAttempts + 1 && tally.refused == 32 - tally.checked,
                "checked \(tally.checked), refused \(tally.refused)")
    }
}
