// Access groups as a process sees them: its default group, and the groups it is not entitled to.
// The group names come from the process's identity (the keychain-access-groups entitlement on
// Apple platforms, KEYCHAINKIT_APP_ID and KEYCHAINKIT_ACCESS_GROUPS on Linux), so the tests
// learn the default group from an item instead of naming it.

import Foundation
import KeychainServices
import Testing

extension SecItemParity {
    @Suite("Access groups")
    struct AccessGroups {
        /// A group no process is entitled to.
        private let foreignGroup = "NOT.ENTITLED.\(UUID().uuidString)"

        @Test("55 an item added without kSecAttrAccessGroup is in the caller's default group, which selects it")
        func defaultGroup() throws {
            let keychain = try ParityKeychain()
            let added = keychain.add(keychain.password("a", [kSecReturnAttributes: true]))
            let group = try #require(text(added.result as? [String: Any], kSecAttrAccessGroup))
            #expect(!group.isEmpty)
            #expect(text(keychain.attributes(keychain.password("a")), kSecAttrAccessGroup) == group)
            #expect(keychain.status(keychain.password("a", [kSecAttrAccessGroup: group])) == errSecSuccess)
            // Naming the default group explicitly makes the same item.
            #expect(keychain.add(keychain.password("a", [kSecAttrAccessGroup: group])).status == errSecDuplicateItem)
            #expect(keychain.update(keychain.password("a", [kSecAttrAccessGroup: group]), [kSecAttrLabel: "L"]) == errSecSuccess)
            #expect(keychain.delete(keychain.password("a", [kSecAttrAccessGroup: group])) == errSecSuccess)
        }

        @Test("56 a group the caller is not entitled to is errSecMissingEntitlement in add, CopyMatching, Update (query and attributes) and Delete")
        func unentitledGroup() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let group = try #require(text(keychain.attributes(keychain.password("a")), kSecAttrAccessGroup))
            let other: [CFString: Any] = [kSecAttrAccessGroup: foreignGroup]
            #expect(keychain.add(keychain.password("b", other)).status == errSecMissingEntitlement)
            #expect(keychain.status(keychain.password("a", other)) == errSecMissingEntitlement)
            #expect(keychain.update(keychain.password("a", other), [kSecAttrLabel: "x"]) == errSecMissingEntitlement)
            #expect(keychain.update(keychain.password("a"), other) == errSecMissingEntitlement)
            #expect(keychain.delete(keychain.password("a", other)) == errSecMissingEntitlement)
            // Nothing was added, moved or changed.
            #expect(keychain.status(keychain.password("b")) == errSecItemNotFound)
            let attributes = try #require(keychain.attributes(keychain.password("a")))
            #expect(text(attributes, kSecAttrAccessGroup) == group)
            #expect(attributes[kSecAttrLabel as String] == nil)
        }

        @Test("58 adding to the read-only token group is errSecMissingEntitlement, and so are updates and deletes naming it; reading it is allowed")
        func tokenGroupIsReadOnly() throws {
            let keychain = try ParityKeychain()
            let token: [CFString: Any] = [kSecAttrAccessGroup: kSecAttrAccessGroupToken]
            #expect(keychain.add(keychain.password("a", token)).status == errSecMissingEntitlement)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.update(keychain.password("a"), token) == errSecMissingEntitlement)
            #expect(keychain.delete(keychain.password("a", token)) == errSecMissingEntitlement)
            #expect(keychain.status(keychain.password("a")) == errSecSuccess)
        }
    }
}
