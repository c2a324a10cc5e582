import CSQLite
import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore
import KeychainVocabulary

/// The partial lookup indexes (fewer pages written per durable add): what an add writes, the
/// plans lookups use, and the migration of files written with the full indexes of earlier versions.
@Suite("Schema: partial lookup indexes and their migration")
struct SchemaMigrationTests {
    /// The lookup indexes exactly as versions before the partial indexes created them.
    static let fullIndexStatements = [
        "CREATE INDEX items_by_service ON items (class, ix_svce)",
        "CREATE INDEX items_by_server ON items (class, ix_srvr)",
        "CREATE INDEX items_by_account ON items (class, ix_acct)",
    ]

    /// Turns the keychain file at `path` into one with the earlier versions' full indexes.
    static func writeFullIndexes(_ path: String) throws {
        try withRawDatabase(path) { db in
            for name in ["items_by_service", "items_by_server", "items_by_account"] {
                #expect(sqlite3_exec(db, "DROP INDEX \(name)", nil, nil, nil) == SQLITE_OK)
            }
            for statement in fullIndexStatements { #expect(sqlite3_exec(db, statement, nil, nil, nil) == SQLITE_OK) }
        }
    }

    /// The `CREATE INDEX` texts stored in the file, sorted.
    static func indexSQL(_ path: String) throws -> [String] {
        try rawTexts(path, "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY sql")
    }

    static func schemaVersion(_ path: String) throws -> Int64 {
        try withRawDatabase(path) { db in
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, "PRAGMA schema_version", -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else { throw CocoaError(.fileReadCorruptFile) }
            return sqlite3_column_int64(statement, 0)
        }
    }

    static func rawTexts(_ path: String, _ sql: String) throws -> [String] {
        try withRawDatabase(path) { db in
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, sql, -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            var texts: [String] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                texts.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
            }
            return texts
        }
    }

    /// The query plan's detail lines for `sql`, on the handle's own connection.
    static func plan(_ database: KeychainDatabase, _ sql: String) throws -> String {
        try database.connection.query("EXPLAIN QUERY PLAN " + sql) { $0.text(3) ?? "" }.joined(separator: "\n")
    }

    static func internetPassword(account: String, server: String, secret: String) -> NewItem {
        NewItem(itemClass: .internetPassword,
                attributes: ["acct": .string(account), "srvr": .string(server), "agrp": .string("app"), "sync": .number(0)],
                data: Data(secret.utf8), protection: .whenUnlocked)
    }

    static func serverQuery(_ server: String) -> ItemQuery {
        var query = ItemQuery(itemClass: .internetPassword, accessGroups: .only(["app"]))
        query.filters = ["srvr": .string(server)]
        return query
    }

    /// Fills a keychain with generic and internet passwords, then closes it.
    static func fill(_ keychain: TemporaryKeychain) throws {
        let database = try keychain.open()
        for index in 0..<30 {
            _ = try database.insert(genericPassword(account: "a\(index)", secret: "s\(index)"))
            _ = try database.insert(internetPassword(account: "a\(index)", server: "host\(index).example", secret: "i\(index)"))
        }
    }

    static func expectContents(_ database: KeychainDatabase) throws {
        #expect(try database.itemCount() == 60)
        for index in 0..<30 {
            #expect(try readSecret(database, account: "a\(index)") == "s\(index)")
            let found = try database.find(serverQuery("host\(index).example"), decrypt: true)
            #expect(found.map { $0.data.map { String(decoding: $0, as: UTF8.self) } } == ["i\(index)"])
        }
        // Lookups by one attribute, which only the lookup indexes answer without a scan.
        var byService = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["app"]))
        byService.filters = ["svce": .string("svc")]
        #expect(try database.find(byService, decrypt: false).count == 30)
        var byAccount = ItemQuery(itemClass: .internetPassword, accessGroups: .only(["app"]))
        byAccount.filters = ["acct": .string("a7")]
        #expect(try database.find(byAccount, decrypt: true).count == 1)
    }

    /// Lookups by service, server and account each use their (partial) index.
    static func expectPlans(_ database: KeychainDatabase) throws {
        let genericOrder = ItemClass.genericPassword.sortedPrimaryKey
        let internetOrder = ItemClass.internetPassword.sortedPrimaryKey
        func bit(_ order: [String], _ name: String) throws -> UInt32 {
            let offset = try #require(order.firstIndex(of: name))
            return 1 << UInt32(offset)
        }
        var service = ItemSQL.SelectShape(itemClass: .genericPassword)
        service.indexedAttributes = try bit(genericOrder, "svce")
        service.accessGroupCount = 1
        #expect(try plan(database, ItemSQL.select(service)).contains("USING INDEX items_by_service"))
        var server = ItemSQL.SelectShape(itemClass: .internetPassword)
        server.indexedAttributes = try bit(internetOrder, "srvr")
        server.synchronizable = true
        #expect(try plan(database, ItemSQL.select(server)).contains("USING INDEX items_by_server"))
        var account = ItemSQL.SelectShape(itemClass: .internetPassword)
        account.indexedAttributes = try bit(internetOrder, "acct")
        #expect(try plan(database, ItemSQL.select(account)).contains("USING INDEX items_by_account"))
        var serviceAndAccount = ItemSQL.SelectShape(itemClass: .genericPassword)
        serviceAndAccount.indexedAttributes = try bit(genericOrder, "svce") | bit(genericOrder, "acct")
        serviceAndAccount.synchronizable = true
        serviceAndAccount.accessGroupCount = 1
        serviceAndAccount.limited = true
        let both = try plan(database, ItemSQL.select(serviceAndAccount))
        #expect(both.contains("USING INDEX items_by_service") || both.contains("USING INDEX items_by_account"), "\(both)")
    }

    @Test("a new keychain has the partial lookup indexes, and lookups use them")
    func newKeychain() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        try Self.fill(keychain)
        #expect(try Self.indexSQL(keychain.path) == Schema.lookupIndexStatements.sorted())
        let database = try keychain.open()
        try Self.expectPlans(database)
        try Self.expectContents(database)
    }

    @Test("an add writes one WAL page per b-tree the item is in: five for a password, three for a key")
    func pagesPerAdd() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        let pageSize = try #require(try database.connection.query("PRAGMA page_size") { $0.int64(0) }.first)
        func framesOfOneAdd(_ item: NewItem) throws -> Int64 {
            #expect(try database.checkpointAndTruncateLog(waitingAtMost: 1_000))
            _ = try database.insert(item)
            let size = try FileManager.default.attributesOfItem(atPath: keychain.path + "-wal")[.size] as? Int64 ?? 0
            let frameSize = 24 + pageSize
            #expect((size - 32) % frameSize == 0, "WAL of \(size) bytes")
            return (size - 32) / frameSize
        }
        // The rowid table, the two unique indexes, and the service and account indexes (a generic
        // password has no server): not the server index too, as before.
        #expect(try framesOfOneAdd(genericPassword(account: "g", secret: "s")) == 5)
        #expect(try framesOfOneAdd(Self.internetPassword(account: "i", server: "example.com", secret: "s")) == 5)
        let key = NewItem(itemClass: .key, attributes: ["atag": .data(Data("tag".utf8)), "kcls": .number(1), "agrp": .string("app")],
                          data: Data(repeating: 7, count: 32), protection: .whenUnlocked)
        #expect(try framesOfOneAdd(key) == 3)
    }

    @Test("a file with the earlier full indexes is migrated at open, once, keeping every item")
    func migratesFullIndexes() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        try Self.fill(keychain)
        try Self.writeFullIndexes(keychain.path)
        #expect(try Self.indexSQL(keychain.path) == Self.fullIndexStatements.sorted())
        do {
            let database = try keychain.open()
            #expect(try Self.indexSQL(keychain.path) == Schema.lookupIndexStatements.sorted())
            try Self.expectPlans(database)
            try Self.expectContents(database)
            _ = try database.insert(genericPassword(account: "after", secret: "migrated"))
            #expect(try readSecret(database, account: "after") == "migrated")
        }
        // Opening the migrated file again changes no schema.
        let version = try Self.schemaVersion(keychain.path)
        let again = try keychain.open()
        #expect(try Self.schemaVersion(keychain.path) == version)
        #expect(try readSecret(again, account: "after") == "migrated")
    }

    @Test("several handles opening a file with the full indexes at once: one migrates, every open succeeds")
    func concurrentMigration() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        try Self.fill(keychain)
        try Self.writeFullIndexes(keychain.path)
        let results = OpenResults()
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let database = try keychain.open()
                    results.record(try readSecret(database, account: "a3"))
                } catch {
                    results.record(error)
                }
            }.start()
        }
        group.wait()
        #expect(results.failures.isEmpty, "\(results.failures)")
        #expect(results.secrets == Array(repeating: "s3", count: 4))
        #expect(try Self.indexSQL(keychain.path) == Schema.lookupIndexStatements.sorted())
    }

    @Test("an index set that is neither this version's nor the earlier one is refused, not repaired")
    func otherIndexesRefused() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        try Self.fill(keychain)
        try Self.writeFullIndexes(keychain.path)
        try withRawDatabase(keychain.path) { db in
            #expect(sqlite3_exec(db, "DROP INDEX items_by_server", nil, nil, nil) == SQLITE_OK)
        }
        let error = storeError { _ = try keychain.open() }
        #expect(error?.osStatus == -26275, "\(String(describing: error))")
        #expect(try Self.indexSQL(keychain.path) == Self.fullIndexStatements.filter { !$0.contains("items_by_server") }.sorted())
    }
}

/// What the opening threads of `concurrentMigration` report.
private final class OpenResults: @unchecked Sendable {
    private let lock = NSLock()
    private var secretsSeen: [String?] = []
    private var failuresSeen: [String] = []

    var secrets: [String?] { lock.withLock { secretsSeen } }
    var failures: [String] { lock.withLock { failuresSeen } }

    func record(_ secret: String?) { lock.withLock { secretsSeen.append(secret) } }

    func record(_ error: Error) { lock.withLock { failuresSeen.append(String(describing: error)) } }
}
