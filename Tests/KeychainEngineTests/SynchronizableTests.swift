import Foundation
import KeychainEngine
import KeychainServices
import Testing

/// kSecAttrSynchronizable and tombstones (§3.9, §1.6, items 37–39).
@Suite("Conformance: synchronizable items")
struct SynchronizableTests {
    private let sync: Query = [kSecAttrSynchronizable as String: yes]
    private let any: Query = [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]

    @Test("37 sync = true: add, find with true, find with Any, update and delete with true → all 0")
    func synchronizableLifecycle() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp(sync)).status == errSecSuccess)
        #expect(engine.status(genpQuery(sync)) == errSecSuccess)
        #expect(engine.status(genpQuery(any)) == errSecSuccess)
        #expect(number(engine.readAttributes(genpQuery(sync)), kSecAttrSynchronizable) == 1)
        #expect(engine.update(genpQuery(sync), [kSecValueData as String: bytes("v2")]) == errSecSuccess)
        #expect(engine.readData(genpQuery(any)) == bytes("v2"))
        #expect(engine.delete(genpQuery(sync)) == errSecSuccess)
        #expect(engine.status(genpQuery(any)) == errSecItemNotFound)
    }

    @Test("38 after adding only a sync item, queries without kSecAttrSynchronizable → errSecItemNotFound")
    func defaultIsNonSync() throws {
        let engine = try makeEngine()
        engine.mustAdd(inet(sync))
        #expect(engine.status(inetQuery()) == errSecItemNotFound)
        #expect(engine.status(inetQuery([kSecAttrSynchronizable as String: no])) == errSecItemNotFound)
        #expect(engine.update(inetQuery(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
        #expect(engine.delete(inetQuery()) == errSecItemNotFound)
        #expect(engine.status(inetQuery(sync)) == errSecSuccess)
    }

    @Test("39 non-sync and sync items with the same acct/svce → both 0; Any sees both, the others one each")
    func syncIsPartOfTheKey() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp(data: bytes("local"))).status == errSecSuccess)
        #expect(engine.add(genp(data: bytes("synced"), sync)).status == errSecSuccess)
        #expect(engine.add(genp(sync)).status == errSecDuplicateItem)
        #expect(engine.count(genpQuery(any)) == 2)
        #expect(engine.count(genpQuery()) == 1)
        #expect(engine.readData(genpQuery()) == bytes("local"))
        #expect(engine.readData(genpQuery(sync)) == bytes("synced"))
        // Delete with Any removes both.
        #expect(engine.delete(genpQuery(any)) == errSecSuccess)
        #expect(engine.count(genpQuery(any)) == 0)
    }

    @Test("3.9 sync given as a number or numeric string is accepted; other values → errSecParam")
    func syncValueTypes() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp(account: "n", [kSecAttrSynchronizable as String: 1])).status == errSecSuccess)
        #expect(engine.add(genp(account: "s", [kSecAttrSynchronizable as String: "1"])).status == errSecSuccess)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword, kSecAttrSynchronizable as String: yes]) == 2)
        #expect(engine.add(genp(account: "x", [kSecAttrSynchronizable as String: "yes"])).status == errSecParam)
        #expect(engine.add(genp(account: "y", [kSecAttrSynchronizable as String: bytes("1")])).status == errSecParam)
    }

    @Test("1.6 deleting a sync item leaves an invisible tombstone; a later add with the same key replaces it")
    func tombstoneReplacedByAdd() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(data: bytes("first"), sync))
        #expect(engine.delete(genpQuery(sync)) == errSecSuccess)
        // The tombstone is invisible to every kind of query.
        #expect(engine.status(genpQuery(any)) == errSecItemNotFound)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) == 0)
        #expect(engine.delete(genpQuery(sync)) == errSecItemNotFound)
        #expect(engine.update(genpQuery(sync), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
        #expect(try engine.database.itemCount() == 0)
        // Adding the same key again succeeds and is a fresh item.
        let added = engine.add(genp(data: bytes("second"), with(sync, [kSecReturnAttributes as String: yes])))
        #expect(added.status == errSecSuccess)
        #expect(engine.readData(genpQuery(sync)) == bytes("second"))
        #expect(engine.count(genpQuery(any)) == 1)
        #expect(engine.add(genp(sync)).status == errSecDuplicateItem)
    }

    @Test("1.6 a sync item whose key changes leaves a tombstone for the old key; adding the old key succeeds")
    func tombstoneFromKeyChange() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(account: "old", sync))
        #expect(engine.update(genpQuery(account: "old", sync), [kSecAttrAccount as String: "new"]) == errSecSuccess)
        #expect(engine.status(genpQuery(account: "old", any)) == errSecItemNotFound)
        #expect(engine.status(genpQuery(account: "new", sync)) == errSecSuccess)
        #expect(engine.add(genp(account: "old", data: bytes("again"), sync)).status == errSecSuccess)
        #expect(engine.readData(genpQuery(account: "old", sync)) == bytes("again"))
        // And an update back onto a tombstoned key is not a collision either.
        #expect(engine.update(genpQuery(account: "new", sync), [kSecAttrAccount as String: "third"]) == errSecSuccess)
        #expect(engine.update(genpQuery(account: "third", sync), [kSecAttrAccount as String: "new"]) == errSecSuccess)
        #expect(engine.count(genpQuery(any).filter { $0.key != kSecAttrAccount as String }) == 2)
    }

    @Test("1.6 deleting a non-sync item leaves no tombstone")
    func nonSyncDeleteLeavesNothing() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        #expect(engine.delete(genpQuery()) == errSecSuccess)
        #expect(engine.add(genp()).status == errSecSuccess)
        #expect(try engine.database.itemCount() == 1)
    }

    @Test("3.5 update may move an item between sync and non-sync; a collision there → errSecDuplicateItem")
    func updateSynchronizable() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        #expect(engine.update(genpQuery(), sync) == errSecSuccess)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
        #expect(engine.status(genpQuery(sync)) == errSecSuccess)
        engine.mustAdd(genp())
        #expect(engine.update(genpQuery(), sync) == errSecDuplicateItem)
        #expect(engine.count(genpQuery(any)) == 2)
    }
}
