import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore

/// Issue 12, item 9: deletes match on decrypted attributes, and tombstones are told from edited rows.
@Suite("Deletes and tombstones")
struct TombstoneAndDeleteTests {
    private func synchronizable(account: String, secret: String) -> NewItem {
        var item = genericPassword(account: account, secret: secret)
        item.attributes["sync"] = .number(1)
        return item
    }

    /// The synchronizable item with `account` (a default query matches non-synchronizable ones only).
    private func syncQuery(_ account: String) -> ItemQuery {
        var syncQuery = query(account: account)
        syncQuery.synchronizable = true
        return syncQuery
    }

    private func syncSecret(_ database: KeychainDatabase, _ account: String) throws -> String? {
        try database.find(syncQuery(account), decrypt: true).first?.data.map { String(decoding: $0, as: UTF8.self) }
    }

    private func rows(_ database: KeychainDatabase) throws -> [ItemRow] {
        try database.wholeRows("SELECT \(ItemRow.Columns.whole.sql) FROM items ORDER BY id", [])
    }

    private func everyItem(_ database: KeychainDatabase) throws -> [KeychainItem] {
        try database.find(ItemQuery(itemClass: .genericPassword, accessGroups: .all), decrypt: true)
    }

    @Test("an index column copied from another item does not make a delete reach it")
    func deleteChecksDecryptedAttributes() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(genericPassword(account: "x", secret: "1"))
        _ = try database.insert(genericPassword(account: "y", secret: "2"))
        try withRawDatabase(keychain.path) { db in
            rawExecute(db, "UPDATE items SET ix_acct = (SELECT ix_acct FROM items WHERE id = 1) WHERE id = 2")
        }
        #expect(try database.delete(query(account: "x")) == 1)
        let left = try everyItem(database)
        #expect(left.count == 1)
        #expect(left.first?.attributes["acct"] == .string("y"))
        #expect(left.first?.data == Data("2".utf8))
    }

    @Test("a row that no longer decrypts can still be deleted; a locked class deletes nothing")
    func damagedAndLocked() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "pw")
        _ = try database.insert(genericPassword(account: "x", secret: "1"))
        _ = try database.insert(genericPassword(account: "y", secret: "2"))
        try flipByte(keychain.path, table: "items", column: "payload", rowID: 1, at: 20)
        #expect(try database.delete(query(account: "x")) == 1)
        #expect(try rows(database).count == 1)

        database.lockKeychain()
        #expect(storeError { try database.delete(query(account: "y")) } == .locked)
        try database.unlock(password: Data("pw".utf8))
        #expect(try readSecret(database, account: "y") == "2")
    }

    @Test("a synchronizable item leaves a marked tombstone, which a new item with its identity replaces")
    func tombstoneMarker() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(synchronizable(account: "s", secret: "first"))
        #expect(try database.delete(syncQuery("s")) == 1)
        let tombstone = try #require(try rows(database).first)
        #expect(tombstone.isTombstone && tombstone.wrappedKey.isEmpty && tombstone.payload.count == 40)
        #expect(ItemRecord.isGenuineTombstone(tombstone, key: database.indexKey))
        let deletedAt = try #require(ItemRecord.deletionTime(of: tombstone, key: database.indexKey))
        #expect(abs(deletedAt.timeIntervalSinceNow) < 3600, "the deletion time is recorded")
        _ = try database.insert(synchronizable(account: "s", secret: "second"))
        #expect(try rows(database).count == 1)
        #expect(try syncSecret(database, "s") == "second")
    }

    @Test("a live row flagged as a tombstone by an edit is neither replaced by a new item nor lost")
    func flippedLiveRow() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(synchronizable(account: "s", secret: "original"))
        try withRawDatabase(keychain.path) { rawExecute($0, "UPDATE items SET tombstone = 1 WHERE id = 1") }
        let error = storeError { _ = try database.insert(synchronizable(account: "s", secret: "replacement")) }
        guard case .undecodable(let reason)? = error?.reason else {
            Issue.record("the flagged live row was replaced: \(String(describing: error))")
            return
        }
        #expect(reason.contains("marked deleted"))
        try withRawDatabase(keychain.path) { rawExecute($0, "UPDATE items SET tombstone = 0 WHERE id = 1") }
        #expect(try syncSecret(database, "s") == "original")
    }
}
