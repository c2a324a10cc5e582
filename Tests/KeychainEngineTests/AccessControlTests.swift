import Foundation
import KeychainEngine
import KeychainServices
import KeychainStore
import KeychainVocabulary
import Testing

/// The outcome of one `SecAccessControlCreateWithFlags` call: the object, and the error code if
/// an error was reported.
private func createAccessControl(_ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags) -> (SecAccessControl?, CFIndex?) {
    var error: Unmanaged<CFError>?
    let object = SecAccessControlCreateWithFlags(nil, protection, flags, &error)
    let code = error.map { CFErrorGetCode($0.takeRetainedValue()) }
    return (object, code)
}

/// The policy SecAccessControlCreateWithFlags records and the engine enforces (§5). Items 47–52
/// as callers see them are checked through SecItem* in Tests/SecItemParityTests.
@Suite("Conformance: access control")
struct AccessControlTests {
    @Test("47 (dk, 0) → an object; a null or non-string protection → nil with errSecParam")
    func protectionValidation() throws {
        let (valid, validError) = createAccessControl(accessibleAlways, [])
        #expect(valid != nil)
        #expect(validError == nil)
        #expect(valid?.accessControlPolicy == (try AccessControlPolicy(protection: .always, flags: 0)))
        for protection in [kCFNull! as CFTypeRef, NSNumber(value: 1), NSData()] {
            let (object, code) = createAccessControl(protection, .userPresence)
            #expect(object == nil)
            #expect(code == CFIndex(errSecParam))
        }
    }

    @Test("47 every accessibility constant is a valid protection")
    func everyProtection() {
        for protection in [kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock, accessibleAlways,
                           kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                           accessibleAlwaysThisDeviceOnly, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly] {
            let (object, code) = createAccessControl(protection, [])
            #expect(object?.accessControlPolicy.protection.rawValue == protection as String)
            #expect(code == nil)
        }
    }

    @Test("48 BiometryAny|DevicePasscode with Or, or with And, and BiometryCurrentSet alone → objects")
    func validCombinations() {
        for flags: SecAccessControlCreateFlags in [[.biometryAny, .devicePasscode, .or], [.biometryAny, .devicePasscode, .and],
                                                   [.biometryCurrentSet], [.devicePasscode], [.userPresence]] {
            let (object, code) = createAccessControl(accessibleAlways, flags)
            #expect(object != nil, "flags \(flags.rawValue)")
            #expect(object?.accessControlPolicy.flags == UInt64(flags.rawValue))
            #expect(code == nil)
        }
    }

    @Test("5.3 an access control sets the item's accessibility and is returned under kSecAttrAccessControl")
    func accessControlSetsProtection() throws {
        let engine = try makeEngine()
        let accessControl = try #require(createAccessControl(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, []).0)
        let added = engine.add(genp([kSecAttrAccessControl as String: accessControl, kSecReturnAttributes as String: yes]))
        #expect(added.status == errSecSuccess)
        let attributes = try #require(engine.readAttributes(genpQuery()))
        #expect(text(attributes, kSecAttrAccessible) == "cku")
        let returned = attributes[kSecAttrAccessControl as String] as? AccessControlConvertible
        #expect(returned?.accessControlPolicy == accessControl.accessControlPolicy)
        #expect(engine.readData(genpQuery()) == bytes("secret"))
    }

    @Test("5.4 a constrained item when no prompt can be shown: kSecUseAuthenticationUIFail → errSecInteractionNotAllowed; Skip leaves it out")
    func constrainedItemWithoutUI() throws {
        let (engine, _) = try makeLockableEngine()
        let accessControl = try #require(createAccessControl(kSecAttrAccessibleWhenUnlocked, .userPresence).0)
        engine.mustAdd(genp(account: "guarded", [kSecAttrAccessControl as String: accessControl]))
        engine.mustAdd(genp(account: "plain"))
        let guarded = genpQuery(account: "guarded", [kSecReturnData as String: yes])
        let fail = engine.copyMatching(with(guarded, [kSecUseAuthenticationUI as String: authenticationUIFail]))
        #expect(fail.status == errSecInteractionNotAllowed)
        #expect(fail.value == nil)
        let noUI = engine.copyMatching(with(guarded, [noAuthenticationUI: yes]))
        #expect(noUI.status == errSecInteractionNotAllowed)
        // Prompts allowed but impossible (no pinentry): still no data.
        let allowed = engine.copyMatching(guarded)
        #expect(allowed.status == errSecInteractionNotAllowed)
        #expect(allowed.value == nil)
        // Skip leaves it out of the results and keeps the others.
        let skip: Query = [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]
        #expect(engine.copyMatching(with(guarded, skip)).status == errSecItemNotFound)
        let all = engine.copyMatching(with([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: yes,
                                            kSecMatchLimit as String: kSecMatchLimitAll], skip))
        #expect(all.value as? [Data] == [bytes("secret")])
        // Attributes alone need no authentication.
        #expect(text(engine.readAttributes(genpQuery(account: "guarded")), kSecAttrAccount) == "guarded")
    }

    @Test("5.4 kSecUseAuthenticationUISkip leaves out every item that would need authentication, biometry included")
    func skipLeavesOutBiometryItems() throws {
        let (engine, _) = try makeLockableEngine()
        let biometry = try #require(createAccessControl(kSecAttrAccessibleWhenUnlocked, .biometryAny).0)
        // .biometryAny: this keychain has no fingerprint service, so a .biometryCurrentSet item
        // would be refused when added (there is no enrolled set to bind it to).
        let passcodeOrBiometry = try #require(createAccessControl(kSecAttrAccessibleWhenUnlocked,
                                                                  [.biometryAny, .devicePasscode, .or]).0)
        engine.mustAdd(genp(account: "biometry", [kSecAttrAccessControl as String: biometry]))
        engine.mustAdd(genp(account: "either", [kSecAttrAccessControl as String: passcodeOrBiometry]))
        engine.mustAdd(genp(account: "plain", data: bytes("plain")))
        let skip: Query = [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip, kSecReturnData as String: yes]
        #expect(engine.copyMatching(genpQuery(account: "biometry", skip)).status == errSecItemNotFound)
        #expect(engine.copyMatching(genpQuery(account: "either", skip)).status == errSecItemNotFound)
        let all = engine.copyMatching(with([kSecClass as String: kSecClassGenericPassword,
                                            kSecMatchLimit as String: kSecMatchLimitAll], skip))
        #expect(all.status == errSecSuccess)
        #expect(all.value as? [Data] == [bytes("plain")])
        // Without Skip, reading the biometry item's data fails: nothing here can satisfy it.
        let direct = engine.copyMatching(genpQuery(account: "biometry", [kSecReturnData as String: yes]))
        #expect(direct.status != errSecSuccess)
        #expect(direct.value == nil)
    }
}
