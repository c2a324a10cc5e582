import Foundation
import KeychainServices
import KeychainTestSupport
@testable import SecretService
import Testing

/// Searches answered from the store's in-memory index (CollectionAttributeIndex) stay in step
/// with the keychain file, which other processes write too, and with the store's own writes; a
/// locked collection's index leaves memory.
@Suite("Secret Service store: the search index", .serialized)
struct SearchIndexTests {
    private static func secret(_ text: String) -> SecretValue { SecretValue(bytes: Array(text.utf8)) }

    @Test("items keychainctl adds and deletes in its own process are found, then not, by the next search and listing")
    func otherProcessAddsAndDeletes() throws {
        try IsolatedKeychains.withStore { store, directory in
            _ = try store.createItem(in: .login, label: "a", attributes: ["service": "idx", "username": "a"], secret: Self.secret("a"), replace: false)
            #expect(try store.search(attributes: ["service": "idx"]).unlocked.count == 1)
            #expect(store.attributeIndexes[.login] != nil, "the first search builds the index")

            let add = try KeychainctlRunner.run(["add-generic-password", "-s", "idx", "-a", "b", "-w"], stdin: "b-secret\n", directory: directory)
            try #require(add.status == 0)
            let found = try store.search(attributes: ["service": "idx", "username": "b"]).unlocked
            try #require(found.count == 1)
            #expect(try store.secret(found[0]).text == "b-secret")
            #expect(try store.search(attributes: ["service": "idx"]).unlocked.count == 2)
            #expect(try store.itemIDs(in: .login).contains(found[0].item), "the Items property lists it too")

            let delete = try KeychainctlRunner.run(["delete-generic-password", "-s", "idx", "-a", "b"], directory: directory)
            try #require(delete.status == 0)
            #expect(try store.search(attributes: ["service": "idx", "username": "b"]).unlocked.isEmpty)
            #expect(try !store.itemIDs(in: .login).contains(found[0].item))
            #expect(try store.itemIDs(in: .login).count == 1, "the access record and the log's key are never items")
            #expect(try store.search(attributes: ["service": "idx"]).unlocked.count == 1)
        }
    }

    @Test("an item another writer changed in place is not returned for attributes it no longer has")
    func changedInPlaceElsewhere() throws {
        try IsolatedKeychains.withStore { store, directory in
            let ref = try store.createItem(in: .login, label: "moved", attributes: ["service": "before", "username": "u"],
                                           secret: Self.secret("s"), replace: false)
            #expect(try store.search(attributes: ["service": "before"]).unlocked == [ref])
            // Another writer (an app through SecItemUpdate) moves the item to another service;
            // its persistent reference, and so its id, stays the same.
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "before",
                                        kSecAttrAccount as String: "u", kSecUseKeychain as String: IsolatedKeychains.open(directory + "/login.keychain-db") as Any]
            try #require(SecItemUpdate(query as CFDictionary, [kSecAttrService as String: "after", kSecAttrGeneric as String: Data()] as CFDictionary) == errSecSuccess)
            #expect(try store.search(attributes: ["service": "before"]).unlocked.isEmpty)
        }
    }

    @Test("replace finds its item through the index: exactly the matching item changes, not a superset, a sibling or a keychainctl item")
    func replaceThroughIndex() throws {
        try IsolatedKeychains.withStore { store, directory in
            func make(_ label: String, _ attributes: [String: String]) throws -> SecretItemRef {
                try store.createItem(in: .login, label: label, attributes: attributes, secret: Self.secret(label), replace: false)
            }
            let exact = try make("exact", ["service": "rep", "username": "u1"])
            let sibling = try make("sibling", ["service": "rep", "username": "u2"])
            let superset = try make("superset", ["app": "rep", "k": "1", "extra": "e"])
            let subset = try make("subset", ["app": "rep", "k": "1"])
            let add = try KeychainctlRunner.run(["add-generic-password", "-s", "rep-cli", "-a", "c", "-w"], stdin: "cli\n", directory: directory)
            try #require(add.status == 0)
            store.dropIndex(of: .login)

            let replaced = try store.createItem(in: .login, label: "exact 2", attributes: ["service": "rep", "username": "u1"],
                                                secret: Self.secret("new-u1"), replace: true)
            #expect(replaced == exact)
            #expect(store.attributeIndexes[.login] != nil, "the replaced item was found through the collection's index")
            let fallback = try store.createItem(in: .login, label: "subset 2", attributes: ["app": "rep", "k": "1"],
                                                secret: Self.secret("new-subset"), replace: true)
            #expect(fallback == subset, "the item with exactly these attributes, not the one with more")
            // An item keychainctl made in the natural slot (no stored dictionary) is taken over.
            let cli = try store.createItem(in: .login, label: "cli 2", attributes: ["service": "rep-cli", "username": "c"],
                                           secret: Self.secret("new-cli"), replace: true)

            #expect(try store.secret(exact).text == "new-u1")
            #expect(try store.secret(subset).text == "new-subset")
            #expect(try store.secret(cli).text == "new-cli")
            #expect(try store.secret(sibling).text == "sibling")
            #expect(try store.secret(superset).text == "superset")
            #expect(try store.itemIDs(in: .login).count == 5, "nothing added: four items and keychainctl's")
            #expect(try store.search(attributes: ["service": "rep-cli"]).unlocked == [cli])
        }
    }

    @Test("the store's own writes are searchable at once: new attributes found, old ones not, deleted gone")
    func ownWrites() throws {
        try IsolatedKeychains.withStore { store, _ in
            let ref = try store.createItem(in: .login, label: "own", attributes: ["app": "one", "k": "v"], secret: Self.secret("s"), replace: false)
            #expect(try store.search(attributes: ["app": "one"]).unlocked == [ref])
            try store.setAttributes(["app": "two", "k": "v"], of: ref)
            #expect(try store.search(attributes: ["app": "one"]).unlocked.isEmpty)
            #expect(try store.search(attributes: ["app": "two"]).unlocked == [ref])
            let second = try store.createItem(in: .login, label: "own 2", attributes: ["app": "two", "k": "w"], secret: Self.secret("t"), replace: false)
            #expect(Set(try store.search(attributes: ["app": "two"]).unlocked) == [ref, second])
            try store.deleteItem(ref)
            #expect(try store.search(attributes: ["app": "two"]).unlocked == [second])
        }
    }

    @Test("locking a collection drops its index: searched as locked, no attribute kept in memory")
    func lockDropsIndex() throws {
        try IsolatedKeychains.withStore { store, _ in
            let id = try store.createCollection(label: "Work", password: Data("work-password".utf8))
            _ = try store.createItem(in: id, label: "w", attributes: ["service": "work", "username": "u"], secret: Self.secret("w"), replace: false)
            #expect(try store.search(attributes: ["service": "work"]).unlocked.count == 1)
            #expect(store.attributeIndexes[id] != nil)

            try store.lock(id)
            #expect(store.attributeIndexes[id] == nil, "a locked collection's attributes leave memory")
            let whileLocked = try store.search(attributes: ["service": "work"])
            #expect(whileLocked.unlocked.isEmpty)
            #expect(whileLocked.lockedCollections.contains(id))
            #expect(store.attributeIndexes[id] == nil)

            try store.unlock(id, password: Data("work-password".utf8))
            #expect(try store.search(attributes: ["service": "work"]).unlocked.count == 1)
        }
    }
}
