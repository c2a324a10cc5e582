// Accessibility and SecAccessControl: defaults, validation, and the items they protect, observed
// without a prompt (a prompt cannot be answered in a test run).

import Foundation
import KeychainServices
import Testing

/// One `SecAccessControlCreateWithFlags` call: the object, and the error code if one was reported.
private func createAccessControl(_ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags) -> (SecAccessControl?, CFIndex?) {
    var error: Unmanaged<CFError>?
    let object = SecAccessControlCreateWithFlags(nil, protection, flags, &error)
    return (object, error.map { CFErrorGetCode($0.takeRetainedValue()) })
}

extension SecItemParity {
    @Suite("Accessibility and access control")
    struct AccessControl {
        @Test("54 a password added without accessibility is kSecAttrAccessibleWhenUnlocked, returned with its attributes and searchable")
        func defaultAccessibility() throws {
            let keychain = try ParityKeychain()
            let added = keychain.add(keychain.password("a", [kSecReturnAttributes: true]))
            #expect(text(added.result as? [String: Any], kSecAttrAccessible) == kSecAttrAccessibleWhenUnlocked as String)
            keychain.mustAdd(keychain.internetPassword())
            #expect(text(keychain.attributes(keychain.internetPassword()), kSecAttrAccessible) == kSecAttrAccessibleWhenUnlocked as String)
            keychain.mustAdd(keychain.password("ck", [kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock]))
            #expect(text(keychain.attributes(keychain.password("ck")), kSecAttrAccessible) == kSecAttrAccessibleAfterFirstUnlock as String)
            #expect(keychain.count(keychain.everyPassword([kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock])) == 1)
            // Every item reports an access control object, even one made without.
            let accessControl = try #require(keychain.attributes(keychain.password("a"))?[kSecAttrAccessControl as String] as AnyObject?)
            #expect(CFGetTypeID(accessControl) == SecAccessControlGetTypeID())
        }

        @Test("§4 every accessibility value is stored and returned as given, and selects its items")
        func everyAccessibility() throws {
            let keychain = try ParityKeychain(passcode: true)
            let values = [kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                          kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly]
            for (index, value) in values.enumerated() {
                #expect(keychain.add(keychain.password("\(index)", [kSecAttrAccessible: value, kSecValueData: bytes("\(index)")])).status == errSecSuccess,
                        "\(value)")
                #expect(text(keychain.attributes(keychain.password("\(index)")), kSecAttrAccessible) == value as String)
                #expect(keychain.data(keychain.password("\(index)")) == bytes("\(index)"))
                #expect(keychain.count(keychain.everyPassword([kSecAttrAccessible: value])) == 1)
            }
        }

        @Test("47 every accessibility value is a valid protection with no flags; a null, number or data protection is nil with errSecParam")
        func protections() {
            for protection in [kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                               kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly] {
                let (object, code) = createAccessControl(protection, [])
                #expect(object != nil, "\(protection)")
                #expect(code == nil)
            }
            for protection in [kCFNull! as CFTypeRef, NSNumber(value: 1), NSData()] {
                let (object, code) = createAccessControl(protection, .userPresence)
                #expect(object == nil)
                #expect(code == CFIndex(errSecParam))
            }
        }

        @Test("48 biometry or passcode with Or, with And, and BiometryCurrentSet, DevicePasscode or UserPresence alone are valid")
        func validCombinations() {
            for flags: SecAccessControlCreateFlags in [[.biometryAny, .devicePasscode, .or], [.biometryAny, .devicePasscode, .and],
                                                       [.biometryCurrentSet], [.devicePasscode], [.userPresence]] {
                let (object, code) = createAccessControl(kSecAttrAccessibleWhenUnlocked, flags)
                #expect(object != nil, "flags \(flags.rawValue)")
                #expect(code == nil)
            }
        }

        @Test("49 UserPresence with BiometryAny is nil; with ApplicationPassword and PrivateKeyUsage it is valid")
        func userPresenceCombinations() {
            let (refused, code) = createAccessControl(kSecAttrAccessibleWhenUnlocked, [.userPresence, .biometryAny])
            #expect(refused == nil)
            #expect(code == CFIndex(errSecParam))
            let (accepted, acceptedCode) = createAccessControl(kSecAttrAccessibleWhenUnlocked, [.userPresence, .applicationPassword, .privateKeyUsage])
            #expect(accepted != nil)
            #expect(acceptedCode == nil)
            #expect(createAccessControl(kSecAttrAccessibleWhenUnlocked, [.userPresence, .devicePasscode]).0 == nil)
        }

        @Test("50 Or with And, BiometryAny with BiometryCurrentSet, or the protection \"bogus\" are nil with errSecParam")
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
            #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.or, .and], nil) == nil)
        }

        @Test("51 kSecAttrAccessible and kSecAttrAccessControl together are errSecParam in add and update, even when they agree")
        func accessibleAndAccessControl() throws {
            let keychain = try ParityKeychain()
            let accessControl = try #require(createAccessControl(kSecAttrAccessibleWhenUnlocked, []).0)
            #expect(keychain.add(keychain.password("a", [kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked,
                                                         kSecAttrAccessControl: accessControl])).status == errSecParam)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.update(keychain.password("a"), [kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock,
                                                             kSecAttrAccessControl: accessControl]) == errSecParam)
            #expect(text(keychain.attributes(keychain.password("a")), kSecAttrAccessible) == kSecAttrAccessibleWhenUnlocked as String)
        }

        @Test("52 an access control with kSecAttrSynchronizable = true is errSecParam in add and update; with false it is an ordinary item")
        func accessControlAndSynchronizable() throws {
            let keychain = try ParityKeychain()
            let accessControl = try #require(createAccessControl(kSecAttrAccessibleAfterFirstUnlock, []).0)
            #expect(keychain.add(keychain.password("a", [kSecAttrAccessControl: accessControl, kSecAttrSynchronizable: true])).status == errSecParam)
            #expect(keychain.status(keychain.password("a", [kSecAttrSynchronizable: kSecAttrSynchronizableAny])) == errSecItemNotFound)
            #expect(keychain.add(keychain.password("a", [kSecAttrAccessControl: accessControl, kSecAttrSynchronizable: false])).status == errSecSuccess)
            #expect(keychain.update(keychain.password("a"), [kSecAttrAccessControl: accessControl, kSecAttrSynchronizable: true]) == errSecParam)
            #expect(keychain.status(keychain.password("a")) == errSecSuccess)
        }

        @Test("5.3 an access control sets the item's accessibility; the item reads without a prompt when it has no constraint")
        func accessControlSetsAccessibility() throws {
            let keychain = try ParityKeychain()
            let accessControl = try #require(createAccessControl(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, []).0)
            keychain.mustAdd(keychain.password("a", [kSecAttrAccessControl: accessControl, kSecValueData: bytes("secret")]))
            let attributes = try #require(keychain.attributes(keychain.password("a")))
            #expect(text(attributes, kSecAttrAccessible) == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
            #expect(keychain.data(keychain.password("a")) == bytes("secret"))
        }

        @Test("5.4 a user-presence item when no prompt may be shown: errSecInteractionNotAllowed and no data; Skip leaves it out; its attributes need no prompt")
        func constrainedItemWithoutInteraction() throws {
            let keychain = try ParityKeychain(passcode: true)
            let accessControl = try #require(createAccessControl(kSecAttrAccessibleWhenUnlocked, .userPresence).0)
            keychain.mustAdd(keychain.password("guarded", [kSecAttrAccessControl: accessControl, kSecValueData: bytes("guarded")]))
            keychain.mustAdd(keychain.password("plain", [kSecValueData: bytes("plain")]))
            let context = LAContext()
            context.interactionNotAllowed = true
            let refused = keychain.copy(keychain.password("guarded", [kSecReturnData: true, kSecUseAuthenticationContext: context]))
            #expect(refused.status == errSecInteractionNotAllowed)
            #expect(refused.result == nil)
            let skip: [CFString: Any] = [kSecUseAuthenticationUI: kSecUseAuthenticationUISkip, kSecReturnData: true]
            #expect(keychain.status(keychain.password("guarded", skip)) == errSecItemNotFound)
            let all = keychain.copy(keychain.everyPassword(skip.merging([kSecMatchLimit: kSecMatchLimitAll]) { $1 }))
            #expect(all.result as? [Data] == [bytes("plain")])
            #expect(text(keychain.attributes(keychain.password("guarded")), kSecAttrAccount) == "guarded")
        }

        @Test("46 an application-password item reads with the right credential; a wrong one is errSecAuthFailed; without one, and without a prompt, it gives no data")
        func applicationPassword() throws {
            let keychain = try ParityKeychain()
            let accessControl = try #require(createAccessControl(kSecAttrAccessibleWhenUnlocked, .applicationPassword).0)
            let writer = LAContext()
            #expect(writer.setCredential(bytes("app-password"), type: .applicationPassword))
            keychain.mustAdd(keychain.password("a", [kSecAttrAccessControl: accessControl, kSecValueData: bytes("sealed"),
                                                     kSecUseAuthenticationContext: writer]))
            let reader = LAContext()
            #expect(reader.setCredential(bytes("app-password"), type: .applicationPassword))
            #expect(keychain.data(keychain.password("a", [kSecUseAuthenticationContext: reader])) == bytes("sealed"))
            // The wrong password: the authentication fails.
            let wrong = LAContext()
            #expect(wrong.setCredential(bytes("not-the-app-password"), type: .applicationPassword))
            let failed = keychain.copy(keychain.password("a", [kSecReturnData: true, kSecUseAuthenticationContext: wrong]))
            #expect(failed.status == errSecAuthFailed)
            #expect(failed.result == nil)
            let noCredential = LAContext()
            noCredential.interactionNotAllowed = true
            let refused = keychain.copy(keychain.password("a", [kSecReturnData: true, kSecUseAuthenticationContext: noCredential]))
            #expect(refused.status != errSecSuccess)
            #expect(refused.result == nil)
            #expect(text(keychain.attributes(keychain.password("a")), kSecAttrAccount) == "a")
        }
    }

    @Suite("Error messages")
    struct ErrorMessages {
        @Test("71 SecCopyErrorMessageString gives Apple's text for the SecItem statuses and \"OSStatus <n>\" for an unknown code")
        func messages() {
            let expected: [(OSStatus, String)] = [
                (errSecSuccess, "No error."),
                (errSecUnimplemented, "Function or operation not implemented."),
                (errSecParam, "One or more parameters passed to a function were not valid."),
                (errSecNotAvailable, "No keychain is available. You may need to restart your computer."),
                (errSecAuthFailed, "The user name or passphrase you entered is not correct."),
                (errSecDuplicateItem, "The specified item already exists in the keychain."),
                (errSecItemNotFound, "The specified item could not be found in the keychain."),
                (errSecNoSuchAttr, "The specified attribute does not exist."),
                (errSecNoSuchClass, "The specified item does not appear to be a valid keychain item."),
                (errSecInteractionNotAllowed, "User interaction is not allowed."),
                (errSecDecode, "Unable to decode the provided data."),
                (errSecMissingEntitlement, "A required entitlement isn't present."),
            ]
            for (status, message) in expected {
                #expect(SecCopyErrorMessageString(status, nil) as String? == message, "\(status)")
            }
            #expect(SecCopyErrorMessageString(12345, nil) as String? == "OSStatus 12345")
        }
    }
}
