import Crypto
import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

/// `KeychainBackend.observed`: one exact event per SecItem call the typed API makes, failures
/// included.
@Suite struct ObservationTests {
    /// The keys of every generic-password call of a default `Keychain` (scope + identity).
    static let genericIdentity = ["kSecAttrAccount", "kSecAttrService", "kSecAttrSynchronizable", "kSecClass", "kSecUseDataProtectionKeychain"]

    private func observedKeychain(_ recorder: EventRecorder, identifiers: KeychainEvent.IdentifierPrivacy = .private) throws -> Keychain {
        Keychain(service: "com.example.app", backend: recorder.observing(try .isolated(), identifiers: identifiers))
    }

    @Test func setOnAMissingItemIsAnUpdateThenAnAdd() throws {
        let recorder = EventRecorder()
        let keychain = try observedKeychain(recorder)
        try keychain.set("s3cret", forKey: "token")

        #expect(recorder.summary == ["update errSecItemNotFound", "add errSecSuccess"])
        let update = recorder.events[0]
        #expect(update.itemClass == .genericPassword)
        #expect(update.queryKeys == Self.genericIdentity)
        #expect(update.attributesToUpdateKeys == ["kSecAttrAccessible", "kSecValueData"])
        #expect(update.returnedItemCount == nil)
        #expect(update.identifiers == [.service: .redacted, .account: .redacted])
        let add = recorder.events[1]
        #expect(add.queryKeys == (Self.genericIdentity + ["kSecAttrAccessible", "kSecValueData"]).sorted())
        #expect(add.attributesToUpdateKeys == [])
        #expect(add.succeeded)

        recorder.removeAll()
        try keychain.set("n3w", forKey: "token")
        #expect(recorder.summary == ["update errSecSuccess"])
    }

    @Test func readingAMissingItemIsOneCopyMatchingThatFindsNothing() throws {
        let recorder = EventRecorder()
        let keychain = try observedKeychain(recorder)
        #expect(try keychain.string(forKey: "token") == nil)

        #expect(recorder.summary == ["copyMatching errSecItemNotFound"])
        let event = try #require(recorder.events.first)
        #expect(event.queryKeys == (Self.genericIdentity + ["kSecMatchLimit", "kSecReturnData"]).sorted())
        #expect(event.returnedItemCount == nil)
        #expect(event.statusName == "errSecItemNotFound")
        #expect(event.description.hasPrefix("SecItemCopyMatching genp → errSecItemNotFound (-25300) after "))
        #expect(event.description.hasSuffix(
            "; query: kSecAttrAccount, kSecAttrService, kSecAttrSynchronizable, kSecClass, kSecMatchLimit, kSecReturnData, kSecUseDataProtectionKeychain; service: <private>, account: <private>"
        ))
    }

    @Test func readsCountTheItemsTheyReturn() throws {
        let recorder = EventRecorder()
        let keychain = try observedKeychain(recorder)
        for key in ["a", "b", "c"] {
            try keychain.set("v", forKey: key)
        }
        recorder.removeAll()

        #expect(try keychain.string(forKey: "a") == "v")
        #expect(try keychain.contains("b"))
        #expect(try keychain.allKeys().sorted() == ["a", "b", "c"])
        #expect(recorder.summary == ["copyMatching errSecSuccess", "copyMatching errSecSuccess", "copyMatching errSecSuccess"])
        #expect(recorder.events.map(\.returnedItemCount) == [1, 1, 3])
        #expect(recorder.events[2].description.contains("→ errSecSuccess (0), 3 items after "))
        // allKeys names the service only.
        #expect(recorder.events[2].identifiers == [.service: .redacted])
    }

    @Test func removalsAreDeletes() throws {
        let recorder = EventRecorder()
        let keychain = try observedKeychain(recorder)
        try keychain.set("v", forKey: "k")
        recorder.removeAll()

        #expect(try keychain.removeValue(forKey: "k"))
        #expect(try !keychain.removeValue(forKey: "k"))
        try keychain.removeAll()
        #expect(recorder.summary == ["delete errSecSuccess", "delete errSecItemNotFound", "delete errSecItemNotFound"])
        #expect(recorder.events[0].queryKeys == Self.genericIdentity)
        #expect(recorder.events[0].description.hasPrefix("SecItemDelete genp → errSecSuccess (0) after "))
    }

    @Test func internetPasswordsAndPrivateKeysAreObservedWithTheirClasses() throws {
        let recorder = EventRecorder()
        let backend = recorder.observing(try .isolated(), identifiers: .public)
        let passwords = InternetPasswords(backend: backend)
        let account = InternetAccount(server: "mail.example.com", account: "alice", protocol: .imaps)
        try passwords.set("pw", for: account)
        #expect(recorder.summary == ["update errSecItemNotFound", "add errSecSuccess"])
        #expect(recorder.events.allSatisfy { $0.itemClass == .internetPassword })
        #expect(recorder.events[1].identifiers == [.server: .value("mail.example.com"), .account: .value("alice")])
        #expect(recorder.events[1].description.hasPrefix("SecItemAdd inet → errSecSuccess (0) after "))

        recorder.removeAll()
        let keychain = Keychain(service: "com.example.app", backend: backend)
        _ = try keychain.loadOrCreateSigningKey(tag: "com.example.signing")
        #expect(recorder.summary == ["copyMatching errSecItemNotFound", "add errSecSuccess"])
        #expect(recorder.events.allSatisfy { $0.itemClass == .key })
        #expect(recorder.events[1].identifiers == [.applicationTag: .value("com.example.signing")])
        #expect(recorder.events[1].queryKeys.contains("kSecAttrKeyType"))
        #expect(!recorder.events[1].queryKeys.contains("kSecAttrType"))
    }

    @Test func identifierPrivacyShowsOnlyWhatWasMadePublic() throws {
        let recorder = EventRecorder()
        let keychain = try observedKeychain(recorder, identifiers: .public(only: [.service]))
        _ = try keychain.string(forKey: "alice@example.com")

        let event = try #require(recorder.events.first)
        #expect(event.identifiers == [.service: .value("com.example.app"), .account: .redacted])
        #expect(event.description.hasSuffix("; service: \"com.example.app\", account: <private>"))
    }

    @Test func anErrorStatusFromTheBackendIsObserved() throws {
        let locked = try RecordingBackend { _, _ in errSecInteractionNotAllowed }
        let recorder = EventRecorder()
        let keychain = Keychain(service: "com.example.app", backend: recorder.observing(locked.backend))

        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.string(forKey: "token") }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.set("v", forKey: "token") }
        #expect(recorder.summary == ["copyMatching errSecInteractionNotAllowed", "update errSecInteractionNotAllowed"])
        #expect(recorder.events[0].description.hasPrefix("SecItemCopyMatching genp → errSecInteractionNotAllowed (-25308) after "))
        #expect(recorder.events.allSatisfy { !$0.succeeded && $0.returnedItemCount == nil })
    }

    @Test func aForeignAccessGroupIsObservedAsMissingEntitlement() throws {
        let recorder = EventRecorder()
        let backend = recorder.observing(try .isolated(accessGroups: ["TEAM.mine"]), identifiers: .public(only: [.accessGroup]))
        let keychain = Keychain(service: "com.example.app", accessGroup: "TEAM.theirs", backend: backend)

        #expect(throws: KeychainError.missingEntitlement) { try keychain.set("v", forKey: "k") }
        #expect(throws: KeychainError.missingEntitlement) { try keychain.string(forKey: "k") }
        #expect(recorder.summary == ["update errSecMissingEntitlement", "copyMatching errSecMissingEntitlement"])
        #expect(recorder.events.allSatisfy { $0.identifiers[.accessGroup] == .value("TEAM.theirs") })
        #expect(recorder.events[0].description.contains("→ errSecMissingEntitlement (-34018) after "))
    }

    @Test func aRequestRejectedBeforeTheKeychainMakesNoEvent() throws {
        let recorder = EventRecorder()
        let keychain = Keychain(service: "com.example.app", accessibility: .whenUnlockedThisDeviceOnly, synchronizable: true,
                                backend: recorder.observing(try .isolated()))
        #expect(throws: KeychainError.invalidArgument) { try keychain.set("v", forKey: "k") }
        #expect(recorder.events.isEmpty)
    }

    @Test func theObservedBackendReturnsWhatTheInnerOneReturns() throws {
        let plain = try KeychainBackend.isolated()
        let observed = plain.observed { _ in }
        let attributes: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "s",
            kSecAttrAccount as String: "a",
            kSecValueData as String: Data("v".utf8),
        ]
        #expect(observed.add(attributes).status == errSecSuccess)
        #expect(observed.add(attributes).status == errSecDuplicateItem)
        let read = observed.copyMatching([
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccount as String: "a",
            kSecReturnData as String: true,
        ])
        #expect(read.status == errSecSuccess)
        #expect(read.value as? Data == Data("v".utf8))
        #expect(observed.update([kSecClass as String: kSecClassGenericPassword], [kSecValueData as String: Data("w".utf8)]) == errSecSuccess)
        #expect(plain.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: true]).value as? Data == Data("w".utf8))
        #expect(observed.delete([kSecClass as String: kSecClassGenericPassword]) == errSecSuccess)
        #expect(observed.delete([kSecClass as String: kSecClassGenericPassword]) == errSecItemNotFound)
    }

    /// An observed backend sees every call only if nothing in KeychainKit calls Security's item
    /// functions around it: a new API that did would escape observation (and isolation in tests).
    @Test func onlyTheBackendCallsTheSecItemFunctions() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources/KeychainKit")
        let call = try Regex(#"\bSecItem(Add|CopyMatching|Update|Delete)\s*\("#)
        var callers: [String: Int] = [:]
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
        while let relative = files.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                callers[relative, default: 0] += line.matches(of: call).count
            }
        }
        #expect(callers.filter { $0.value > 0 } == ["Backend/KeychainBackend.swift": 4])
    }

    @Test func anUnknownKeyIsQuotedAndEscapedSoTheLogLineStaysOneLine() throws {
        let recorder = EventRecorder()
        let backend = recorder.observing(try .isolated(), identifiers: .public)
        _ = backend.copyMatching([
            kSecClass as String: kSecClassGenericPassword,
            "forged\nSecItemDelete genp → errSecSuccess (0)": true,
            kSecAttrAccount as String: "alice\nSecItemAdd",
        ])
        let event = try #require(recorder.events.first)
        #expect(event.queryKeys == ["\"forged\\nSecItemDelete genp → errSecSuccess (0)\"", "kSecAttrAccount", "kSecClass"])
        #expect(event.identifiers == [.account: .value("alice\nSecItemAdd")])
        #expect(!event.description.contains("\n"))
        #expect(!event.debugDescription.contains("\n"))
        #expect(event.description.contains("account: \"alice\\nSecItemAdd\""))
    }

    @Test func descriptionsFormatDurationsAndUnnamedCodes() {
        func event(_ duration: Duration, status: OSStatus = errSecSuccess) -> KeychainEvent {
            KeychainEvent(operation: .delete, itemClass: nil, status: status, duration: duration, queryKeys: ["kSecClass"])
        }
        #expect(event(.microseconds(850)).description == "SecItemDelete → errSecSuccess (0) after 850 µs; query: kSecClass")
        #expect(event(.microseconds(2_140)).description.contains("after 2.1 ms;"))
        #expect(event(.milliseconds(1_234)).description.contains("after 1.23 s;"))
        #expect(event(.milliseconds(1_005)).description.contains("after 1.00 s;"))
        #expect(event(.microseconds(999_999)).description.contains("after 999.9 ms;"))
        #expect(event(.seconds(Int64.max)).description.contains("after 9223372036854775807.00 s;"))
        #expect(event(.milliseconds(-3)).description.contains("after -0.003 seconds;"))
        #expect(event(.zero, status: 12345).description.contains("→ OSStatus 12345 after 0 µs"))
        #expect(event(.zero, status: 12345).statusName == nil)
    }
}
