import Foundation

/// Runs a long, blocking test body on a thread of its own **inside the calling test's task**.
///
/// Swift Testing runs tests on the cooperative pool (one thread per core here), which a body that
/// waits for daemons and client processes would starve. A plain `Thread` avoids that but leaves the
/// test's task: an `#expect` failing there is reported against no test («unknown») while the test
/// itself shows as passed. A task-executor preference keeps the task (and so Swift Testing's
/// task-locals) and only moves where its jobs run.
public func onOwnThread<T: Sendable>(_ body: @Sendable () throws -> T) async throws -> T {
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
