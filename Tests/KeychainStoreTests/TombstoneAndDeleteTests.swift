import Foundation
import KeychainTestSupport
import KeychainVocabulary
import Testing
@testable import KeychainStore

/// Deletes match on decrypted attributes, and tombstones are told from edited rows.
@Suite("Deletes and tombstones")
struct TombstoneAndDeleteTests {
    /// The secret of the synchronizable item with `account`, as text.
    private func syncSecret(_ database: KeychainDatabase, _ account: String) throws -> String? {
        try database.find(synchronizableQuery(account), decrypt: true).first?.data.map { String(decoding: $0, as: UTF8.self) }
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
        #expect(try allRows(database).count == 1)

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
        _ = try database.insert(synchronizablePassword(account: "s", secret: "first"))
        #expect(try database.delete(synchronizableQuery("s")) == 1)
        let tombstone = try #require(try allRows(database).first)
        #expect(tombstone.isTombstone && tombstone.wrappedKey.isEmpty && tombstone.payload.count == 40)
        #expect(ItemRecord.isGenuineTombstone(tombstone, key: database.indexKey))
        let deletedAt = try #require(ItemRecord.deletionTime(of: tombstone, key: database.indexKey))
        #expect(abs(deletedAt.timeIntervalSinceNow) < 3600, "the deletion time is recorded")
        _ = try database.insert(synchronizablePassword(account: "s", secret: "second"))
        #expect(try allRows(database).count == 1)
        #expect(try syncSecret(database, "s") == "second")
    }

    @Test("a live row flagged as a tombstone by an edit is neither replaced by a new item nor lost")
    func flippedLiveRow() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(synchronizablePassword(account: "s", secret: "original"))
        try withRawDatabase(keychain.path) { rawExecute($0, "UPDATE items SET tombstone = 1 WHERE id = 1") }
        let error = storeError { _ = try database.insert(synchronizablePassword(account: "s", secret: "replacement")) }
        guard case .undecodable(let reason)? = error?.reason else {
            Issue.record("the flagged live row was replaced: \(String(describing: error))")
            return
        }
        #expect(reason.contains("marked deleted"))
        try withRawDatabase(keychain.path) { rawExecute($0, "UPDATE items SET tombstone = 0 WHERE id = 1") }
        #expect(try syncSecret(database, "s") == "original")
    }
}
