import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

/// Migration out of a real `UserDefaults` suite (persisted on disk on Linux too).
@Suite struct UserDefaultsMigrationTests {
    @Test func stringsAndDataMoveAndLeaveTheDefaults() throws {
        let scratch = try ScratchDefaults()
        defer { scratch.cleanUp() }
        scratch.defaults.set("legacy-token", forKey: "sessionToken")
        scratch.defaults.set(Data([9, 8, 7]), forKey: "deviceSecret")
        scratch.defaults.set("keep me", forKey: "unrelated")
        let keychain = try isolatedKeychain()

        let moved = try keychain.migrateFromUserDefaults(["sessionToken", "deviceSecret", "neverSet"], defaults: scratch.defaults)

        #expect(moved == ["sessionToken", "deviceSecret"])
        #expect(try keychain.string(forKey: "sessionToken") == "legacy-token")
        #expect(try keychain.data(forKey: "deviceSecret") == Data([9, 8, 7]))
        #expect(try keychain.contains("neverSet") == false)
        let later = try scratch.reopened()
        #expect(later.object(forKey: "sessionToken") == nil)
        #expect(later.object(forKey: "deviceSecret") == nil)
        #expect(later.string(forKey: "unrelated") == "keep me")
    }

    @Test func runningItAgainMovesNothing() throws {
        let scratch = try ScratchDefaults()
        defer { scratch.cleanUp() }
        scratch.defaults.set("t", forKey: "token")
        let keychain = try isolatedKeychain()

        #expect(try keychain.migrateFromUserDefaults(["token"], defaults: scratch.defaults) == ["token"])
        try keychain.set("newer", forKey: "token")
        #expect(try keychain.migrateFromUserDefaults(["token"], defaults: scratch.reopened()) == [])
        #expect(try keychain.string(forKey: "token") == "newer")
    }

    @Test func anUnsupportedValueStopsTheMigrationBeforeAnythingMoves() throws {
        let scratch = try ScratchDefaults()
        defer { scratch.cleanUp() }
        scratch.defaults.set("t", forKey: "token")
        scratch.defaults.set(42, forKey: "pin")
        let recorder = try RecordingBackend()
        let keychain = Keychain(service: "s", backend: recorder.backend)

        let error = #expect(throws: KeychainError.self) {
            try keychain.migrateFromUserDefaults(["token", "pin"], defaults: scratch.defaults)
        }
        #expect(error == .invalidArgument)
        #expect(error?.context?.contains("'pin'") == true)
        #expect(error?.context?.contains("42") == false)
        #expect(recorder.calls.isEmpty)
        #expect(scratch.defaults.string(forKey: "token") == "t")
    }

    @Test func aFailedWriteKeepsThatKeyInTheDefaults() throws {
        let scratch = try ScratchDefaults()
        defer { scratch.cleanUp() }
        scratch.defaults.set("one", forKey: "first")
        scratch.defaults.set("two", forKey: "second")
        let inner = try KeychainBackend.isolated()
        // The first key's update and add succeed; every later call fails as a locked keychain.
        let failing = try RecordingBackend(inner: inner) { _, index in index >= 2 ? errSecInteractionNotAllowed : nil }
        let keychain = Keychain(service: "s", backend: failing.backend)

        #expect(throws: KeychainError.interactionNotAllowed) {
            try keychain.migrateFromUserDefaults(["first", "second"], defaults: scratch.defaults)
        }
        #expect(scratch.defaults.object(forKey: "first") == nil)
        #expect(scratch.defaults.string(forKey: "second") == "two")

        let retried = try Keychain(service: "s", backend: inner).migrateFromUserDefaults(["first", "second"], defaults: scratch.defaults)
        #expect(retried == ["second"])
        #expect(try Keychain(service: "s", backend: inner).allKeys() == ["first", "second"])
    }
}
