import CSQLite
import Foundation

/// Direct access to a keychain file's SQLite tables, for tamper and at-rest tests.
func withRawDatabase<T>(_ path: String, _ body: (OpaquePointer) throws -> T) throws -> T {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
        throw CocoaError(.fileReadCorruptFile)
    }
    defer { sqlite3_close_v2(handle) }
    return try body(handle)
}

func rawExecute(_ db: OpaquePointer, _ sql: String) {
    sqlite3_exec(db, sql, nil, nil, nil)
}

func rawPayloads(_ path: String) throws -> [Data] {
    try withRawDatabase(path) { db in
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT payload FROM items ORDER BY id", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var rows: [Data] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let count = Int(sqlite3_column_bytes(statement, 0))
            rows.append(count == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, 0), count: count))
        }
        return rows
    }
}

/// Flips one byte of a blob column in the row with the given id.
func flipByte(_ path: String, table: String, column: String, rowID: Int64, at offset: Int) throws {
    try withRawDatabase(path) { db in
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT \(column) FROM \(table) WHERE rowid = ?", -1, &statement, nil)
        sqlite3_bind_int64(statement, 1, rowID)
        guard sqlite3_step(statement) == SQLITE_ROW else { sqlite3_finalize(statement); throw CocoaError(.fileNoSuchFile) }
        var bytes = [UInt8](Data(bytes: sqlite3_column_blob(statement, 0), count: Int(sqlite3_column_bytes(statement, 0))))
        sqlite3_finalize(statement)
        bytes[offset % bytes.count] ^= 0x01
        var update: OpaquePointer?
        sqlite3_prepare_v2(db, "UPDATE \(table) SET \(column) = ? WHERE rowid = ?", -1, &update, nil)
        _ = bytes.withUnsafeBytes { sqlite3_bind_blob(update, 1, $0.baseAddress, Int32($0.count), unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)) }
        sqlite3_bind_int64(update, 2, rowID)
        sqlite3_step(update)
        sqlite3_finalize(update)
    }
}
