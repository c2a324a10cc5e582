import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

@Suite struct AccessControlTests {
    @Test func constraintsCombineIntoApplesFlags() {
        let either = AccessControl.biometryCurrentSet.or(.devicePasscode)
        #expect(either.flags == [.biometryCurrentSet, .devicePasscode, .or])
        let both = AccessControl.biometryAny.and(.applicationPassword)
        #expect(both.flags == [.biometryAny, .applicationPassword, .and])
        #expect(AccessControl.userPresence.flags == .userPresence)
        #expect(AccessControl.none.flags.isEmpty)
        #expect(AccessControl(.devicePasscode) == .devicePasscode)
        #expect(either.description == "biometryCurrentSet|devicePasscode|or")
    }

    @Test func validCombinationsMakeASecAccessControl() throws {
        for accessControl in [AccessControl.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode,
                              .applicationPassword, .none, .biometryAny.or(.devicePasscode),
                              .biometryCurrentSet.and(.devicePasscode)] {
            _ = try accessControl.makeSecAccessControl(accessibility: .whenUnlockedThisDeviceOnly)
        }
    }

    @Test func invalidCombinationsAreRejectedBySecurityWithParam() {
        let orAndAnd = AccessControl(rawFlags: AccessControl.devicePasscode.or(.biometryAny).and(.biometryAny).rawFlags)
        for accessControl in [orAndAnd, .biometryAny.and(.biometryCurrentSet), .userPresence.or(.biometryAny)] {
            #expect(throws: KeychainError.param) {
                try accessControl.makeSecAccessControl(accessibility: .whenUnlocked)
            }
        }
    }

    @Test func anAccessControlledItemIsStoredWithItsPolicyAndReadBack() throws {
        let recorder = try RecordingBackend()
        let keychain = Keychain(service: "vault", accessibility: .whenUnlockedThisDeviceOnly, backend: recorder.backend)
            .accessControl(.biometryAny.or(.devicePasscode))
        try keychain.set("card-number", forKey: "card")

        let add = try #require(recorder.calls.first { $0.operation == "add" })
        #expect(add.query[kSecAttrAccessControl as String] != nil)
        #expect(add.query[kSecAttrAccessible as String] == nil)
        let attributes = try #require(rawAttributes(of: "card", in: keychain))
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String)
        #expect(attributes[kSecAttrAccessControl as String] != nil)

        // Overwriting carries the policy again, and — like reading — needs the item's own
        // constraint satisfied first: with no finger reader and no passcode prompt here, the
        // update is refused and the item keeps its value and its policy.
        let error = #expect(throws: KeychainError.self) { try keychain.set("new-card-number", forKey: "card") }
        #expect(error?.status == errSecAuthFailed || error?.status == errSecInteractionNotAllowed, "\(String(describing: error))")
        let update = try #require(recorder.calls.last { $0.operation == "update" })
        #expect(update.attributesToUpdate?[kSecAttrAccessControl as String] != nil)
        #expect(update.attributesToUpdate?[kSecAttrAccessible as String] == nil)
        #expect(try keychain.contains("card"))
        #expect(try rawAttributes(of: "card", in: keychain)?[kSecAttrAccessControl as String] != nil)
    }

    @Test func biometryCurrentSetWithoutAnEnrolledFingerIsRefusedWithItsReasonAndNothingIsStored() throws {
        // The isolated keychain has no fingerprint service: there is no enrolled set to bind to.
        let keychain = Keychain(service: "vault", accessibility: .whenUnlockedThisDeviceOnly, backend: try .isolated())
        for accessControl in [AccessControl.biometryCurrentSet, .biometryCurrentSet.or(.devicePasscode)] {
            let guarded = keychain.accessControl(accessControl)
            let error = #expect(throws: KeychainError.self) { try guarded.set("card-number", forKey: "card") }
            #expect(error == .authFailed)
            let reason = error?.reason ?? ""
            #expect(reason.contains("no fingerprint service (fprintd) answered"), "\(reason)")
            #expect(reason.contains(".biometryAny") && reason.contains(".userPresence"), "\(reason)")
            #expect(!reason.contains("card-number"))
            #expect(try !keychain.contains("card"))
        }
        // Updating a stored value to such a policy is refused too, and the value stays as it was.
        try keychain.set("card-number", forKey: "card")
        let before = try #require(rawAttributes(of: "card", in: keychain))
        let error = #expect(throws: KeychainError.self) {
            try keychain.accessControl(.biometryCurrentSet).set("new-card-number", forKey: "card")
        }
        #expect(error == .authFailed)
        #expect(try keychain.string(forKey: "card") == "card-number")
        let after = try #require(rawAttributes(of: "card", in: keychain))
        // The same (empty) access control and the same modification date: nothing was written.
        #expect(String(describing: after[kSecAttrAccessControl as String]) == String(describing: before[kSecAttrAccessControl as String]))
        #expect(after[kSecAttrModificationDate as String] as? Date == before[kSecAttrModificationDate as String] as? Date)
    }

    @Test func accessControlCannotBeCombinedWithSynchronization() throws {
        let recorder = try RecordingBackend()
        let keychain = Keychain(service: "s", synchronizable: true, backend: recorder.backend).accessControl(.userPresence)
        let error = #expect(throws: KeychainError.self) { try keychain.set("v", forKey: "k") }
        #expect(error == .invalidArgument)
        #expect(error?.context?.contains("access control") == true)
        #expect(recorder.calls.isEmpty)
    }

    @Test func oneAuthenticationContextIsPassedWithEveryCallButNeverAsAnAttributeToUpdate() throws {
        let recorder = try RecordingBackend()
        let laContext = LAContext()
        let context = AuthenticationContext(laContext)
        let keychain = Keychain(service: "s", backend: recorder.backend).authenticationContext(context)
        try keychain.set("v", forKey: "k")
        _ = try keychain.string(forKey: "k")
        _ = try keychain.contains("k")
        _ = try keychain.removeValue(forKey: "k")

        #expect(recorder.calls.count == 5)
        for call in recorder.calls {
            #expect(call.query[kSecUseAuthenticationContext as String] as? LAContext === laContext)
            #expect(call.attributesToUpdate?[kSecUseAuthenticationContext as String] == nil)
        }
        #expect(keychain.authenticationContext === context)
    }

    @Test func promptTextGoesToTheContextsLocalizedReason() {
        let context = AuthenticationContext(reason: "Unlock your saved cards")
        #expect(context.laContext.localizedReason == "Unlock your saved cards")
        #expect(AuthenticationContext.nonInteractive().laContext.interactionNotAllowed)
    }

    @Test func anApplicationPasswordItemNeedsThePasswordOnTheContext() throws {
        let backend = try KeychainBackend.isolated()
        let laContext = LAContext()
        #expect(laContext.setCredential(Data("app-password".utf8), type: .applicationPassword))
        let keychain = Keychain(service: "s", accessibility: .whenUnlockedThisDeviceOnly, backend: backend)
            .accessControl(.applicationPassword)
            .authenticationContext(AuthenticationContext(laContext))
        try keychain.set("guarded", forKey: "k")

        #expect(try keychain.string(forKey: "k") == "guarded")
        let withoutPassword = keychain.authenticationContext(.nonInteractive())
        #expect(throws: KeychainError.self) { try withoutPassword.string(forKey: "k") }
    }
}
