// The vocabulary of KeychainServices (constants, result codes and texts, CF shims, random
// bytes, LocalAuthentication types): values as Apple defines them, and call shapes that
// iOS keychain code uses compiling unchanged.

import KeychainServices
import Testing

@Suite("Keychain Services vocabulary")
struct VocabularyTests {
    // MARK: kSec… constants

    @Test("item classes and common keys have Apple's string values")
    func itemClassesAndKeys() {
        #expect(kSecClass as String == "class")
        #expect(kSecClassGenericPassword as String == "genp")
        #expect(kSecClassInternetPassword as String == "inet")
        #expect(kSecClassCertificate as String == "cert")
        #expect(kSecClassKey as String == "keys")
        #expect(kSecClassIdentity as String == "idnt")
        #expect(kSecAttrAccount as String == "acct")
        #expect(kSecAttrService as String == "svce")
        #expect(kSecAttrAccessGroup as String == "agrp")
        #expect(kSecAttrAccessible as String == "pdmn")
        #expect(kSecAttrAccessControl as String == "accc")
        #expect(kSecAttrSynchronizable as String == "sync")
        #expect(kSecAttrSynchronizableAny as String == "syna")
        #expect(kSecAttrServer as String == "srvr")
        #expect(kSecAttrProtocol as String == "ptcl")
        #expect(kSecAttrAuthenticationType as String == "atyp")
        #expect(kSecAttrPort as String == "port")
        #expect(kSecAttrPath as String == "path")
        #expect(kSecAttrSecurityDomain as String == "sdmn")
        #expect(kSecAttrComment as String == "icmt")
        #expect(kSecAttrGeneric as String == "gena")
        #expect(kSecAttrCreator as String == "crtr")
        #expect(kSecAttrApplicationTag as String == "atag")
        #expect(kSecAttrPersistentReference as String == "persistref")
        #expect(kSecAttrPersistantReference as String == "persistref")
    }

    @Test("accessibility values")
    func accessibilityValues() {
        #expect(kSecAttrAccessibleWhenUnlocked as String == "ak")
        #expect(kSecAttrAccessibleAfterFirstUnlock as String == "ck")
        #expect(kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String == "aku")
        #expect(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String == "cku")
        #expect(kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String == "akpu")
    }

    @Test("protocol codes keep their trailing spaces", arguments: [
        (kSecAttrProtocolFTP as String, "ftp "), (kSecAttrProtocolSMB as String, "smb "),
        (kSecAttrProtocolSSH as String, "ssh "), (kSecAttrProtocolSOCKS as String, "sox "),
        (kSecAttrProtocolIRC as String, "irc "), (kSecAttrProtocolAFP as String, "afp "),
        (kSecAttrProtocolIPP as String, "ipp "), (kSecAttrProtocolHTTPS as String, "htps"),
        (kSecAttrProtocolHTTP as String, "http"), (kSecAttrProtocolPOP3S as String, "pops"),
        (kSecAttrProtocolHTTPSProxy as String, "htsx"),
    ])
    func protocolValues(constant: String, value: String) {
        #expect(constant == value)
        #expect(constant.utf8.count == 4)
    }

    @Test("authentication types, key classes and key types")
    func authenticationAndKeyValues() {
        #expect(kSecAttrAuthenticationTypeDefault as String == "dflt")
        #expect(kSecAttrAuthenticationTypeHTMLForm as String == "form")
        #expect(kSecAttrAuthenticationTypeHTTPBasic as String == "http")
        #expect(kSecAttrAuthenticationTypeHTTPDigest as String == "httd")
        #expect(kSecAttrAuthenticationTypeNTLM as String == "ntlm")
        #expect(kSecAttrKeyClassPublic as String == "0")
        #expect(kSecAttrKeyClassPrivate as String == "1")
        #expect(kSecAttrKeyClassSymmetric as String == "2")
        #expect(kSecAttrKeyTypeRSA as String == "42")
        #expect(kSecAttrKeyTypeECSECPrimeRandom as String == "73")
        #expect(kSecAttrKeyTypeAES as String == "2147483649")
    }

    @Test("match, return, value and use keys")
    func queryKeys() {
        #expect(kSecMatchLimit as String == "m_Limit")
        #expect(kSecMatchLimitOne as String == "m_LimitOne")
        #expect(kSecMatchLimitAll as String == "m_LimitAll")
        #expect(kSecMatchSearchList as String == "m_SearchList")
        #expect(kSecMatchHostOrSubdomainOfHost as String == "m_HostOrSubdomainOfHost")
        #expect(kSecReturnData as String == "r_Data")
        #expect(kSecReturnAttributes as String == "r_Attributes")
        #expect(kSecReturnRef as String == "r_Ref")
        #expect(kSecReturnPersistentRef as String == "r_PersistentRef")
        #expect(kSecValueData as String == "v_Data")
        #expect(kSecValueRef as String == "v_Ref")
        #expect(kSecValuePersistentRef as String == "v_PersistentRef")
        #expect(kSecUseDataProtectionKeychain as String == "nleg")
        #expect(kSecUseKeychain as String == "u_Keychain")
        #expect(kSecUseItemList as String == "u_ItemList")
        #expect(kSecUseAuthenticationContext as String == "u_AuthCtx")
        #expect(kSecUseAuthenticationUI as String == "u_AuthUI")
        #expect(kSecUseAuthenticationUISkip as String == "u_AuthUIS")
        #expect(kSecAttrTokenIDSecureEnclave as String == "com.apple.setoken")
        #expect(kSecAttrAccessGroupToken as String == "com.apple.token")
    }

    // MARK: Dictionaries as iOS code writes them

    @Test("[CFString: Any] and [String: Any] queries bridge to CFDictionary")
    func dictionaryLiterals() throws {
        let cfKeyed: [CFString: Any] = [
            kSecClass: kSecClassGenericPassword,
            kSecAttrAccount: "alice",
            kSecReturnData: kCFBooleanTrue as Any,
        ]
        let stringKeyed: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "example.com",
            kSecReturnData as String: kCFBooleanTrue!,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        let fromCF = cfKeyed as CFDictionary
        let fromString = stringKeyed as CFDictionary

        #expect(fromCF[kSecAttrAccount] as? String == "alice")
        #expect(fromCF[kSecReturnData] as? Bool == true)
        #expect(fromString[kSecClass as String] as? String == "genp")
        #expect(fromString[kSecReturnData as String] as? Bool == true)
        #expect(fromString[kSecMatchLimit as String] as? String == "m_LimitOne")
        let back = try #require(fromString as? [String: Any])
        #expect(back[kSecAttrService as String] as? String == "example.com")
    }

    @Test("kCFBooleanTrue and kCFBooleanFalse are booleans, distinct from numbers")
    func booleans() {
        #expect(kCFBooleanTrue.boolValue)
        #expect(!kCFBooleanFalse.boolValue)
        #expect(CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(true as NSNumber) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(NSNumber(value: 1)) == CFNumberGetTypeID())
        #expect(CFBooleanGetTypeID() != CFNumberGetTypeID())
    }

    @Test("CFGetTypeID tells results apart")
    func typeIdentifiers() {
        #expect(CFGetTypeID(Data([1, 2]) as CFData) == CFDataGetTypeID())
        #expect(CFGetTypeID(NSMutableData()) == CFDataGetTypeID())
        #expect(CFGetTypeID("x" as CFString) == CFStringGetTypeID())
        #expect(CFGetTypeID(["k": 1] as CFDictionary) == CFDictionaryGetTypeID())
        #expect(CFGetTypeID([1] as CFArray) == CFArrayGetTypeID())
        #expect(CFGetTypeID(kCFNull) == CFNullGetTypeID())
        #expect(CFGetTypeID(NSObject()) == CFGetTypeID(NSObject()))
        #expect(CFGetTypeID(NSObject()) != CFDataGetTypeID())
    }

    // MARK: Result codes and messages

    @Test("errSec codes have Apple's values")
    func statusValues() {
        #expect(errSecSuccess == 0)
        #expect(errSecUnimplemented == -4)
        #expect(errSecParam == -50)
        #expect(errSecAllocate == -108)
        #expect(errSecUserCanceled == -128)
        #expect(errSecNotAvailable == -25291)
        #expect(errSecAuthFailed == -25293)
        #expect(errSecDuplicateItem == -25299)
        #expect(errSecItemNotFound == -25300)
        #expect(errSecNoSuchAttr == -25303)
        #expect(errSecNoSuchClass == -25306)
        #expect(errSecInteractionNotAllowed == -25308)
        #expect(errSecDecode == -26275)
        #expect(errSecMissingEntitlement == -34018)
        #expect(errSecRestrictedAPI == -34020)
        #expect(errSecMissingQualifiedCertStatement == -67904)
        #expect(errSSLProtocol == -9800)
    }

    @Test("SecCopyErrorMessageString gives Apple's texts", arguments: [
        (OSStatus(0), "No error."),
        (-50, "One or more parameters passed to a function were not valid."),
        (-25299, "The specified item already exists in the keychain."),
        (-25300, "The specified item could not be found in the keychain."),
        (-25308, "User interaction is not allowed."),
        (-34018, "A required entitlement isn't present."),
        (-25291, "No keychain is available. You may need to restart your computer."),
        (-2070, "errSecInternalComponent"),
        (-9800, "SSL protocol error"),
    ])
    func messages(status: OSStatus, text: String) {
        #expect(SecCopyErrorMessageString(status, nil) as String? == text)
    }

    @Test("unknown codes fall back to \"OSStatus <n>\"")
    func unknownMessage() {
        #expect(SecCopyErrorMessageString(12345, nil) as String? == "OSStatus 12345")
        #expect(SecCopyErrorMessageString(-1, nil) as String? == "OSStatus -1")
    }

    // MARK: CFError

    @Test("CFErrorCreate / CFErrorGetCode / CFErrorGetDomain round trip")
    func cfErrorRoundTrip() throws {
        let info = ["detail": "none found"] as CFDictionary
        let error: CFError = try #require(
            CFErrorCreate(kCFAllocatorDefault, kCFErrorDomainOSStatus, CFIndex(errSecItemNotFound), info)
        )
        #expect(CFErrorGetCode(error) == -25300)
        #expect(CFErrorGetDomain(error) as String? == "NSOSStatusErrorDomain")
        #expect(CFErrorCopyUserInfo(error)?["detail"] as? String == "none found")
        #expect(CFErrorCopyDescription(error) != nil)
        #expect(CFErrorCreate(nil, nil, 1, nil) == nil)
    }

    @Test("Unmanaged<CFError> out-parameters work as on Apple platforms")
    func unmanagedOutError() throws {
        func failing(_ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> Bool {
            let made = CFErrorCreate(nil, kCFErrorDomainOSStatus, CFIndex(errSecParam), nil)
            if let made { error?.pointee = Unmanaged.passRetained(made) }
            return false
        }
        var error: Unmanaged<CFError>?
        #expect(!failing(&error))
        let cfError = try #require(error?.takeRetainedValue())
        let swiftError = cfError as Error
        #expect((swiftError as NSError).code == Int(errSecParam))
    }

    // MARK: SecRandomCopyBytes

    @Test("SecRandomCopyBytes fills buffers, differently each call")
    func randomBytes() {
        var first = [UInt8](repeating: 0, count: 32)
        var second = [UInt8](repeating: 0, count: 32)
        #expect(SecRandomCopyBytes(kSecRandomDefault, first.count, &first) == errSecSuccess)
        #expect(SecRandomCopyBytes(kSecRandomDefault, second.count, &second) == errSecSuccess)
        #expect(first != second)
        // Non-optional as on Apple: nil and kSecRandomDefault both name the one generator.
        #expect(SecRandomCopyBytes(nil, first.count, &first) == errSecSuccess)
        #expect(first != second)
    }

    @Test("noErr and DarwinBoolean as Apple's Darwin overlay declares them")
    func darwinTypes() {
        let status: OSStatus = noErr
        #expect(status == errSecSuccess)
        let yes: DarwinBoolean = true
        let no = DarwinBoolean(false)
        #expect(yes.boolValue && !no.boolValue)
        #expect(yes != no && yes == DarwinBoolean(true))
        #expect("\(yes) \(no)" == "true false")
        // The legacy keychain settings take C Booleans and the Int32 version macro, as on macOS.
        let settings = SecKeychainSettings(version: UInt32(SEC_KEYCHAIN_SETTINGS_VERS1), lockOnSleep: true, useLockInterval: false, lockInterval: 5)
        #expect(settings.version == 1 && settings.lockOnSleep.boolValue && !settings.useLockInterval.boolValue)
        #expect(SecKeychainSettings().lockOnSleep == false)
    }

    @Test("SecRandomCopyBytes fills requests larger than one chunk, and rejects a negative count")
    func randomLargeAndInvalid() {
        var data = Data(count: 1000)
        let status = data.withUnsafeMutableBytes { buffer in
            SecRandomCopyBytes(kSecRandomDefault, buffer.count, buffer.baseAddress!)
        }
        #expect(status == errSecSuccess)
        // 744 bytes beyond the first 256-byte chunk, all zero, would mean a short fill.
        #expect(data.suffix(744).contains { $0 != 0 })
        var byte: UInt8 = 0
        #expect(SecRandomCopyBytes(nil, 0, &byte) == errSecSuccess)
        #expect(SecRandomCopyBytes(nil, -1, &byte) == -1)
    }

    // MARK: LocalAuthentication

    @Test("LocalAuthentication raw values")
    func localAuthenticationValues() {
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue == 1)
        #expect(LAPolicy.deviceOwnerAuthentication.rawValue == 2)
        #expect(LAPolicy.deviceOwnerAuthenticationWithCompanion.rawValue == 3)
        #expect(LACredentialType.applicationPassword.rawValue == 0)
        #expect(LABiometryType.faceID.rawValue == 2)
        #expect(LAError.Code.userCancel.rawValue == -2)
        #expect(LAError.Code.biometryLockout.rawValue == -8)
        #expect(LAError.Code.invalidContext.rawValue == -10)
        #expect(LAError.Code.notInteractive.rawValue == -1004)
        #expect(LAErrorDomain == "com.apple.LocalAuthentication")
        #expect(LATouchIDAuthenticationMaximumAllowableReuseDuration == 300)
    }

    @Test("LAError bridges to NSError and matches catch patterns")
    func laErrorPatterns() {
        let error = LAError(.userCancel)
        #expect(error.code == .userCancel)
        #expect((error as NSError).domain == LAErrorDomain)
        #expect((error as NSError).code == -2)
        #expect(error == LAError(.userCancel))
        #expect(error != LAError(.appCancel))
        do {
            throw error
        } catch LAError.userCancel {
            // Expected.
        } catch {
            Issue.record("LAError.userCancel did not match \(error)")
        }
        let nsError: Error = NSError(domain: LAErrorDomain, code: -1004)
        #expect(LAError.notInteractive ~= nsError)
        #expect(!(LAError.userCancel ~= nsError))
    }

    @Test("LAContext defaults and clamped reuse duration")
    func contextProperties() {
        let context = LAContext()
        #expect(context.localizedReason == "")
        #expect(context.localizedCancelTitle == nil)
        #expect(context.localizedFallbackTitle == nil)
        #expect(!context.interactionNotAllowed)
        #expect(context.biometryType == .none)
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 0)

        context.localizedReason = "Unlock your tokens"
        context.interactionNotAllowed = true
        context.touchIDAuthenticationAllowableReuseDuration = 10
        #expect(context.localizedReason == "Unlock your tokens")
        #expect(context.interactionNotAllowed)
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 10)
        context.touchIDAuthenticationAllowableReuseDuration = 10_000
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 300)
        context.touchIDAuthenticationAllowableReuseDuration = -5
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 0)
    }

    @Test("LAContext credentials: set, clear, invalidate, never shown")
    func contextCredentials() {
        let context = LAContext()
        let secret = Data("correct horse battery staple".utf8)
        #expect(!context.isCredentialSet(.applicationPassword))
        #expect(context.setCredential(secret, type: .applicationPassword))
        #expect(context.isCredentialSet(.applicationPassword))
        #expect(!context.isCredentialSet(.smartCardPIN))

        var dumped = ""
        dump(context, to: &dumped)
        let shown = [String(describing: context), String(reflecting: context), dumped]
        for text in shown {
            #expect(!text.contains("horse"))
            #expect(!text.contains("\(secret.count) bytes"))
        }
        #expect(dumped.contains("credentialTypesSet"))

        #expect(context.setCredential(nil, type: .applicationPassword))
        #expect(!context.isCredentialSet(.applicationPassword))

        #expect(context.setCredential(secret, type: .applicationPassword))
        context.invalidate()
        #expect(!context.isCredentialSet(.applicationPassword))
        #expect(!context.setCredential(secret, type: .applicationPassword))
        #expect(!context.isCredentialSet(.applicationPassword))
    }

    @Test("LAContext is safe to use from many threads")
    func contextConcurrency() async {
        let context = LAContext()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    context.localizedReason = "reason \(index)"
                    _ = context.setCredential(Data([UInt8(index)]), type: .applicationPassword)
                    _ = context.isCredentialSet(.applicationPassword)
                    context.touchIDAuthenticationAllowableReuseDuration = TimeInterval(index)
                }
            }
        }
        #expect(context.isCredentialSet(.applicationPassword))
        #expect(context.localizedReason.hasPrefix("reason "))
    }
}
