import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
// ThreadCondition: NSCondition, which FoundationEssentials lacks.
import KeychainPrimitives

/// Group commit of one access log for a long-lived process that records many reads (the Secret
/// Service provider): readers that record at the same time share one append — one `flock`, one
/// `write`, one `fsync` — and each returns only once the `fsync` covering its own entry is done, so
/// the guarantee of ``AccessLog`` holds unchanged: no secret leaves before its entry is durable, and
/// a reader whose entry could not be written gets the error (and must not hand the secret out).
///
/// How it batches: the first reader to find no append under way writes every entry waiting at that
/// moment; readers arriving meanwhile wait, and the first of them writes all of theirs next. Nothing
/// waits for company: a lone reader appends at once.
///
/// The keychain's checkpoint (what detects the newest entries being cut off; see ``AccessLogVault``)
/// is not rewritten per append: it follows the newest entry within ``checkpointDelay`` (and at once
/// when an append starts a new file, and at ``flush()``). Until then, entries after the checkpoint
/// are durable and chained, but cutting them off the end of the file would not be detected; the next
/// append by any process (keychainctl writes the checkpoint with each of its appends), or the delay
/// running out, closes that gap. A checkpoint that could not be written is retried by the next
/// append, synchronously, whose reader then gets the error.
package final class AccessLogGroupCommit: AccessEventRecorder, @unchecked Sendable {
    /// The longest the keychain's checkpoint stays behind the newest entry (the window in which the
    /// newest entries could be cut off undetected) while the process runs.
    package static let defaultCheckpointDelay: TimeInterval = 1

    /// The log appended to.
    package let log: AccessLog
    /// How long the checkpoint may stay behind (0: updated with every append, as ``AccessLog`` does).
    package let checkpointDelay: TimeInterval

    private let condition = ThreadCondition()
    // Everything below is guarded by `condition`.
    /// Entries waiting for an append, with their tickets.
    private var waiting: [(ticket: UInt64, event: AccessEvent)] = []
    private var nextTicket: UInt64 = 0
    /// The outcome of each appended ticket, until its reader collects it.
    private var outcomes: [UInt64: Result<Void, AccessLogError>] = [:]
    /// Whether a thread is appending (or writing the checkpoint) now.
    private var isWriting = false
    /// The writer's state between appends.
    private var writer: AccessLog.Writer?
    /// Whether a deferred checkpoint is scheduled.
    private var checkpointScheduled = false
    /// Whether the last deferred checkpoint failed: the next append then writes it itself.
    private var checkpointFailed = false

    /// Group commit over `log`; the checkpoint follows within `checkpointDelay` seconds.
    package init(log: AccessLog, checkpointDelay: TimeInterval = defaultCheckpointDelay) {
        self.log = log
        self.checkpointDelay = max(checkpointDelay, 0)
    }

    /// Records `event` durably (in an append shared with the readers recording at the same time),
    /// or throws ``AccessLogError``; the caller must not hand out the secret then.
    package func record(_ event: AccessEvent) throws {
        try recordTogether([event])
    }

    /// Records `events` durably, in the same append, or throws.
    package func record(_ events: [AccessEvent]) throws {
        try recordTogether(events)
    }

    /// Records `events` durably, in the same append, or throws ``AccessLogError``.
    package func recordTogether(_ events: [AccessEvent]) throws(AccessLogError) {
        guard !events.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        waiting += events.map { (ticket, $0) }
        while true {
            if let outcome = outcomes.removeValue(forKey: ticket) { return try outcome.get() }
            if !isWriting {
                appendWaiting()
                continue
            }
            condition.wait()
        }
    }

    /// Makes the checkpoint vouch for the newest entry now (the provider stopping).
    package func flush() throws(AccessLogError) {
        condition.lock()
        defer { condition.unlock() }
        let outcome = writeCheckpointExclusively()
        condition.broadcast()
        try outcome.get()
    }

    /// Waits for any append to finish, then writes the checkpoint with the lock released; called
    /// and returns with the lock held. The caller broadcasts once it has recorded the outcome.
    private func writeCheckpointExclusively() -> Result<Void, AccessLogError> {
        while isWriting { condition.wait() }
        isWriting = true
        var writer = self.writer
        condition.unlock()
        let outcome = Result { () throws(AccessLogError) in try log.writeCheckpoint(writer: &writer) }
        condition.lock()
        self.writer = writer
        isWriting = false
        return outcome
    }

    /// Appends every waiting entry as one batch; called with the lock held and no append under way,
    /// returns with the lock held. The lock is released while writing, so readers can queue the next batch.
    private func appendWaiting() {
        let batch = waiting
        waiting = []
        isWriting = true
        var writer = self.writer
        let checkpointing = checkpointDelay == 0 || checkpointFailed
        condition.unlock()
        let outcome = Result { () throws(AccessLogError) in
            try log.append(batch.map { .access($0.event) }, writer: &writer, checkpointing: checkpointing)
        }
        condition.lock()
        self.writer = writer
        if checkpointing, case .success = outcome { checkpointFailed = false }
        for ticket in Set(batch.map(\.ticket)) { outcomes[ticket] = outcome }
        isWriting = false
        scheduleCheckpointIfBehind()
        condition.broadcast()
    }

    /// Schedules the deferred checkpoint when the keychain's is behind and none is scheduled; lock held.
    private func scheduleCheckpointIfBehind() {
        guard !checkpointScheduled, writer?.checkpointIsBehind == true else { return }
        checkpointScheduled = true
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + checkpointDelay) { [self] in
            condition.lock()
            defer { condition.unlock() }
            checkpointScheduled = false
            if case .failure = writeCheckpointExclusively() { checkpointFailed = true }
            condition.broadcast()
        }
    }
}
