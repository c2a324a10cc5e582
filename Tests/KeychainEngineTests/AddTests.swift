import Foundation
import KeychainEngine
import KeychainServices
import KeychainStore
import Testing

/// SecItemAdd below the API: the synthesised access control, Linux's deliberate answer to match
/// keys in an add (item 72), legacy persistent references (§3.3). The other checklist items of
/// SecItemAdd are checked through SecItem* in Tests/SecItemParityTests.
@Suite("Conformance: SecItemAdd")
struct AddTests {

    @Test("54 add genp and inet without accessibility → returned pdmn is \"ak\"")
    func defaultAccessibility() throws {
        let engine = try makeEngine()
        let added = engine.add(genp([kSecReturnAttributes as String: yes]))
        #expect(text(added.value as? [String: Any], kSecAttrAccessible) == "ak")
        #expect(text(engine.readAttributes(genpQuery()), kSecAttrAccessible) == "ak")
        engine.mustAdd(inet())
        #expect(text(engine.readAttributes(inetQuery()), kSecAttrAccessible) == "ak")
        // The synthesised access control carries the same protection and no constraints.
        let accessControl = try #require(engine.readAttributes(genpQuery())?[kSecAttrAccessControl as String] as? AccessControlConvertible)
        #expect(accessControl.accessControlPolicy.protection == .whenUnlocked)
        #expect(accessControl.accessControlPolicy.flags == 0)
        // An explicit accessibility is kept and can be searched.
        engine.mustAdd(genp(account: "ck", [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]))
        #expect(text(engine.readAttributes(genpQuery(account: "ck")), kSecAttrAccessible) == "ck")
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword,
                              kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]) == 1)
    }

    @Test("72 add with kSecMatchLimit → errSecParam and nothing stored (documented deviation from iOS's silent no-op)")
    func addWithMatchLimit() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp([kSecMatchLimit as String: kSecMatchLimitOne])).status == errSecParam)
        #expect(engine.add(genp([kSecMatchLimit as String: kSecMatchLimitAll])).status == errSecParam)
        #expect(engine.add(genp([kSecMatchCaseInsensitive as String: yes])).status == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }

    @Test("3.3 add with a legacy 12-byte persistent reference → errSecParam")
    func addWithLegacyPersistentReference() throws {
        let engine = try makeEngine()
        var legacy = bytes("genp")
        legacy.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(engine.add(genp([kSecValuePersistentRef as String: legacy])).status == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }
}
