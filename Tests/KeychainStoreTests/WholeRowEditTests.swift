import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore

/// Rows edited on disk, read through the whole-row reads (sync's portable read, deletes): the
/// one reading path (`readItemRows`) trusts no plain column it cannot check.
@Suite("Whole-row reads of edited rows")
struct WholeRowEditTests {
    /// Two synchronizable items in `keychain`, "edited" (row 1, changed on disk by `UPDATE items
    /// <edit> WHERE id = 1`) and "intact" (secret "2"), opened again after the edit.
    static func editedPair(in keychain: TemporaryKeychain, edit: String) throws -> KeychainDatabase {
        let database = try keychain.open()
        _ = try database.insert(synchronizablePassword(account: "edited", secret: "1"))
        _ = try database.insert(synchronizablePassword(account: "intact", secret: "2"))
        try withRawDatabase(keychain.path) { db in
            rawExecute(db, "UPDATE items \(edit) WHERE id = 1")
        }
        return try keychain.open()
    }

    @Test("a synchronizable item whose identity was cut short is not sent by sync, hides no other item, and is deleted without a tombstone")
    func shortDigest() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let reader = try Self.editedPair(in: keychain, edit: "SET pk_digest = substr(pk_digest, 1, 31)")
        let (entries, locked) = try reader.portableEntries(of: [.genericPassword])
        #expect(locked == 0)
        #expect(entries.map { $0.item?.attributes["acct"] } == [.string("intact")])
        #expect(entries.first?.localIdentity.count == 32)

        #expect(try reader.delete(synchronizableQuery("edited")) == 1)
        let left = try allRows(reader)
        #expect(left.count == 1, "the edited row is gone, and no tombstone names a broken identity")
        #expect(left.first?.isTombstone == false)
        #expect(try reader.find(synchronizableQuery("intact"), decrypt: true).first?.data == Data("2".utf8))
    }

    @Test("a portable row whose persistent id was edited fails sync's read with errSecDecode instead of being sent or skipped silently")
    func malformedPortableRow() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let reader = try Self.editedPair(in: keychain, edit: "SET persistent_id = substr(persistent_id, 1, 15)")
        let error = storeError { _ = try reader.portableEntries(of: [.genericPassword]) }
        #expect(error?.osStatus == -26275, "\(String(describing: error))")
        #expect(try reader.find(synchronizableQuery("intact"), decrypt: true).first?.data == Data("2".utf8), "lookups still read the other items")
    }

    @Test("a sync index of another length is not taken as synchronizable: deleting an undecryptable item leaves no tombstone")
    func malformedSyncIndex() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(synchronizablePassword(account: "edited", secret: "1"))
        try withRawDatabase(keychain.path) { db in
            // The payload no longer decrypts, so only the index can say "synchronizable"; a
            // 17-byte copy of the real index must not.
            rawExecute(db, "UPDATE items SET ix_sync = ix_sync || x'00', payload = x'00' || payload WHERE id = 1")
        }
        var anyItem = ItemQuery(itemClass: .genericPassword, accessGroups: .all)
        anyItem.filters["acct"] = .string("edited")
        anyItem.synchronizable = nil  // kSecAttrSynchronizableAny: the index is not a condition
        #expect(try database.delete(anyItem) == 1)
        #expect(try allRows(database).isEmpty)
    }
}
