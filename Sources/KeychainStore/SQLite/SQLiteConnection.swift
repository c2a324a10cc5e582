import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The failure of one SQLite call, with SQLite's extended result code kept for mapping to an
/// OSStatus. The message is SQLite's own text about the statement, never bound values.
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's extended result code (`sqlite3_extended_errcode`).
    package let extendedCode: Int32
    /// SQLite's description of the failure.
    package let message: String
    /// The `errno` of the system call behind an I/O or open failure (`sqlite3_system_errno`), else 0.
    package var systemErrno: Int32 = 0

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    package var primaryCode: Int32 { extendedCode & 0xFF }

    package var description: String { "SQLite error \(extendedCode): \(message)" }
}


/// One SQLite connection. Not thread-safe: its owner serialises access.
package final class SQLiteConnection {
    private var handle: OpaquePointer?
    /// Statements of `run` and `query` kept prepared for reuse, by SQL text: parsing and planning
    /// a statement cost more than running it (15 % of a `SecItemCopyMatching`). A cached
    /// statement is reset and its bindings cleared after every use, so it holds no bound value and
    /// no read snapshot between calls.
    private var statementCache: [String: SQLiteStatement] = [:]
    /// The cache stays small: the keychain runs a few dozen distinct statements.
    private static let statementCacheLimit = 64
    /// Statements kept under a key their caller computes (`query(cacheKey:…)`), for statements
    /// whose text is long and chosen per call: hashing a number instead of a 250-character
    /// `SELECT` at every lookup.
    private var keyedStatements: [Int: SQLiteStatement] = [:]

    /// Opens (creating if asked) the database at `path`; `":memory:"` opens a private in-memory one.
    package init(path: String, create: Bool) throws(SQLiteError) {
        #if KEYCHAINKIT_FAULT_INJECTION
        IOSeam.installSQLiteSystemCalls()  // once, before this process's first connection
        #endif
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        if create { flags |= SQLITE_OPEN_CREATE }
        var db: OpaquePointer?
        let rc = IOSeam.open(path, &db, flags)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            let code = db.map { sqlite3_extended_errcode($0) } ?? rc
            let systemErrno = db.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(db)
            throw SQLiteError(extendedCode: code, message: message, systemErrno: systemErrno)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        statementCache.removeAll()  // finalised before the connection closes
        keyedStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Waits up to `milliseconds` for another connection's lock before reporting `SQLITE_BUSY`.
    package func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs SQL that binds nothing and returns no rows (schema, pragmas, transaction control).
    package func execute(_ sql: String) throws(SQLiteError) {
        let rc = IOSeam.exec(handle, sql)
        if rc != SQLITE_OK { throw lastError(rc) }
    }

    /// Prepares one statement.
    package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = IOSeam.prepare(handle, sql, &statement)
        guard rc == SQLITE_OK, let statement else { throw lastError(rc) }
        return SQLiteStatement(statement: statement, connection: self)
    }

    /// Runs one statement with its arguments, discarding rows.
    package func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) {
        let statement = try reusableStatement(sql)
        defer { recycle(statement, sql) }
        do {
            try statement.withBindings(arguments) {
                while try statement.step() {}
            }
        } catch let error as SQLiteError {
            throw error
        } catch {
            throw SQLiteError(extendedCode: SQLITE_ERROR, message: "statement failed")  // not reached: only SQLite errors are thrown
        }
    }

    /// Runs a query and maps each row.
    package func query<T>(
        _ sql: String, _ arguments: [SQLiteValue] = [], row transform: (SQLiteStatement) throws -> T
    ) throws -> [T] {
        let statement = try reusableStatement(sql)
        defer { recycle(statement, sql) }
        return try statement.withBindings(arguments) {
            var rows: [T] = []
            while try statement.step() { rows.append(try transform(statement)) }
            return rows
        }
    }

    /// Runs a query and calls `body` at each row, with the statement cached under `cacheKey`,
    /// which names one SQL text for the connection's life (`sql` is called only when no statement
    /// is cached under it yet), or, without a key, cached by its text. No array of rows is built.
    package func forEachRow(
        cacheKey: Int?, sql: () -> String, _ arguments: [SQLiteValue], _ body: (SQLiteStatement) throws -> Void
    ) throws {
        guard let cacheKey else {
            let text = sql()
            let statement = try reusableStatement(text)
            defer { recycle(statement, text) }
            try statement.withBindings(arguments) {
                while try statement.step() { try body(statement) }
            }
            return
        }
        let statement: SQLiteStatement
        let cached = keyedStatements[cacheKey]
        if let cached, !cached.isInUse {
            statement = cached
        } else {
            statement = try prepare(sql())
        }
        statement.isInUse = true
        defer {
            statement.isInUse = false
            if cached == nil, keyedStatements.count < Self.statementCacheLimit { keyedStatements[cacheKey] = statement }
        }
        try statement.withBindings(arguments) {
            while try statement.step() { try body(statement) }
        }
    }

    /// The cached statement for `sql`, marked in use (a nested use of the same SQL prepares its
    /// own), or a newly prepared one. The cached statement stays in the cache while in use: one
    /// hash of the SQL text per call instead of two, which for a lookup's long `SELECT` was
    /// about 1,200 instructions.
    private func reusableStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statementCache[sql], !cached.isInUse {
            cached.isInUse = true
            return cached
        }
        return try prepare(sql)
    }

    /// Keeps a statement for the next use (`withBindings` has reset it, whatever the outcome).
    private func recycle(_ statement: SQLiteStatement, _ sql: String) {
        if statement.isInUse {
            statement.isInUse = false  // it came from the cache and is still there
        } else if statementCache.count < Self.statementCacheLimit, statementCache[sql] == nil {
            statementCache[sql] = statement
        }
    }

    /// Number of rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last successful INSERT.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether the main database was opened read-only (SQLite falls back to read-only when a
    /// read-write open fails).
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// The main database's change counter as of this connection's latest read or write transaction
    /// (`SQLITE_FCNTL_DATA_VERSION`): it moves when a transaction starts on a file another
    /// connection changed, and at each commit of this one. Reading it runs no statement and opens
    /// no transaction, unlike `PRAGMA data_version`; nil if SQLite cannot tell.
    package var fileDataVersion: UInt32? {
        var version: UInt32 = 0
        let rc = sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        return rc == SQLITE_OK ? version : nil
    }

    /// Whether a transaction is open on this connection.
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The error for a call that returned `rc`. The connection's extended code and message are
    /// used only when they describe `rc` (an older error's text must not be reported instead).
    fileprivate func lastError(_ rc: Int32) -> SQLiteError {
        if let handle, sqlite3_extended_errcode(handle) & 0xFF == rc & 0xFF {
            let primary = rc & 0xFF
            return SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)),
                               systemErrno: primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN ? sqlite3_system_errno(handle) : 0)
        }
        return SQLiteError(extendedCode: rc, message: String(cString: sqlite3_errstr(rc)))
    }
}

/// A value bound to, or read from, a SQLite statement.
package enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob(Data)
}

/// A prepared statement; finalised when released.
package final class SQLiteStatement {
    private let statement: OpaquePointer
    /// Unowned: the connection caches its statements, and a statement never outlives the call
    /// that uses it.
    private unowned let connection: SQLiteConnection
    /// Whether a call is using this statement now (it is in its connection's cache).
    fileprivate var isInUse = false

    fileprivate init(statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(statement) }

    /// Back to the start, with every binding cleared.
    /// `sqlite3_reset` repeats the error of a failed step, which was already reported.
    fileprivate func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    /// Binds positional arguments (1-based in SQL, 0-based here) and runs `body` with them bound.
    ///
    /// The values are bound in place (`SQLITE_STATIC`), not copied by SQLite: each bound value
    /// is borrowed for the time of `body`, which does all the stepping (SQLite reads bound values
    /// only while a statement steps); afterwards, whatever happened, the statement is reset and
    /// its bindings cleared. SQLite's copies were one allocation per argument, four per lookup
    ///. Text is bound with its byte length.
    ///
    /// Small arguments (a lookup's class name and blind indexes: `scratchLimit` bytes in all) are
    /// copied into one buffer on the stack and bound from there, in one loop: borrowing each
    /// `Data` in turn went through Foundation's unspecialised generic `withUnsafeBytes`, about
    /// 1,300 instructions per blob. Larger ones are borrowed where they are.
    package func withBindings<R>(_ arguments: [SQLiteValue], _ body: () throws -> R) throws -> R {
        defer { reset() }
        var scratchSize = 0
        for argument in arguments {
            switch argument {
            case .text(let text): scratchSize += text.utf8.count
            case .blob(let data): scratchSize += data.count
            case .null, .integer: break
            }
        }
        guard scratchSize <= Self.scratchLimit else { return try bind(arguments, from: 0, body) }
        return try withUnsafeTemporaryAllocation(byteCount: Self.scratchLimit, alignment: 8) { scratch in
            // Never nil: the allocation is `scratchLimit` bytes; a zero-length value is bound with
            // a non-nil pointer, so that it stays an empty blob or text, not NULL.
            let base = scratch.baseAddress.unsafelyUnwrapped
            var offset = 0
            // Bound values may include key material at rest (the file key row): no copy outlives the call.
            defer { base.initializeMemory(as: UInt8.self, repeating: 0, count: offset) }
            for (position, argument) in arguments.enumerated() {
                let index = Int32(position + 1)
                let statement = self.statement
                let start = base.advanced(by: offset)
                let rc: Int32
                switch argument {
                case .null:
                    rc = IOSeam.bind { sqlite3_bind_null(statement, index) }
                case .integer(let number):
                    rc = IOSeam.bind { sqlite3_bind_int64(statement, index, number) }
                case .text(let text):
                    var count = 0
                    for unit in text.utf8 {
                        start.storeBytes(of: unit, toByteOffset: count, as: UInt8.self)
                        count += 1
                    }
                    offset += count
                    rc = IOSeam.bind {
                        sqlite3_bind_text(statement, index, start.assumingMemoryBound(to: CChar.self), Int32(count), nil)
                    }
                case .blob(let data):
                    let count = data.count
                    if count > 0 { data.copyBytes(to: start.assumingMemoryBound(to: UInt8.self), count: count) }
                    offset += count
                    rc = IOSeam.bind { sqlite3_bind_blob(statement, index, UnsafeRawPointer(start), Int32(count), nil) }  // nil: SQLITE_STATIC
                }
                if rc != SQLITE_OK { throw connection.lastError(rc) }
            }
            return try body()
        }
    }

    /// Bytes of small arguments bound from a stack buffer (see `withBindings`).
    private static let scratchLimit = 256

    private func bind<R>(_ arguments: [SQLiteValue], from offset: Int, _ body: () throws -> R) throws -> R {
        guard offset < arguments.count else { return try body() }
        let index = Int32(offset + 1)
        let statement = self.statement
        func check(_ rc: Int32) throws(SQLiteError) {
            if rc != SQLITE_OK { throw connection.lastError(rc) }
        }
        switch arguments[offset] {
        case .null:
            try check(IOSeam.bind { sqlite3_bind_null(statement, index) })
            return try bind(arguments, from: offset + 1, body)
        case .integer(let number):
            try check(IOSeam.bind { sqlite3_bind_int64(statement, index, number) })
            return try bind(arguments, from: offset + 1, body)
        case .text(var text):
            return try text.withUTF8 { bytes in
                // A non-nil pointer even for "" (nil would bind NULL).
                let base = UnsafeRawPointer(bytes.baseAddress) ?? UnsafeRawPointer(bitPattern: 1).unsafelyUnwrapped
                try check(IOSeam.bind {
                    sqlite3_bind_text(statement, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
                })
                return try bind(arguments, from: offset + 1, body)
            }
        case .blob(let data):
            return try data.withUnsafeBytes { bytes in
                // A zero-length blob must still be a blob, not NULL: SQLite takes a non-nil pointer.
                let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1).unsafelyUnwrapped
                try check(IOSeam.bind { sqlite3_bind_blob(statement, index, base, Int32(bytes.count), nil) })  // nil: SQLITE_STATIC
                return try bind(arguments, from: offset + 1, body)
            }
        }
    }

    /// Advances to the next row; false when the statement is done.
    package func step() throws(SQLiteError) -> Bool {
        let rc = IOSeam.step(statement)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.lastError(rc)
        }
    }

    /// The integer in column `index` of the current row.
    package func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }

    /// The text in column `index`, or nil for NULL.
    package func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, index) else { return nil }
        return String(cString: pointer)
    }

    /// Calls `body` with the UTF-8 bytes of the text in column `index` as SQLite holds them, or
    /// nil for NULL, without making a `String` of them; the pointer is valid only during the call.
    package func withText<R>(_ index: Int32, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        guard let pointer = sqlite3_column_text(statement, index) else { return try body(nil) }
        return try body(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, index))))
    }

    /// The bytes in column `index`; empty for NULL or a zero-length blob.
    package func blob(_ index: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let pointer = sqlite3_column_blob(statement, index) else { return Data() }
        return Data(bytes: pointer, count: count)
    }

    /// Calls `body` with the bytes in column `index` as SQLite holds them (empty for NULL), without
    /// copying them into a `Data`; the pointer is valid only during the call.
    package func withBlob<R>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let pointer = sqlite3_column_blob(statement, index) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Whether column `index` is NULL.
    package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }
}
