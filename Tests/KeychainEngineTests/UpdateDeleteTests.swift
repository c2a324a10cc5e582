import Foundation
import KeychainEngine
import KeychainServices
import Testing

/// SecItemUpdate and SecItemDelete (§3.5, §3.6, items 8–18, 60–62).
@Suite("Conformance: SecItemUpdate and SecItemDelete")
struct UpdateDeleteTests {
    @Test("8 update {v_Data: D2} → 0; a later read returns D2")
    func updateData() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(data: bytes("D1")))
        #expect(engine.update(genpQuery(), [kSecValueData as String: bytes("D2")]) == errSecSuccess)
        #expect(engine.readData(genpQuery()) == bytes("D2"))
        // inet too, with an attribute at the same time.
        engine.mustAdd(inet(data: bytes("I1")))
        #expect(engine.update(inetQuery(), [kSecValueData as String: bytes("I2"), kSecAttrLabel as String: "L"]) == errSecSuccess)
        #expect(engine.readData(inetQuery()) == bytes("I2"))
        #expect(text(engine.readAttributes(inetQuery()), kSecAttrLabel) == "L")
    }

    @Test("9 update {v_Data: NULL} → errSecParam; {v_Data: \"string\"} → errSecParam; data unchanged")
    func updateDataWrongType() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(data: bytes("D1")))
        #expect(engine.update(genpQuery(), [kSecValueData as String: NSNull()]) == errSecParam)
        #expect(engine.update(genpQuery(), [kSecValueData as String: "string"]) == errSecParam)
        #expect(engine.update(genpQuery(), [kSecValueData as String: 42]) == errSecParam)
        #expect(engine.readData(genpQuery()) == bytes("D1"))
    }

    @Test("10 update whose query matches nothing → errSecItemNotFound")
    func updateNothing() throws {
        let engine = try makeEngine()
        #expect(engine.update(genpQuery(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
        engine.mustAdd(genp())
        #expect(engine.update(genpQuery(account: "other"), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
        #expect(engine.update(inetQuery(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
    }

    @Test("11 update changing srvr into another item's key → errSecDuplicateItem, both items unchanged")
    func updateCausingDuplicate() throws {
        let engine = try makeEngine()
        engine.mustAdd(inet(server: "one.example", data: bytes("1"), [kSecAttrLabel as String: "first"]))
        engine.mustAdd(inet(server: "two.example", data: bytes("2"), [kSecAttrLabel as String: "second"]))
        #expect(engine.update(inetQuery(server: "one.example"),
                              [kSecAttrServer as String: "two.example", kSecAttrLabel as String: "changed"]) == errSecDuplicateItem)
        #expect(engine.readData(inetQuery(server: "one.example")) == bytes("1"))
        #expect(engine.readData(inetQuery(server: "two.example")) == bytes("2"))
        #expect(text(engine.readAttributes(inetQuery(server: "one.example")), kSecAttrLabel) == "first")
        #expect(text(engine.readAttributes(inetQuery(server: "two.example")), kSecAttrLabel) == "second")
        // A change to a free key succeeds and moves the item.
        #expect(engine.update(inetQuery(server: "one.example"), [kSecAttrServer as String: "three.example"]) == errSecSuccess)
        #expect(engine.status(inetQuery(server: "one.example")) == errSecItemNotFound)
        #expect(engine.readData(inetQuery(server: "three.example")) == bytes("1"))
    }

    @Test("12 delete of an item that does not exist → errSecItemNotFound")
    func deleteNothing() throws {
        let engine = try makeEngine()
        #expect(engine.delete(genpQuery()) == errSecItemNotFound)
        engine.mustAdd(genp())
        #expect(engine.delete(genpQuery(account: "other")) == errSecItemNotFound)
        #expect(engine.delete(genpQuery()) == errSecSuccess)
        #expect(engine.delete(genpQuery()) == errSecItemNotFound)
    }

    @Test("13 update whose query has any kSecReturn* = true → errSecParam (iOS)")
    func updateWithReturnKeys() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        for key in [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef] {
            #expect(engine.update(genpQuery([key as String: yes]), [kSecAttrLabel as String: "x"]) == errSecParam, "\(key)")
        }
        #expect(try #require(engine.readAttributes(genpQuery()))[kSecAttrLabel as String] == nil)
        // false means "not requested".
        #expect(engine.update(genpQuery([kSecReturnData as String: no]), [kSecAttrLabel as String: "x"]) == errSecSuccess)
    }

    @Test("14 update whose query has kSecMatchLimitOne, a count or another match key → errSecParam; kSecMatchLimitAll alone (macOS) updates every match")
    func updateWithMatchKeys() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let matchEntries: [Query] = [
            [kSecMatchLimit as String: kSecMatchLimitOne], [kSecMatchLimit as String: 5],
            [kSecMatchCaseInsensitive as String: yes],
            [kSecMatchLimit as String: kSecMatchLimitAll, kSecMatchCaseInsensitive as String: yes],
        ]
        for entries in matchEntries {
            #expect(engine.update(genpQuery(entries), [kSecAttrLabel as String: "x"]) == errSecParam)
        }
        #expect(engine.update(inetQuery([kSecMatchHostOrSubdomainOfHost as String: "example.com"]),
                              [kSecAttrLabel as String: "x"]) == errSecParam)
        #expect(try #require(engine.readAttributes(genpQuery()))[kSecAttrLabel as String] == nil)
        engine.mustAdd(genp(account: "b"))
        let everyS: Query = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                             kSecMatchLimit as String: kSecMatchLimitAll]
        #expect(engine.update(everyS, [kSecAttrLabel as String: "both"]) == errSecSuccess)
        #expect(text(engine.readAttributes(genpQuery()), kSecAttrLabel) == "both")
        #expect(text(engine.readAttributes(genpQuery([kSecAttrAccount as String: "b"])), kSecAttrLabel) == "both")
    }

    @Test("15/16 non-attribute keys in attributesToUpdate (class, u_CredRef, r_*, m_*, u_*) → errSecNoSuchAttr")
    func updateWithNonAttributes() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let nonAttributes: [Query] = [
            [kSecClass as String: kSecClassGenericPassword],
            [kSecClass as String: kSecClassInternetPassword],
            ["u_CredRef": bytes("credential")],
            [kSecReturnData as String: yes],
            [kSecMatchLimit as String: kSecMatchLimitAll],
            [kSecUseAuthenticationUI as String: authenticationUIFail],
            [kSecValuePersistentRef as String: bytes("genp0123456789abcdef")],
            [kSecAttrServer as String: "not a genp attribute"],
        ]
        for changes in nonAttributes {
            #expect(engine.update(genpQuery(), changes) == errSecNoSuchAttr, "\(changes.keys.sorted())")
        }
        #expect(try #require(engine.readAttributes(genpQuery()))[kSecAttrServer as String] == nil)
    }

    @Test("17 delete with kSecMatchLimitOne, a count or another match key → errSecParam (iOS), nothing deleted; kSecMatchLimitAll alone (macOS's removeAll idiom) deletes every match")
    func deleteWithMatchLimit() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        engine.mustAdd(genp(account: "b"))
        #expect(engine.delete(genpQuery([kSecMatchLimit as String: kSecMatchLimitOne])) == errSecParam)
        #expect(engine.delete(genpQuery([kSecMatchLimit as String: 1])) == errSecParam)
        #expect(engine.delete(genpQuery([kSecMatchCaseInsensitive as String: yes])) == errSecParam)
        #expect(engine.delete(genpQuery([kSecMatchLimit as String: kSecMatchLimitAll, kSecMatchCaseInsensitive as String: yes])) == errSecParam)
        #expect(engine.status(genpQuery()) == errSecSuccess)
        // KeychainAccess's removeAll() off iOS: every generic password of the service goes.
        let everyS: Query = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                             kSecMatchLimit as String: kSecMatchLimitAll]
        #expect(engine.delete(everyS) == errSecSuccess)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
        #expect(engine.status(genpQuery([kSecAttrAccount as String: "b"])) == errSecItemNotFound)
    }

    @Test("3.6 delete ignores kSecReturn* keys")
    func deleteIgnoresReturnKeys() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        #expect(engine.delete(genpQuery([kSecReturnData as String: yes])) == errSecSuccess)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }

    @Test("18 delete {class: genp} removes every non-sync genp item in the caller's groups; again → errSecItemNotFound")
    func deleteWholeClass() throws {
        let engine = try makeEngine()
        let stranger = SecItemEngine(database: engine.database, accessGroups: AccessGroups(["OTHER.team"]))
        engine.mustAdd(genp(account: "1"))
        engine.mustAdd(genp(account: "2", [kSecAttrAccessGroup as String: "TEAM.shared"]))
        engine.mustAdd(genp(account: "3", [kSecAttrSynchronizable as String: yes]))
        engine.mustAdd(inet())
        stranger.mustAdd(genp(account: "4"))
        #expect(engine.delete([kSecClass as String: kSecClassGenericPassword]) == errSecSuccess)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword]) == 0)
        // The sync item, the other class and the other team's item survive.
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword,
                              kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) == 1)
        #expect(engine.status(inetQuery()) == errSecSuccess)
        #expect(stranger.status(genpQuery(account: "4")) == errSecSuccess)
        #expect(engine.delete([kSecClass as String: kSecClassGenericPassword]) == errSecItemNotFound)
    }

    @Test("3.6 delete removes every matching item, not only the first")
    func deleteAllMatches() throws {
        let engine = try makeEngine()
        for account in ["1", "2", "3"] { engine.mustAdd(genp(account: account)) }
        engine.mustAdd(genp(account: "4", service: "other"))
        #expect(engine.delete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]) == errSecSuccess)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword]) == 1)
    }

    @Test("3.5 update changes every matching item")
    func updateAllMatches() throws {
        let engine = try makeEngine()
        for account in ["1", "2", "3"] { engine.mustAdd(genp(account: account)) }
        #expect(engine.update([kSecClass as String: kSecClassGenericPassword], [kSecAttrLabel as String: "all"]) == errSecSuccess)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "all"]) == 3)
    }

    @Test("60 update: mdat strictly later (≥ 1 ms), cdat unchanged; caller mdat ignored")
    func updateMovesModificationDate() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let before = try #require(engine.readAttributes(genpQuery()))
        let created = try #require(date(before, kSecAttrCreationDate))
        let modified = try #require(date(before, kSecAttrModificationDate))
        #expect(engine.update(genpQuery(), [kSecAttrLabel as String: "x",
                                            kSecAttrModificationDate as String: Date(timeIntervalSinceReferenceDate: 5)]) == errSecSuccess)
        let after = try #require(engine.readAttributes(genpQuery()))
        let newModified = try #require(date(after, kSecAttrModificationDate))
        #expect(newModified.timeIntervalSince(modified) >= 0.001)
        #expect(date(after, kSecAttrCreationDate) == created)
        // Immediately again: still strictly later.
        #expect(engine.update(genpQuery(), [kSecAttrLabel as String: "y"]) == errSecSuccess)
        let third = try #require(date(engine.readAttributes(genpQuery()), kSecAttrModificationDate))
        #expect(third.timeIntervalSince(newModified) >= 0.001)
    }

    @Test("3.11 update: a cdat given in attributesToUpdate is copied; the item keeps its identity")
    func updateCopiesCreationDate() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let chosen = Date(timeIntervalSinceReferenceDate: 86_400)
        #expect(engine.update(genpQuery(), [kSecAttrCreationDate as String: chosen]) == errSecSuccess)
        let attributes = engine.readAttributes(genpQuery())
        #expect(date(attributes, kSecAttrCreationDate) == chosen)
        #expect(engine.update(genpQuery(), [kSecAttrCreationDate as String: "not a date"]) == errSecParam)
    }

    @Test("61 update with an empty attributesToUpdate → 0; only mdat moves")
    func updateWithNothing() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp([kSecAttrLabel as String: "L"]))
        let before = try #require(engine.readAttributes(genpQuery()))
        #expect(engine.update(genpQuery(), [:]) == errSecSuccess)
        let after = try #require(engine.readAttributes(genpQuery()))
        #expect(text(after, kSecAttrLabel) == "L")
        #expect(engine.readData(genpQuery()) == bytes("secret"))
        let beforeDate = try #require(date(before, kSecAttrModificationDate))
        let afterDate = try #require(date(after, kSecAttrModificationDate))
        #expect(afterDate > beforeDate)
    }

    @Test("62 update of two items setting acct to one new value → errSecDuplicateItem, both items unchanged")
    func updateCollidingWithItself() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(account: "1", data: bytes("one")))
        engine.mustAdd(genp(account: "2", data: bytes("two")))
        #expect(engine.update([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"],
                              [kSecAttrAccount as String: "same", kSecValueData as String: bytes("new")]) == errSecDuplicateItem)
        #expect(engine.status(genpQuery(account: "same")) == errSecItemNotFound)
        #expect(engine.readData(genpQuery(account: "1")) == bytes("one"))
        #expect(engine.readData(genpQuery(account: "2")) == bytes("two"))
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword]) == 2)
    }

    @Test("3.5 update changing the accessibility keeps the item readable under its new class")
    func updateAccessibility() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        #expect(engine.update(genpQuery(), [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]) == errSecSuccess)
        #expect(text(engine.readAttributes(genpQuery()), kSecAttrAccessible) == "ck")
        #expect(engine.readData(genpQuery()) == bytes("secret"))
        #expect(engine.update(genpQuery(), [kSecAttrAccessible as String: "bogus"]) == errSecParam)
    }

    @Test("3.5 update of a key attribute to an absent/empty equivalent collides like add")
    func updateToEmptyKeyCollides() throws {
        let engine = try makeEngine()
        engine.mustAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"])
        engine.mustAdd(genp(account: "x"))
        #expect(engine.update(genpQuery(account: "x"), [kSecAttrAccount as String: ""]) == errSecDuplicateItem)
        #expect(engine.update(genpQuery(account: "x"), [kSecAttrAccount as String: bytes("")]) == errSecDuplicateItem)
    }
}
