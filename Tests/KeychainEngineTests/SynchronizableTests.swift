import Foundation
import KeychainEngine
import KeychainServices
import Testing

/// Tombstones of synchronizable items in the store (§1.6). Items 37–40 are checked through
/// SecItem* in Tests/SecItemParityTests.
@Suite("Conformance: synchronizable items")
struct SynchronizableTests {
    private let sync: Query = [kSecAttrSynchronizable as String: yes]
    private let any: Query = [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]

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

}
