import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

@Suite struct SynchronizableTests {
    @Test func synchronizableItemsAreSeparateFromLocalOnes() throws {
        let backend = try KeychainBackend.isolated()
        let local = Keychain(service: "s", backend: backend)
        let synced = Keychain(service: "s", synchronizable: true, backend: backend)
        try local.set("local", forKey: "k")
        try synced.set("synced", forKey: "k")

        #expect(try local.string(forKey: "k") == "local")
        #expect(try synced.string(forKey: "k") == "synced")
        let attributes = try #require(rawAttributes(of: "k", in: synced, synchronizable: true))
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)

        try synced.removeAll()
        #expect(try synced.allKeys() == [])
        #expect(try local.string(forKey: "k") == "local")
    }

    @Test(arguments: Accessibility.allCases.filter(\.isThisDeviceOnly))
    func synchronizableKeychainRejectsThisDeviceOnlyClasses(_ accessibility: Accessibility) throws {
        let recorder = try RecordingBackend()
        let keychain = Keychain(service: "s", accessibility: accessibility, synchronizable: true, backend: recorder.backend)

        let error = #expect(throws: KeychainError.self) { try keychain.set("v", forKey: "k") }
        #expect(error == .invalidArgument)
        #expect(error?.status == errSecParam)
        #expect(error?.context?.contains("ThisDeviceOnly") == true)
        #expect(error?.context?.contains("\(accessibility)") == true)
        #expect(throws: KeychainError.invalidArgument) { try keychain.string(forKey: "k") }
        #expect(recorder.calls.isEmpty)
    }

    @Test func synchronizableKeychainAcceptsClassesThatMayLeaveTheDevice() throws {
        for accessibility in Accessibility.allCases where !accessibility.isThisDeviceOnly {
            let keychain = try isolatedKeychain(accessibility: accessibility, synchronizable: true)
            try keychain.set("v", forKey: "k")
            #expect(try keychain.string(forKey: "k") == "v")
        }
    }
}

@Suite struct AccessGroupTests {
    @Test func itemsGoToTheNamedGroupAndStayThere() throws {
        let backend = try KeychainBackend.isolated(accessGroups: ["TEAM.app", "TEAM.shared"])
        let shared = Keychain(service: "s", accessGroup: "TEAM.shared", backend: backend)
        let own = Keychain(service: "s", accessGroup: "TEAM.app", backend: backend)
        let anyGroup = Keychain(service: "s", backend: backend)
        try shared.set("shared", forKey: "k")

        let attributes = try #require(rawAttributes(of: "k", in: shared))
        #expect(attributes[kSecAttrAccessGroup as String] as? String == "TEAM.shared")
        #expect(try own.string(forKey: "k") == nil)
        #expect(try anyGroup.string(forKey: "k") == "shared")
    }

    @Test func aKeyInTwoGroupsIsListedOnce() throws {
        let backend = try KeychainBackend.isolated(accessGroups: ["TEAM.app", "TEAM.shared"])
        try Keychain(service: "s", accessGroup: "TEAM.app", backend: backend).set("a", forKey: "k")
        try Keychain(service: "s", accessGroup: "TEAM.shared", backend: backend).set("b", forKey: "k")
        try Keychain(service: "s", accessGroup: "TEAM.shared", backend: backend).set("c", forKey: "other")

        #expect(try Keychain(service: "s", backend: backend).allKeys() == ["k", "other"])
        #expect(try Keychain(service: "s", accessGroup: "TEAM.app", backend: backend).allKeys() == ["k"])
    }

    @Test func newItemsWithoutAGroupGoToTheDefaultGroup() throws {
        let backend = try KeychainBackend.isolated(accessGroups: ["TEAM.app", "TEAM.shared"])
        let keychain = Keychain(service: "s", backend: backend)
        try keychain.set("v", forKey: "k")
        let attributes = try #require(rawAttributes(of: "k", in: keychain))
        #expect(attributes[kSecAttrAccessGroup as String] as? String == "TEAM.app")
    }

    @Test func aGroupTheAppIsNotEntitledToIsAMissingEntitlement() throws {
        let backend = try KeychainBackend.isolated(accessGroups: ["TEAM.app"])
        let keychain = Keychain(service: "s", accessGroup: "OTHER.group", backend: backend)

        #expect(throws: KeychainError.missingEntitlement) { try keychain.set("v", forKey: "k") }
        #expect(throws: KeychainError.missingEntitlement) { try keychain.string(forKey: "k") }
    }

    @Test func anEmptyGroupNameIsRejected() throws {
        let keychain = try isolatedKeychain(accessGroup: "")
        #expect(throws: KeychainError.invalidArgument) { try keychain.set("v", forKey: "k") }
    }
}
