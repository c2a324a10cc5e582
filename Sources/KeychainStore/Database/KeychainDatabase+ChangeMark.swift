import KeychainVocabulary
import Synchronization

/// What a cache of a keychain's items in memory (the Secret Service provider's search index)
/// compares to know whether anything was committed to the file since it was last in step.
///
/// Three parts, each of which moves on a commit the others do not see:
/// - `otherConnections`: SQLite's `PRAGMA data_version`, which changes when any other connection
///   (another process: `keychainctl`, an app, the keychain service) commits to the file, and
///   never for this connection's own commits (<https://www.sqlite.org/pragma.html#pragma_data_version>);
/// - `ownChanges`: SQLite's `total_changes()`, the rows this connection's own statements changed
///   (every write through this process's handle on the file);
/// - `connection`: which connection of this process the two counters belong to (a handle opened
///   again, after its file was replaced, starts both counters afresh).
///
/// So a process that knows which of its own writes it made (and what they changed) can tell them
/// apart from everyone else's: a mark whose `connection` and `otherConnections` did not move
/// between two points means nobody else committed in between.
package struct KeychainChangeMark: Equatable, Sendable {
    /// The connection the counters belong to: unique for the life of the process.
    package let connection: UInt64
    /// `PRAGMA data_version`: moves with other connections' commits only.
    package let otherConnections: Int64
    /// `total_changes()`: rows changed by this connection's own statements.
    package let ownChanges: Int64
}

extension KeychainDatabase {
    /// The file's change mark as this handle's connection sees it now (``KeychainChangeMark``).
    /// Reads two counters in one statement (a read transaction of its own); changes nothing, and
    /// does not count as activity for the auto-lock.
    package func changeMark() throws(KeychainStoreError) -> KeychainChangeMark {
        lock.lock()
        defer { lock.unlock() }
        let counters: [(Int64, Int64)]
        do {
            counters = try connection.query("SELECT (SELECT data_version FROM pragma_data_version), total_changes()") {
                ($0.int64(0), $0.int64(1))
            }
        } catch let error as SQLiteError {
            throw KeychainStoreError(error)
        } catch {
            throw .internalFailure("change mark read")
        }
        guard let (others, own) = counters.first else { throw .internalFailure("change mark read") }
        return KeychainChangeMark(connection: ConnectionNumbers.shared.number(of: connection), otherConnections: others, ownChanges: own)
    }
}

/// A number for each connection, unique for the life of the process: an `ObjectIdentifier` alone
/// could be reused by a connection opened after another was freed, and then two marks of
/// different connections could compare equal.
private final class ConnectionNumbers: Sendable {
    static let shared = ConnectionNumbers()

    // Unchecked: the weak reference is only compared and tested for nil, under the mutex.
    private struct Entry: @unchecked Sendable {
        weak var connection: SQLiteConnection?
        let number: UInt64
    }

    private let state = Mutex<(entries: [ObjectIdentifier: Entry], next: UInt64)>(([:], 1))

    func number(of connection: SQLiteConnection) -> UInt64 {
        state.withLock { state in
            let key = ObjectIdentifier(connection)
            if let entry = state.entries[key], entry.connection === connection { return entry.number }
            let number = state.next
            state.next += 1
            // Entries of freed connections are dropped as new ones come (few connections per process).
            state.entries = state.entries.filter { $0.value.connection != nil }
            state.entries[key] = Entry(connection: connection, number: number)
            return number
        }
    }
}
