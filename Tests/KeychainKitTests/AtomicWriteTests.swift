import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

/// A write is update-else-add, never delete-then-add.
@Suite struct AtomicWriteTests {
    @Test func aWriteUpdatesAnExistingItemInPlace() throws {
        let recorder = try RecordingBackend()
        let keychain = Keychain(service: "s", backend: recorder.backend)
        try keychain.set("one", forKey: "k")
        try keychain.set("two", forKey: "k")

        #expect(recorder.operations == ["update", "add", "update"])
        #expect(!recorder.operations.contains("delete"))
        #expect(try keychain.string(forKey: "k") == "two")
    }

    @Test func theUpdateSendsOnlyTheValueAndProtectionNeverTheQueryKeys() throws {
        let recorder = try RecordingBackend()
        let keychain = Keychain(service: "s", backend: recorder.backend)
            .authenticationContext(AuthenticationContext(LAContext()))
        try keychain.set("one", forKey: "k")

        let update = try #require(recorder.calls.first)
        let changes = try #require(update.attributesToUpdate)
        #expect(Set(changes.keys) == [kSecValueData as String, kSecAttrAccessible as String])
        #expect(update.query[kSecAttrAccount as String] as? String == "k")
        #expect(update.query[kSecAttrService as String] as? String == "s")
        #expect(update.query[kSecMatchLimit as String] == nil)
        #expect(update.query[kSecUseAuthenticationContext as String] != nil)
    }

    @Test func aFailedUpdateKeepsThePreviousValue() throws {
        let inner = try KeychainBackend.isolated()
        try Keychain(service: "s", backend: inner).set("old", forKey: "k")
        let failing = try RecordingBackend(inner: inner) { operation, _ in
            operation == "update" ? errSecInteractionNotAllowed : nil
        }
        let keychain = Keychain(service: "s", backend: failing.backend)

        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.set("new", forKey: "k") }
        #expect(failing.operations == ["update"])
        #expect(try Keychain(service: "s", backend: inner).string(forKey: "k") == "old")
    }

    @Test func anAddThatLosesARaceRetriesTheUpdate() throws {
        let inner = try KeychainBackend.isolated()
        // Another writer adds the item between our update (not found) and our add.
        let racing = try RecordingBackend(inner: inner) { operation, index in
            guard operation == "add", index == 1 else { return nil }
            let theyWon = Keychain(service: "s", backend: inner).writeForRaceSimulation("theirs", forKey: "k")
            return theyWon ? errSecDuplicateItem : errSecIO
        }
        let keychain = Keychain(service: "s", backend: racing.backend)
        try keychain.set("ours", forKey: "k")

        #expect(racing.operations == ["update", "add", "update"])
        #expect(try keychain.string(forKey: "k") == "ours")
        #expect(try keychain.allKeys() == ["k"])
    }

    @Test func aRetryThatFailsReportsTheRetryStatus() throws {
        let failing = try RecordingBackend { operation, index in
            switch (operation, index) {
            case ("update", 0): errSecItemNotFound
            case ("add", _): errSecDuplicateItem
            case ("update", _): errSecAuthFailed
            default: nil
            }
        }
        let keychain = Keychain(service: "s", backend: failing.backend)
        #expect(throws: KeychainError.authFailed) { try keychain.set("v", forKey: "k") }
        #expect(failing.operations == ["update", "add", "update"])
    }
}

extension Keychain {
    /// Writes through a plain keychain for the race simulation; returns whether it worked.
    fileprivate func writeForRaceSimulation(_ value: String, forKey key: String) -> Bool {
        do {
            try set(value, forKey: key)
            return true
        } catch {
            return false
        }
    }
}
