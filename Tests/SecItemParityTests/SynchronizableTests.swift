// kSecAttrSynchronizable: part of every item's key, non-synchronizable by default.

import Foundation
import KeychainServices
import Testing

extension SecItemParity {
    @Suite("Synchronizable items")
    struct Synchronizable {
        private let sync: [CFString: Any] = [kSecAttrSynchronizable: true]
        private let any: [CFString: Any] = [kSecAttrSynchronizable: kSecAttrSynchronizableAny]

        @Test("37 synchronizable: add, find with true and with Any, update and delete with true all succeed")
        func lifecycle() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a", sync.merging([kSecValueData: bytes("v1")]) { $1 })).status == errSecSuccess)
            #expect(keychain.status(keychain.password("a", sync)) == errSecSuccess)
            #expect(keychain.status(keychain.password("a", any)) == errSecSuccess)
            #expect(number(keychain.attributes(keychain.password("a", sync)), kSecAttrSynchronizable) == 1)
            #expect(keychain.update(keychain.password("a", sync), [kSecValueData: bytes("v2")]) == errSecSuccess)
            #expect(keychain.data(keychain.password("a", any)) == bytes("v2"))
            #expect(keychain.delete(keychain.password("a", sync)) == errSecSuccess)
            #expect(keychain.status(keychain.password("a", any)) == errSecItemNotFound)
        }

        @Test("38 with only a synchronizable item, calls without kSecAttrSynchronizable (or with false) find nothing")
        func defaultIsNotSynchronizable() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.internetPassword("alice", sync))
            #expect(keychain.status(keychain.internetPassword()) == errSecItemNotFound)
            #expect(keychain.status(keychain.internetPassword("alice", [kSecAttrSynchronizable: false])) == errSecItemNotFound)
            #expect(keychain.update(keychain.internetPassword(), [kSecAttrLabel: "x"]) == errSecItemNotFound)
            #expect(keychain.delete(keychain.internetPassword()) == errSecItemNotFound)
            #expect(keychain.status(keychain.internetPassword("alice", sync)) == errSecSuccess)
        }

        @Test("39 a synchronizable and a local item with the same account and service are two items; Any sees both")
        func synchronizableIsPartOfTheKey() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a", [kSecValueData: bytes("local")])).status == errSecSuccess)
            #expect(keychain.add(keychain.password("a", sync.merging([kSecValueData: bytes("synced")]) { $1 })).status == errSecSuccess)
            #expect(keychain.add(keychain.password("a", sync)).status == errSecDuplicateItem)
            #expect(keychain.count(keychain.password("a", any)) == 2)
            #expect(keychain.count(keychain.password("a")) == 1)
            #expect(keychain.data(keychain.password("a")) == bytes("local"))
            #expect(keychain.data(keychain.password("a", sync)) == bytes("synced"))
            #expect(keychain.delete(keychain.password("a", any)) == errSecSuccess)
            #expect(keychain.count(keychain.password("a", any)) == 0)
        }

        @Test("3.9 synchronizable given as a number or a numeric string is accepted; other values are errSecParam")
        func valueTypes() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("n", [kSecAttrSynchronizable: 1])).status == errSecSuccess)
            #expect(keychain.add(keychain.password("s", [kSecAttrSynchronizable: "1"])).status == errSecSuccess)
            #expect(keychain.count(keychain.everyPassword(sync)) == 2)
            #expect(keychain.add(keychain.password("x", [kSecAttrSynchronizable: "yes"])).status == errSecParam)
            #expect(keychain.add(keychain.password("y", [kSecAttrSynchronizable: bytes("1")])).status == errSecParam)
        }

        @Test("1.6 a deleted synchronizable item can be added again with the same key, as a new item")
        func addAfterDelete() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", sync.merging([kSecValueData: bytes("first")]) { $1 }))
            #expect(keychain.delete(keychain.password("a", sync)) == errSecSuccess)
            #expect(keychain.status(keychain.password("a", any)) == errSecItemNotFound)
            #expect(keychain.update(keychain.password("a", sync), [kSecAttrLabel: "x"]) == errSecItemNotFound)
            #expect(keychain.add(keychain.password("a", sync.merging([kSecValueData: bytes("second")]) { $1 })).status == errSecSuccess)
            #expect(keychain.data(keychain.password("a", sync)) == bytes("second"))
            #expect(keychain.count(keychain.password("a", any)) == 1)
        }

        @Test("1.6 a synchronizable item renamed by an update frees its old key")
        func renameFreesOldKey() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("old", sync))
            #expect(keychain.update(keychain.password("old", sync), [kSecAttrAccount: "new"]) == errSecSuccess)
            #expect(keychain.status(keychain.password("old", any)) == errSecItemNotFound)
            #expect(keychain.status(keychain.password("new", sync)) == errSecSuccess)
            #expect(keychain.add(keychain.password("old", sync.merging([kSecValueData: bytes("again")]) { $1 })).status == errSecSuccess)
            #expect(keychain.data(keychain.password("old", sync)) == bytes("again"))
        }

        @Test("3.5 an update may make an item synchronizable; a collision there is errSecDuplicateItem")
        func updateSynchronizable() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.update(keychain.password("a"), sync) == errSecSuccess)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
            #expect(keychain.status(keychain.password("a", sync)) == errSecSuccess)
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.update(keychain.password("a"), sync) == errSecDuplicateItem)
            #expect(keychain.count(keychain.password("a", any)) == 2)
        }
    }
}
