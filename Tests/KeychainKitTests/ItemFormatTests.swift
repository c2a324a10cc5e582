import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

/// Items are ordinary generic passwords that other keychain code reads and writes.
@Suite struct ItemFormatTests {
    @Test func writtenItemsAreGenericPasswordsNamedByServiceAndAccount() throws {
        let keychain = try isolatedKeychain(service: "com.example.app")
        try keychain.set("s3cret", forKey: "password")

        let response = keychain.backend.copyMatching([
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.app",
            kSecAttrAccount as String: "password",
            kSecReturnData as String: true,
        ])
        #expect(response.status == errSecSuccess)
        #expect(response.value as? Data == Data("s3cret".utf8))
    }

    @Test func itemsWrittenByOtherKeychainCodeAreRead() throws {
        let keychain = try isolatedKeychain(service: "com.example.app")
        let status = keychain.backend.add([
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.app",
            kSecAttrAccount as String: "legacy",
            kSecValueData as String: Data("from-elsewhere".utf8),
        ]).status
        #expect(status == errSecSuccess)

        #expect(try keychain.string(forKey: "legacy") == "from-elsewhere")
        #expect(try keychain.allKeys() == ["legacy"])
        try keychain.set("rewritten", forKey: "legacy")
        #expect(try keychain.string(forKey: "legacy") == "rewritten")
        #expect(try keychain.allKeys() == ["legacy"])
    }

    @Test func defaultAccessibilityIsAfterFirstUnlockThisDeviceOnly() throws {
        let keychain = try isolatedKeychain()
        try keychain.set("v", forKey: "k")
        let attributes = try #require(rawAttributes(of: "k", in: keychain))
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
    }

    @Test(arguments: Accessibility.allCases.filter { $0 != .whenPasscodeSetThisDeviceOnly })
    func explicitAccessibilityIsStored(_ accessibility: Accessibility) throws {
        let keychain = try isolatedKeychain(accessibility: accessibility)
        try keychain.set("v", forKey: "k")
        let attributes = try #require(rawAttributes(of: "k", in: keychain))
        let stored = try #require(attributes[kSecAttrAccessible as String] as? String)
        #expect(Accessibility(attributeValue: stored) == accessibility)
    }

    @Test func passcodeClassNeedsAPasscodeAsOnADeviceWithout() throws {
        // An isolated keychain has no password, like a device without a passcode: Apple refuses
        // WhenPasscodeSet items there with errSecNotAvailable, and the error says so.
        let keychain = try isolatedKeychain(accessibility: .whenPasscodeSetThisDeviceOnly)
        #expect(throws: KeychainError.notAvailable) { try keychain.set("v", forKey: "k") }
    }

    @Test func rewritingWithAnotherClassMovesTheItemToIt() throws {
        let backend = try KeychainBackend.isolated()
        try Keychain(service: "s", accessibility: .whenUnlocked, backend: backend).set("v1", forKey: "k")
        let later = Keychain(service: "s", accessibility: .afterFirstUnlock, backend: backend)
        try later.set("v2", forKey: "k")

        let attributes = try #require(rawAttributes(of: "k", in: later))
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
        #expect(try later.allKeys() == ["k"])
    }

    @Test func accessibilityRoundTripsThroughItsAttributeValue() {
        for accessibility in Accessibility.allCases {
            #expect(Accessibility(attributeValue: accessibility.attributeValue as String) == accessibility)
        }
        #expect(Accessibility(attributeValue: "dk") == nil)
        #expect(Accessibility.allCases.filter(\.isThisDeviceOnly).count == 3)
    }
}
