import Foundation

/// Runs blocking keychain calls off the caller's executor.
///
/// A keychain call can block for as long as an authentication prompt is up. Each call runs on a
/// thread of its own, and the calling task is suspended on a continuation until the call
/// returns, so no Swift concurrency thread (and not the main actor) waits.
///
/// A thread per call rather than a dispatch queue: dispatch's pool grows only slowly (about one
/// thread per second on Linux) when its threads block, so a few calls waiting on prompts would
/// delay every other keychain call behind them. Keychain calls take milliseconds; starting a
/// thread takes microseconds.
enum BlockingCalls {
    /// Runs `body` on a new thread and returns its result to the suspended caller.
    static func run<Result: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        // An observer's handler that awaits an async call must not see it reported back: the
        // thread gets the caller's suppression (task-local values do not cross to a Thread).
        let suppressed = ObservationSuppression.deliveringObservers
        let outcome: Swift.Result<Result, Failure> = await withCheckedContinuation { continuation in
            let thread = Thread {
                ObservationSuppression.$deliveringObservers.withValue(suppressed) {
                    continuation.resume(returning: Swift.Result { () throws(Failure) -> Result in try body() })
                }
            }
            thread.name = "KeychainKit blocking call"
            thread.start()
        }
        return try outcome.get()
    }
}
