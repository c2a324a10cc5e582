import Foundation

/// Runs a long, blocking test body on a thread of its own and suspends the calling test until it
/// ends. Swift Testing runs synchronous tests on the cooperative pool (one thread per core here):
/// tests that block for seconds — waiting for an etcd leader, for a watcher, for processes — would
/// starve every other test of the pool while they wait.
public func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.name = "blocking test body"
        thread.start()
    }
}
