import Foundation
import Testing
@testable import KeychainStore

/// Arguments are bound in place for the time of the steps (`SQLITE_STATIC`, no copy) and cached
/// statements are reused: values of every size must reach SQLite intact, and a reused or nested
/// statement must see its own arguments.
@Suite("SQLite: arguments bound in place, statements reused")
struct SQLiteBindingTests {
    private func connection() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: ":memory:", create: true)
        try connection.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v)")
        return connection
    }

    @Test("blobs of 0, 1, 14, 15 and 100,000 bytes and texts (empty, non-ASCII, long) are stored as given")
    func valuesIntact() throws {
        let connection = try connection()
        let values: [SQLiteValue] = [
            .blob(Data()), .blob(Data([0])), .blob(Data((0..<14).map { UInt8($0) })), .blob(Data((0..<15).map { UInt8($0 + 100) })),
            .blob(Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })), .text(""), .text("ünïcødé ✓"),
            .text(String(repeating: "long text ", count: 500)), .integer(-5), .null,
        ]
        for (key, value) in values.enumerated() {
            try connection.run("INSERT INTO t (k, v) VALUES (?, ?)", [.integer(Int64(key)), value])
        }
        let stored = try connection.query("SELECT typeof(v), v FROM t ORDER BY k") { row -> SQLiteValue in
            switch row.text(0) {
            case "blob": return .blob(row.blob(1))
            case "text": return .text(row.text(1) ?? "")
            case "integer": return .integer(row.int64(1))
            default: return .null
            }
        }
        #expect(stored == values)  // an empty blob stays a blob, not NULL
    }

    @Test("a cached statement run again, and the same SQL used inside its own row loop, see their own arguments")
    func reuseAndNesting() throws {
        let connection = try connection()
        for key in 0..<3 {
            try connection.run("INSERT INTO t (k, v) VALUES (?, ?)", [.integer(Int64(key)), .blob(Data(repeating: UInt8(key), count: 20))])
        }
        let sql = "SELECT v FROM t WHERE k = ?"
        for key in 0..<3 {
            #expect(try connection.query(sql, [.integer(Int64(key))]) { $0.blob(0) } == [Data(repeating: UInt8(key), count: 20)])
        }
        let nested = try connection.query(sql, [.integer(1)]) { row in
            (row.blob(0), try connection.query(sql, [.integer(2)]) { $0.blob(0) })
        }
        #expect(nested.count == 1)
        #expect(nested.first?.0 == Data(repeating: 1, count: 20))
        #expect(nested.first?.1 == [Data(repeating: 2, count: 20)])
        #expect(try connection.query(sql, [.integer(0)]) { $0.blob(0) } == [Data(repeating: 0, count: 20)])
    }

    @Test("a failed statement leaves nothing bound: the next run of the same SQL works with its own arguments")
    func afterFailure() throws {
        let connection = try connection()
        try connection.run("INSERT INTO t (k, v) VALUES (?, ?)", [.integer(1), .text("a")])
        #expect(throws: SQLiteError.self) { try connection.run("INSERT INTO t (k, v) VALUES (?, ?)", [.integer(1), .text("b")]) }
        try connection.run("INSERT INTO t (k, v) VALUES (?, ?)", [.integer(2), .text("c")])
        #expect(try connection.query("SELECT v FROM t ORDER BY k") { $0.text(0) } == ["a", "c"])
        #expect(!connection.isInTransaction)
    }
}
