import Foundation
import KeychainEngine
import KeychainServices
import Testing

/// Access groups (§6, items 55–58).
@Suite("Conformance: access groups")
struct AccessGroupTests {
    @Test("55 add without kSecAttrAccessGroup → the item is in the caller's first group")
    func defaultGroupIsFirst() throws {
        let engine = try makeEngine()
        let added = engine.add(genp([kSecReturnAttributes as String: yes]))
        #expect(text(added.value as? [String: Any], kSecAttrAccessGroup) == "TEAM.app")
        #expect(text(engine.readAttributes(genpQuery()), kSecAttrAccessGroup) == "TEAM.app")
        #expect(engine.status(genpQuery([kSecAttrAccessGroup as String: "TEAM.app"])) == errSecSuccess)
        #expect(engine.status(genpQuery([kSecAttrAccessGroup as String: "TEAM.shared"])) == errSecItemNotFound)
        // Another order, another default.
        let reordered = try makeEngine(groups: ["TEAM.shared", "TEAM.app"])
        reordered.mustAdd(inet())
        #expect(text(reordered.readAttributes(inetQuery()), kSecAttrAccessGroup) == "TEAM.shared")
    }

    @Test("6 queries without a group search all of the caller's groups; the same key may exist once per group")
    func searchAcrossGroups() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(data: bytes("app")))
        #expect(engine.add(genp(data: bytes("shared"), [kSecAttrAccessGroup as String: "TEAM.shared"])).status == errSecSuccess)
        #expect(engine.add(genp([kSecAttrAccessGroup as String: "TEAM.shared"])).status == errSecDuplicateItem)
        #expect(engine.count(genpQuery()) == 2)
        #expect(engine.readData(genpQuery([kSecAttrAccessGroup as String: "TEAM.shared"])) == bytes("shared"))
        #expect(engine.readData(genpQuery([kSecAttrAccessGroup as String: "TEAM.app"])) == bytes("app"))
        // An engine entitled to the shared group only sees that one item.
        let sharedOnly = SecItemEngine(database: engine.database, accessGroups: AccessGroups(["TEAM.shared"]), authenticator: engine.authenticator)
        #expect(sharedOnly.count(genpQuery()) == 1)
        #expect(sharedOnly.readData(genpQuery()) == bytes("shared"))
        // Updates and deletes stay within one explicit group.
        #expect(engine.update(genpQuery([kSecAttrAccessGroup as String: "TEAM.shared"]),
                              [kSecValueData as String: bytes("shared2")]) == errSecSuccess)
        #expect(engine.readData(genpQuery([kSecAttrAccessGroup as String: "TEAM.app"])) == bytes("app"))
        #expect(engine.delete(genpQuery([kSecAttrAccessGroup as String: "TEAM.app"])) == errSecSuccess)
        #expect(engine.readData(genpQuery()) == bytes("shared2"))
    }

    @Test("6 items in groups the caller lacks are invisible (errSecItemNotFound, not an entitlement error)")
    func otherTeamsItemsInvisible() throws {
        let engine = try makeEngine()
        let stranger = SecItemEngine(database: engine.database, accessGroups: AccessGroups(["OTHER.team"]), authenticator: engine.authenticator)
        stranger.mustAdd(genp())
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
        #expect(engine.update(genpQuery(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
        #expect(engine.delete(genpQuery()) == errSecItemNotFound)
        // Our own item with the same key is a different item.
        #expect(engine.add(genp()).status == errSecSuccess)
        #expect(stranger.readData(genpQuery()) == bytes("secret"))
    }

    @Test("56 a group the caller lacks → errSecMissingEntitlement in add, CopyMatching, Update (query and attributes) and Delete")
    func unentitledGroup() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let other: Query = [kSecAttrAccessGroup as String: "OTHER.team"]
        #expect(engine.add(genp(other)).status == errSecMissingEntitlement)
        #expect(engine.status(genpQuery(other)) == errSecMissingEntitlement)
        #expect(engine.update(genpQuery(other), [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
        #expect(engine.update(genpQuery(), other) == errSecMissingEntitlement)
        #expect(engine.delete(genpQuery(other)) == errSecMissingEntitlement)
        // The item stayed where it was, unchanged.
        #expect(text(engine.readAttributes(genpQuery()), kSecAttrAccessGroup) == "TEAM.app")
        #expect(try #require(engine.readAttributes(genpQuery()))[kSecAttrLabel as String] == nil)
        // Moving to an entitled group is allowed.
        #expect(engine.update(genpQuery(), [kSecAttrAccessGroup as String: "TEAM.shared"]) == errSecSuccess)
        #expect(text(engine.readAttributes(genpQuery()), kSecAttrAccessGroup) == "TEAM.shared")
    }

    @Test("57 a caller with no access groups → errSecMissingEntitlement for all four calls, before any parsing")
    func noGroups() throws {
        let engine = try makeEngine(groups: [])
        #expect(engine.add(genp()).status == errSecMissingEntitlement)
        #expect(engine.status(genpQuery()) == errSecMissingEntitlement)
        #expect(engine.update(genpQuery(), [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
        #expect(engine.delete(genpQuery()) == errSecMissingEntitlement)
        #expect(engine.add([:]).status == errSecMissingEntitlement)
        #expect(engine.copyMatching([:]).status == errSecMissingEntitlement)
        // Blank entries do not count as groups.
        let blank = try makeEngine(groups: ["", "  "])
        #expect(blank.add(genp()).status == errSecMissingEntitlement)
    }

    @Test("58 add to the read-only group com.apple.token → errSecMissingEntitlement, even when entitled to it")
    func tokenGroupIsReadOnly() throws {
        let engine = try makeEngine(groups: ["TEAM.app", "com.apple.token"])
        let token: Query = [kSecAttrAccessGroup as String: kSecAttrAccessGroupToken]
        #expect(engine.add(genp(token)).status == errSecMissingEntitlement)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
        engine.mustAdd(genp())
        #expect(engine.update(genpQuery(), token) == errSecMissingEntitlement)
        #expect(engine.delete(genpQuery(token)) == errSecMissingEntitlement)
        #expect(engine.update(genpQuery(token), [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
        // Reading from it is allowed (nothing there).
        #expect(engine.status(genpQuery(token)) == errSecItemNotFound)
        // A caller whose only group is the token group has nowhere to add.
        let tokenOnly = try makeEngine(groups: ["com.apple.token"])
        #expect(tokenOnly.add(genp()).status == errSecMissingEntitlement)
    }

    @Test("6 a \"*\" entry grants every group")
    func wildcardGroup() throws {
        let engine = try makeEngine(groups: ["TEAM.app", "*"])
        #expect(engine.add(genp([kSecAttrAccessGroup as String: "ANY.group"])).status == errSecSuccess)
        engine.mustAdd(genp(account: "b"))
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword]) == 2)
        #expect(text(engine.readAttributes(genpQuery(account: "b")), kSecAttrAccessGroup) == "TEAM.app")
        #expect(engine.readData(genpQuery([kSecAttrAccessGroup as String: "ANY.group"])) == bytes("secret"))
    }
}
