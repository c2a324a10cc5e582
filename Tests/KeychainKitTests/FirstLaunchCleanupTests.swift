import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

@Suite struct FirstLaunchCleanupTests {
    @Test func theFirstLaunchRemovesStaleItemsOfThisServiceOnly() throws {
        let scratch = try ScratchDefaults()
        defer { scratch.cleanUp() }
        let backend = try KeychainBackend.isolated()
        let keychain = Keychain(service: "com.example.app", backend: backend)
        let otherService = Keychain(service: "com.example.other", backend: backend)
        try keychain.set("previous-user-token", forKey: "token")
        try keychain.set("previous-user-password", forKey: "password")
        try otherService.set("unrelated", forKey: "token")

        let cleanup = try keychain.removeStaleItemsOnFirstLaunch(defaults: scratch.defaults)

        #expect(cleanup == FirstLaunchCleanup(isFirstLaunch: true, removedKeys: ["password", "token"]))
        #expect(try keychain.allKeys() == [])
        #expect(try otherService.string(forKey: "token") == "unrelated")
        let marker = Keychain.firstLaunchMarkerKey(service: "com.example.app")
        #expect(try scratch.reopened().bool(forKey: marker))
    }

    @Test func laterLaunchesKeepTheItems() throws {
        let scratch = try ScratchDefaults()
        defer { scratch.cleanUp() }
        let keychain = try isolatedKeychain()
        try keychain.removeStaleItemsOnFirstLaunch(defaults: scratch.defaults)
        try keychain.set("new-session", forKey: "token")

        let second = try keychain.removeStaleItemsOnFirstLaunch(defaults: scratch.reopened())
        #expect(second == FirstLaunchCleanup(isFirstLaunch: false, removedKeys: []))
        #expect(try keychain.string(forKey: "token") == "new-session")
    }

    @Test func anExistingInstallIsRecognisedAndKeepsItsItems() throws {
        let scratch = try ScratchDefaults()
        defer { scratch.cleanUp() }
        scratch.defaults.set(true, forKey: "hasCompletedOnboarding")
        let keychain = try isolatedKeychain()
        try keychain.set("current-user-token", forKey: "token")

        let cleanup = try keychain.removeStaleItemsOnFirstLaunch(
            defaults: scratch.defaults,
            existingInstallKeys: ["hasCompletedOnboarding"]
        )
        #expect(cleanup.isFirstLaunch == false)
        #expect(try keychain.string(forKey: "token") == "current-user-token")
        #expect(scratch.defaults.bool(forKey: Keychain.firstLaunchMarkerKey(service: keychain.service)))
    }

    @Test func aFailedCleanupLeavesNoMarkerAndRunsAgain() throws {
        let scratch = try ScratchDefaults()
        defer { scratch.cleanUp() }
        let inner = try KeychainBackend.isolated()
        try Keychain(service: "s", backend: inner).set("stale", forKey: "token")
        let failing = try RecordingBackend(inner: inner) { operation, _ in operation == "delete" ? errSecInteractionNotAllowed : nil }

        #expect(throws: KeychainError.interactionNotAllowed) {
            try Keychain(service: "s", backend: failing.backend).removeStaleItemsOnFirstLaunch(defaults: scratch.defaults)
        }
        #expect(scratch.defaults.object(forKey: Keychain.firstLaunchMarkerKey(service: "s")) == nil)

        let retried = try Keychain(service: "s", backend: inner).removeStaleItemsOnFirstLaunch(defaults: scratch.defaults)
        #expect(retried == FirstLaunchCleanup(isFirstLaunch: true, removedKeys: ["token"]))
    }

    @Test func aCustomMarkerKeyIsUsed() throws {
        let scratch = try ScratchDefaults()
        defer { scratch.cleanUp() }
        let keychain = try isolatedKeychain()
        try keychain.removeStaleItemsOnFirstLaunch(defaults: scratch.defaults, markerKey: "installed")
        #expect(scratch.defaults.bool(forKey: "installed"))
        #expect(scratch.defaults.object(forKey: Keychain.firstLaunchMarkerKey(service: keychain.service)) == nil)
    }
}
