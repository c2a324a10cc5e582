import Foundation

/// Runs a long, blocking test body on a thread of its own **inside the calling test's task**, and
/// suspends the calling test until it ends.
///
/// Swift Testing runs tests on the cooperative pool (one thread per core here): tests that block
/// for seconds — waiting for an etcd leader, for a watcher, for daemons and client processes —
/// would starve every other test of the pool. A plain `Thread` avoids that but leaves the test's
/// task, so an `#expect` failing there is reported against no test («unknown»). A task-executor
/// preference keeps the task (and so Swift Testing's task-locals) and only moves where its jobs run.
public func onDedicatedThread<T: Sendable>(_ body: @Sendable () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(ThreadPerJobExecutor()) {
        try body()
    }
}

/// A task executor that runs every job it is given on a new thread.
final class ThreadPerJobExecutor: TaskExecutor, @unchecked Sendable {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.name = "blocking test body"
        thread.start()
    }
}
