import KeychainTestSupport
import Foundation
import Testing
@testable import KeychainStore
import KeychainVocabulary

/// `KeychainDatabase.atomically`: several calls of one handle as one write transaction (what an
/// identity's two items need). All of it commits, or none of it; no other connection sees a part.
@Suite("Store: several calls as one transaction")
struct AtomicallyTests {
    @Test("committed together when the body says so; nothing kept when it does not, or when a call in it failed")
    func allOrNothing() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(genericPassword(account: "before", secret: "b"))

        let committed = try database.atomically {
            do {
                _ = try database.insert(genericPassword(account: "one", secret: "1"))
                _ = try database.insert(genericPassword(account: "two", secret: "2"))
                try database.delete(query(account: "before"))
                return true
            } catch {
                return false
            }
        }
        #expect(committed)
        #expect(try readSecret(database, account: "one") == "1" && readSecret(database, account: "two") == "2")
        #expect(try readSecret(database, account: "before") == nil)

        // The second insert collides (a duplicate): the body gives up, and the first is undone too.
        var failure: KeychainStoreError?
        let kept = try database.atomically {
            do {
                _ = try database.insert(genericPassword(account: "three", secret: "3"))
                _ = try database.insert(genericPassword(account: "one", secret: "again"))
                return true
            } catch {
                failure = error as? KeychainStoreError
                return false
            }
        }
        #expect(!kept)
        #expect(failure?.osStatus == -25299)  // errSecDuplicateItem
        #expect(try readSecret(database, account: "three") == nil, "the first write of an abandoned transaction was kept")
        #expect(try readSecret(database, account: "one") == "1")

        // The handle works as before afterwards: a plain call is its own transaction again.
        _ = try database.insert(genericPassword(account: "after", secret: "a"))
        #expect(try keychain.open().find(query(account: "after"), decrypt: true).count == 1)
    }

    @Test("another connection sees none of the body's writes until the commit, and all of them after it")
    func noPartialStateVisible() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        let observer = try keychain.open()
        var seenDuringBody: [Int] = []
        try database.atomically {
            do {
                _ = try database.insert(genericPassword(account: "first", secret: "1"))
                seenDuringBody.append(try observer.find(query(account: "first"), decrypt: false).count)
                _ = try database.insert(genericPassword(account: "second", secret: "2"))
                seenDuringBody.append(try observer.find(query(account: "second"), decrypt: false).count)
                return true
            } catch {
                Issue.record("a call in the body failed: \(error)")
                return false
            }
        }
        #expect(seenDuringBody == [0, 0])
        #expect(try observer.find(query(account: "first"), decrypt: false).count == 1)
        #expect(try observer.find(query(account: "second"), decrypt: false).count == 1)
    }
}
