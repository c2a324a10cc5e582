import KeychainPrimitives
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

extension KeychainSynchronizer {
    /// Keeps synchronizing until `shouldContinue` returns false: a pass, then a wait for the
    /// transport to change (a watch on etcd) or for `pollInterval` to pass (which is when local
    /// changes are picked up), then the next pass. A failure (the transport down, a network error)
    /// is reported and retried with exponential backoff from 1 s up to 30 s; being removed from
    /// the circle, not being in one, a locked keychain or an old-format circle ends the loop.
    package func watch(pollInterval: Duration = .seconds(5), shouldContinue: () -> Bool,
                      onResult: (Result<SyncReport, SyncError>) -> Void) {
        var backoff = Duration.seconds(1)
        while shouldContinue() {
            do throws(SyncError) {
                let report = try synchronize()
                onResult(.success(report))
                backoff = .seconds(1)
                let state = try requireState()
                let transport = try openTransport(state.location, HexEncoding.string(state.circleID))
                _ = try Self.transport { () throws(SyncTransportError) in
                    try transport.waitForChange(prefix: "", until: .now + pollInterval)
                }
            } catch {
                onResult(.failure(error))
                if Self.endsWatch(error) { return }
                Self.sleep(backoff, while: shouldContinue)
                backoff = min(backoff * 2, .seconds(30))
            }
        }
    }

    /// Failures that another attempt cannot fix without the user.
    static func endsWatch(_ error: SyncError) -> Bool {
        switch error {
        case .removedFromCircle, .notInCircle, .circleNotFound, .locked, .legacyCircle: return true
        default: return false
        }
    }

    /// Sleeps `duration` in short slices, ending early when `shouldContinue` turns false.
    private static func sleep(_ duration: Duration, while shouldContinue: () -> Bool) {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end, shouldContinue() { usleep(100_000) }
    }
}
