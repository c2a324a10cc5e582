import Foundation
import KeychainEngine
import KeychainServices
import KeychainStore
import Testing

/// The outcome of one `SecAccessControlCreateWithFlags` call: the object, and the error code if
/// an error was reported.
private func createAccessControl(_ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags) -> (SecAccessControl?, CFIndex?) {
    var error: Unmanaged<CFError>?
    let object = SecAccessControlCreateWithFlags(nil, protection, flags, &error)
    let code = error.map { CFErrorGetCode($0.takeRetainedValue()) }
    return (object, code)
}

/// SecAccessControlCreateWithFlags and kSecAttrAccessControl in SecItem dictionaries
/// (§5, items 47–52).
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

    @Test("49 UserPresence|BiometryAny → nil; UserPresence|ApplicationPassword|PrivateKeyUsage → an object")
    func userPresenceCombinations() {
        let (refused, code) = createAccessControl(accessibleAlways, [.userPresence, .biometryAny])
        #expect(refused == nil)
        #expect(code == CFIndex(errSecParam))
        let (accepted, acceptedCode) = createAccessControl(accessibleAlways,
                                                           [.userPresence, .applicationPassword, .privateKeyUsage])
        #expect(accepted != nil)
        #expect(acceptedCode == nil)
        #expect(createAccessControl(accessibleAlways, [.userPresence, .devicePasscode]).0 == nil)
    }

    @Test("50 Or|And, BiometryAny|BiometryCurrentSet, or protection \"bogus\" → nil with errSecParam")
    func invalidCombinations() {
        let cases: [(CFString, SecAccessControlCreateFlags)] = [
            (kSecAttrAccessibleWhenUnlocked, [.or, .and, .devicePasscode]),
            (kSecAttrAccessibleWhenUnlocked, [.biometryAny, .biometryCurrentSet]),
            ("bogus" as CFString, []),
        ]
        for (protection, flags) in cases {
            let (object, code) = createAccessControl(protection, flags)
            #expect(object == nil)
            #expect(code == CFIndex(errSecParam))
        }
        // A nil error pointer is allowed.
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.or, .and], nil) == nil)
    }

    @Test("51 kSecAttrAccessible and kSecAttrAccessControl together → errSecParam (even when they agree)")
    func accessibleAndAccessControl() throws {
        let engine = try makeEngine()
        let accessControl = try #require(createAccessControl(kSecAttrAccessibleWhenUnlocked, []).0)
        #expect(engine.add(genp([kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
                                 kSecAttrAccessControl as String: accessControl])).status == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
        engine.mustAdd(genp())
        #expect(engine.update(genpQuery(), [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
                                            kSecAttrAccessControl as String: accessControl]) == errSecParam)
        #expect(text(engine.readAttributes(genpQuery()), kSecAttrAccessible) == "ak")
    }

    @Test("52 any kSecAttrAccessControl with kSecAttrSynchronizable = true → errSecParam (add and update)")
    func accessControlAndSync() throws {
        let engine = try makeEngine()
        let accessControl = try #require(createAccessControl(kSecAttrAccessibleAfterFirstUnlock, []).0)
        #expect(engine.add(genp([kSecAttrAccessControl as String: accessControl,
                                 kSecAttrSynchronizable as String: yes])).status == errSecParam)
        #expect(engine.status(genpQuery([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == errSecItemNotFound)
        // With sync = false it is an ordinary item.
        #expect(engine.add(genp([kSecAttrAccessControl as String: accessControl,
                                 kSecAttrSynchronizable as String: no])).status == errSecSuccess)
        #expect(engine.update(genpQuery(), [kSecAttrAccessControl as String: accessControl,
                                            kSecAttrSynchronizable as String: yes]) == errSecParam)
        #expect(engine.status(genpQuery()) == errSecSuccess)
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
        let passcodeOrBiometry = try #require(createAccessControl(kSecAttrAccessibleWhenUnlocked,
                                                                  [.biometryCurrentSet, .devicePasscode, .or]).0)
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
