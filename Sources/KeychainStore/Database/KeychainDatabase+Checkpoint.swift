import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// How big the write-ahead log may grow, and how it is emptied.
///
/// Processes that exit without closing their keychain (most programs: the registry keeps it open
/// for the process's life) never let SQLite checkpoint and delete the WAL on close, so it grew to
/// the auto-checkpoint size (≈ 4 MiB) and stayed there, and every new process first rebuilt its
/// index by reading all of it ("WAL recovery"). Now:
///
/// - an automatic checkpoint runs once the WAL holds `autoCheckpointPages` pages (≈ 1 MiB, about
///   forty item writes), and `PRAGMA journal_size_limit` truncates a WAL that a large
///   transaction grew beyond `sizeLimitBytes` back to that size when it is next reset; the limit
///   is above the auto-checkpoint size on purpose, so an ordinary reset keeps the file's blocks
///   and later commits overwrite them instead of growing the file (which would make each commit's
///   `fdatasync` also write the file's new size);
/// - ``KeychainDatabase/checkpointAndTruncateLog(waitingAtMost:)`` copies the WAL into the
///   keychain file and truncates the WAL to zero bytes; `KeychainRegistry` runs it for every open
///   keychain when the process exits normally, so a keychain at rest is its file, an empty
///   `-wal` and the 32 KiB `-shm` index.
///
/// Checkpoints change no durability: every commit is still synced before it is acknowledged
/// (`synchronous = FULL`); a checkpoint writes the committed pages into the file and syncs it.
enum WriteAheadLog {
    /// Pages after which a commit triggers an automatic checkpoint (SQLite's default: 1,000).
    static let autoCheckpointPages = 256
    /// The size a reset WAL is truncated back to, in bytes.
    static let sizeLimitBytes = 2 * 1024 * 1024

    /// The pragmas that set both, run once per connection.
    static let pragmas = "PRAGMA wal_autocheckpoint = \(autoCheckpointPages); PRAGMA journal_size_limit = \(sizeLimitBytes)"
}

extension KeychainDatabase {
    /// How long a call waits for another connection's lock before reporting the keychain busy.
    static let busyTimeoutMilliseconds: Int32 = 30_000

    /// Copies every committed change from the write-ahead log into the keychain file, syncs it,
    /// and truncates the log to zero bytes (`PRAGMA wal_checkpoint(TRUNCATE)`), so the next
    /// process that opens the keychain has no log to recover. Waits at most `milliseconds` for
    /// other connections' readers and writers. Returns whether the log was emptied: false when
    /// another thread of this process is using the keychain, or another connection kept the
    /// checkpoint from finishing in time (the log then stays as it was, and a later checkpoint
    /// completes it). In-memory keychains have no log.
    @discardableResult
    package func checkpointAndTruncateLog(waitingAtMost milliseconds: Int32) throws(KeychainStoreError) -> Bool {
        guard path != ":memory:" else { return true }
        guard lock.tryLock() else { return false }
        defer { lock.unlock() }
        guard !connection.isInTransaction else { return false }  // an abandoned transaction: the next call discards it
        connection.setBusyTimeout(milliseconds: milliseconds)
        defer { connection.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds) }
        do {
            // One row: (busy, frames in the log, frames checkpointed); busy = 1 if it could not finish.
            let busy = try connection.query("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int64(0) }.first ?? 1
            return busy == 0
        } catch let error as SQLiteError {
            throw KeychainStoreError(error)
        } catch {
            throw .internalFailure("checkpoint")
        }
    }
}
