import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
// ThreadCondition: NSCondition, which FoundationEssentials lacks.
import KeychainPrimitives

/// Group commit of one access log for a long-lived process that records many reads (the Secret
/// Service provider, the keychain service): readers that record at the same time share one append
/// — one `flock`, one `write` — and a reader whose entry could not be written gets the error (and
/// must not hand the secret out).
///
/// How durable an entry is when its reader goes on (``syncBound``):
/// - **Bounded (the default, ``defaultSyncBound``, 10 ms).** The entry is sealed, chained and
///   `write`n to the log file before the reader returns: it is in the kernel's page cache, so a
///   SIGKILL of the process right after it hands the secret out loses nothing. The `fdatasync` that
///   puts it on disk follows within the bound (one for every entry written meanwhile), and at once
///   at ``flush()`` and before any checkpoint. A crash of the *machine* (power loss, kernel panic)
///   within the bound can lose the entries of its last bound: docs/SECURITY.md states the gap.
/// - **Every read (`syncBound` 0).** Each reader returns only once the `fdatasync` covering its
///   own entry is done: no secret leaves before its entry is on disk, at the cost of a disk flush
///   on every read's path (readers at the same time share it).
///
/// How it batches: the first reader to find no append under way writes every entry waiting at that
/// moment; readers arriving meanwhile wait, and the first of them writes all of theirs next. Nothing
/// waits for company: a lone reader appends at once.
///
/// The keychain's checkpoint (what detects the newest entries being cut off; see ``AccessLogVault``)
/// is not rewritten per append: it follows the newest entry within ``checkpointDelay`` (and at once
/// when an append starts a new file, and at ``flush()``). Until then, entries after the checkpoint
/// are chained (and synced within ``syncBound``), but cutting them off the end of the file would not be detected; the next
/// append by any process (keychainctl writes the checkpoint with each of its appends), or the delay
/// running out, closes that gap. A checkpoint that could not be written is retried by the next
/// append, synchronously, whose reader then gets the error.
package final class AccessLogGroupCommit: AccessEventRecorder, @unchecked Sendable {
    /// The longest the keychain's checkpoint stays behind the newest entry (the window in which the
    /// newest entries could be cut off undetected) while the process runs.
    package static let defaultCheckpointDelay: TimeInterval = 1

    /// The longest an entry written to the log file waits for its `fdatasync`, by default.
    package static let defaultSyncBound: TimeInterval = 0.010

    /// The log appended to.
    package let log: AccessLog
    /// How long the checkpoint may stay behind (0: updated with every append, as ``AccessLog`` does;
    /// never less than ``syncBound``, as a checkpoint syncs the entries it vouches for first).
    package let checkpointDelay: TimeInterval
    /// How long an entry written to the file may wait for its `fdatasync` (0: synced before its
    /// reader returns).
    package let syncBound: TimeInterval

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
    /// Whether a bounded sync is scheduled.
    private var syncScheduled = false
    /// Whether the last bounded sync failed: the next append then syncs before its reader returns,
    /// and that reader gets the error.
    private var syncFailed = false

    /// Group commit over `log`; each entry is synced within `syncBound` seconds of its write (0:
    /// before its reader returns), the checkpoint follows within `checkpointDelay` seconds.
    package init(log: AccessLog, checkpointDelay: TimeInterval = defaultCheckpointDelay,
                 syncBound: TimeInterval = defaultSyncBound) {
        self.log = log
        self.syncBound = max(syncBound, 0)
        self.checkpointDelay = checkpointDelay <= 0 ? 0 : max(checkpointDelay, self.syncBound)
    }

    /// Whether entries are written to the log file but not yet synced (at most ``syncBound`` long).
    /// Waits for an append or sync under way to finish (the writer's state is theirs meanwhile).
    package var hasUnsyncedEntries: Bool {
        condition.lock()
        defer { condition.unlock() }
        while isWriting { condition.wait() }
        return writer?.hasUnsyncedEntries == true
    }

    /// Whether the keychain's checkpoint is behind the newest entry this process appended (at most
    /// ``checkpointDelay`` long). Waits for an append or sync under way to finish.
    package var checkpointIsBehind: Bool {
        condition.lock()
        defer { condition.unlock() }
        while isWriting { condition.wait() }
        return writer?.checkpointIsBehind == true
    }

    /// Records `event` (in an append shared with the readers recording at the same time; on disk now
    /// or within ``syncBound``), or throws ``AccessLogError``; the caller must not hand out the secret then.
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

    /// Syncs every entry written and makes the checkpoint vouch for the newest one now (the
    /// provider stopping, a keychain locked).
    package func flush() throws(AccessLogError) {
        condition.lock()
        defer { condition.unlock() }
        let outcome = writeCheckpointExclusively()
        condition.broadcast()
        try outcome.get()
    }

    /// Waits for any append to finish, then syncs the written entries and writes the checkpoint
    /// with the lock released; called
    /// and returns with the lock held. The caller broadcasts once it has recorded the outcome.
    private func writeCheckpointExclusively() -> Result<Void, AccessLogError> {
        while isWriting { condition.wait() }
        isWriting = true
        var writer = self.writer
        condition.unlock()
        let outcome = Result { () throws(AccessLogError) in
            try log.syncWrittenEntries(writer: writer)
            try log.writeCheckpoint(writer: &writer)
        }
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
        // A failed bounded sync is retried here, before this batch's readers go on.
        let syncing = syncBound == 0 || syncFailed
        condition.unlock()
        let outcome = Result { () throws(AccessLogError) in
            if syncing { try log.syncWrittenEntries(writer: writer) }
            try log.append(batch.map { .access($0.event) }, writer: &writer, checkpointing: checkpointing, syncing: syncing)
        }
        condition.lock()
        self.writer = writer
        if case .success = outcome {
            if checkpointing { checkpointFailed = false }
            if syncing { syncFailed = false }
        }
        for ticket in Set(batch.map(\.ticket)) { outcomes[ticket] = outcome }
        isWriting = false
        scheduleSyncIfPending()
        scheduleCheckpointIfBehind()
        condition.broadcast()
    }

    /// Schedules the bounded sync when entries are written but not synced and none is scheduled; lock held.
    private func scheduleSyncIfPending() {
        guard !syncScheduled, writer?.hasUnsyncedEntries == true else { return }
        syncScheduled = true
        DispatchQueue.global(qos: .userInitiated).asyncAfter(deadline: .now() + syncBound) { [self] in
            condition.lock()
            defer { condition.unlock() }
            syncScheduled = false
            if case .failure = syncExclusively() { syncFailed = true }
            condition.broadcast()
        }
    }

    /// Waits for any append to finish, then syncs the written entries with the lock released;
    /// called and returns with the lock held.
    private func syncExclusively() -> Result<Void, AccessLogError> {
        while isWriting { condition.wait() }
        isWriting = true
        let writer = self.writer
        condition.unlock()
        let outcome = Result { () throws(AccessLogError) in try log.syncWrittenEntries(writer: writer) }
        condition.lock()
        isWriting = false
        return outcome
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
