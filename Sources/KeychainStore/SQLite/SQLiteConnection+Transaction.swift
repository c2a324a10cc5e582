import KeychainVocabulary

/// How a transaction takes SQLite's locks.
package enum SQLiteTransactionKind: String, Sendable {
    /// `BEGIN`: a read snapshot; the write lock is taken at the first write, if any.
    case deferred = "BEGIN"
    /// `BEGIN IMMEDIATE`: the write lock at once, so nothing the body reads changes before it commits.
    case immediate = "BEGIN IMMEDIATE"
}

/// How a transaction's body asks it to end.
package enum SQLiteTransactionEnd: Sendable {
    /// Keep what the body wrote.
    case commit
    /// Undo what the body wrote, without an error (a body that found nothing to do, or was asked
    /// to back out).
    case rollback
}

extension SQLiteConnection {
    /// Runs `body` in one transaction of `kind`: committed when it returns `.commit`, rolled back
    /// when it returns `.rollback` or throws. The keychain's only way to open a transaction, so
    /// each rule below holds everywhere:
    ///
    /// - Transactions do not nest: called while one is open, this fails with SQLite's error at
    ///   `BEGIN` rather than joining or ending it (`KeychainDatabase` nests by itself).
    /// - When the body throws, its error is the one reported. The rollback that follows is
    ///   attempted; if it fails (an I/O error at the worst moment), the transaction stays open
    ///   and is never continued: the owner rolls it back with ``rollBackAbandonedTransaction()``
    ///   before its next call (`KeychainDatabase` does so under its lock), and closing the
    ///   connection rolls it back too.
    /// - SQLite rolls some failures back by itself (full disk, some I/O errors): no second
    ///   `ROLLBACK` is sent then.
    ///
    /// `BEGIN`, `COMMIT` and `ROLLBACK` run as cached prepared statements (`run`): through
    /// `sqlite3_exec` each was parsed again at every write.
    package func inTransaction<T>(
        _ kind: SQLiteTransactionKind,
        _ body: () throws(KeychainStoreError) -> (T, SQLiteTransactionEnd)
    ) throws(KeychainStoreError) -> T {
        do { try run(kind.rawValue) } catch { throw KeychainStoreError(error) }
        let result: T
        let end: SQLiteTransactionEnd
        do throws(KeychainStoreError) {
            (result, end) = try body()
        } catch {
            rollBackAfterFailure()
            throw error
        }
        switch end {
        case .commit:
            do {
                try run("COMMIT")
            } catch {
                rollBackAfterFailure()
                throw KeychainStoreError(error)
            }
        case .rollback:
            if isInTransaction {
                do { try run("ROLLBACK") } catch { throw KeychainStoreError(error) }
            }
        }
        return result
    }

    /// Rolls back a transaction a failed `ROLLBACK` left open; nothing when none is open.
    package func rollBackAbandonedTransaction() throws(KeychainStoreError) {
        guard isInTransaction else { return }
        do { try run("ROLLBACK") } catch { throw KeychainStoreError(error) }
    }

    /// The rollback after a body's or a commit's failure, whose error is the one the caller
    /// reports. A rollback that fails here leaves the transaction open on purpose: the next
    /// call's ``rollBackAbandonedTransaction()`` (or closing the connection) rolls it back, so nothing is lost by not
    /// reporting this second error, and nothing uncommitted is ever built upon.
    private func rollBackAfterFailure() {
        guard isInTransaction else { return }
        do { try run("ROLLBACK") } catch { return }
    }
}
