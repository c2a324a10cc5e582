import Foundation
import KeychainKit
import KeychainKitTesting
import Testing

/// KeychainKitTesting's isolated keychains share nothing.
@Suite struct IsolationTests {
    @Test func twoIsolatedKeychainsDoNotSeeEachOther() throws {
        let first = try IsolatedKeychain.keychain(service: "com.example.app")
        let second = try IsolatedKeychain.keychain(service: "com.example.app")
        try first.set("one", forKey: "token")

        #expect(try second.string(forKey: "token") == nil)
        try second.set("two", forKey: "token")
        #expect(try first.string(forKey: "token") == "one")
        try first.removeAll()
        #expect(try second.string(forKey: "token") == "two")
    }

    @Test func anIsolatedKeychainHasTheGroupsItWasGiven() throws {
        let keychain = try IsolatedKeychain.keychain(accessGroups: ["TEAM.one", "TEAM.two"])
        try keychain.set("v", forKey: "k")
        let attributes = try #require(rawAttributes(of: "k", in: keychain))
        #expect(attributes["agrp"] as? String == "TEAM.one")
        #expect(throws: KeychainError.missingEntitlement) {
            try Keychain(service: "s", accessGroup: "TEAM.three", backend: keychain.backend).set("v", forKey: "k")
        }
    }
}
