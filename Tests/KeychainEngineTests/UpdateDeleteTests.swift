import Foundation
import KeychainEngine
import KeychainServices
import Testing

/// SecItemDelete of a whole class across several callers' access groups (item 18 with engines of
/// other groups). Items 8–18 and 60–62 are checked through SecItem* in Tests/SecItemParityTests.
@Suite("Conformance: SecItemUpdate and SecItemDelete")
struct UpdateDeleteTests {

    @Test("18 delete {class: genp} removes every non-sync genp item in the caller's groups; again → errSecItemNotFound")
    func deleteWholeClass() throws {
        let engine = try makeEngine()
        let stranger = SecItemEngine(database: engine.database, accessGroups: AccessGroups(["OTHER.team"]), authenticator: engine.authenticator)
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
}
