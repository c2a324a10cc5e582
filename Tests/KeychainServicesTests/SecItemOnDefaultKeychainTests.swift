import Foundation
import KeychainEngine
import KeychainServices
import KeychainServicesExtras
import KeychainTestSupport
import Testing

/// The keychain code of a typical iOS tutorial, unchanged but for its import line.
enum TutorialKeychain {
    static func save(_ data: Data, service: String, account: String) -> OSStatus {
        let query = [
            kSecClass: kSecClassGenericPassword,
            kSecAttrService: service,
            kSecAttrAccount: account,
            kSecValueData: data,
        ] as [CFString: Any] as CFDictionary
        var status = SecItemAdd(query, nil)
        if status == errSecDuplicateItem {
            let match = [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account]
                as [CFString: Any] as CFDictionary
            let attributes = [kSecValueData: data] as CFDictionary
            status = SecItemUpdate(match, attributes)
        }
        return status
    }

    static func read(service: String, account: String) -> Data? {
        let query = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecReturnData as String: kCFBooleanTrue!,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ] as [String: Any]
        var dataTypeRef: AnyObject?
        let status: OSStatus = SecItemCopyMatching(query as CFDictionary, &dataTypeRef)
        if status == errSecSuccess {
            return dataTypeRef as? Data
        }
        return nil
    }

    static func delete(service: String, account: String) -> Bool {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        let status = SecItemDelete(query as CFDictionary)
        return status == errSecSuccess || status == errSecItemNotFound
    }
}

/// Tests that go through Apple's functions on the process's default keychain, which each test
/// points at a fresh file; serialised because the default keychain is process-wide.
@Suite("SecItem on the default keychain", .serialized)
struct SecItemOnDefaultKeychainTests {
    /// Creates a keychain in a temporary folder, makes it the default, runs `body`, restores.
    private func withDefaultKeychain(password: String? = nil, _ body: (SecKeychain, String) throws -> Void) throws {
        let scratch = try TemporaryKeychain.forAppleAPI("services")
        defer { scratch.remove() }
        let path = scratch.file("login.keychain-db")
        var keychain: SecKeychain?
        let bytes = Array((password ?? "").utf8)
        let status = bytes.withUnsafeBytes { SecKeychainCreate(path, UInt32(bytes.count), $0.baseAddress, false, nil, &keychain) }
        try #require(status == errSecSuccess)
        let created = try #require(keychain)
        #expect(SecKeychainSetDefault(created) == errSecSuccess)
        defer {
            _ = SecKeychainSetDefault(nil)
            _ = SecKeychainDelete(created)
        }
        try body(created, path)
    }

    @Test("an LAContext passcode check on a default keychain that does not exist says passcodeNotSet and creates nothing")
    func passcodeCheckCreatesNoKeychain() throws {
        let scratch = try TemporaryKeychain("services")
        defer { scratch.remove() }
        let directory = URL(fileURLWithPath: scratch.file("missing"))
        let path = directory.appendingPathComponent("login.keychain-db").path
        var missing: SecKeychain?
        #expect(SecKeychainOpen(path, &missing) == errSecSuccess)
        #expect(SecKeychainSetDefault(missing) == errSecSuccess)
        defer { _ = SecKeychainSetDefault(nil) }
        var error: NSError?
        #expect(LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error) == false)
        #expect(error?.code == LAError.Code.passcodeNotSet.rawValue)
        #expect(!FileManager.default.fileExists(atPath: directory.path), "a passcode check created the keychain or its directory")
    }

    @Test("the tutorial wrapper saves, overwrites on errSecDuplicateItem, reads and deletes")
    func tutorialWrapper() throws {
        try withDefaultKeychain { _, _ in
            #expect(TutorialKeychain.save(Data("first".utf8), service: "com.example", account: "alice") == errSecSuccess)
            #expect(TutorialKeychain.read(service: "com.example", account: "alice") == Data("first".utf8))
            #expect(TutorialKeychain.save(Data("second".utf8), service: "com.example", account: "alice") == errSecSuccess)
            #expect(TutorialKeychain.read(service: "com.example", account: "alice") == Data("second".utf8))
            #expect(TutorialKeychain.delete(service: "com.example", account: "alice"))
            #expect(TutorialKeychain.read(service: "com.example", account: "alice") == nil)
            #expect(TutorialKeychain.delete(service: "com.example", account: "alice"), "not found counts as deleted")
        }
    }

    @Test("a query built as an NSMutableDictionary of Foundation objects reads as a bridged Swift one; a non-string key is errSecParam")
    func foundationDictionaries() throws {
        try withDefaultKeychain { _, _ in
            #expect(TutorialKeychain.save(Data("secret".utf8), service: "com.example", account: "carol") == errSecSuccess)
            let query = NSMutableDictionary()
            query[NSString(string: kSecClass as String)] = NSString(string: kSecClassGenericPassword as String)
            query[NSString(string: kSecAttrService as String)] = NSString(string: "com.example")
            query[NSString(string: kSecAttrAccount as String)] = NSString(string: "carol")
            query[NSString(string: kSecReturnData as String)] = NSNumber(value: true)
            query[NSString(string: kSecMatchLimit as String)] = NSString(string: kSecMatchLimitOne as String)
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query, &result) == errSecSuccess)
            #expect(result as? Data == Data("secret".utf8))

            query[NSNumber(value: 7)] = NSString(string: "a key that is not a string")
            var untouched: CFTypeRef?
            #expect(SecItemCopyMatching(query, &untouched) == errSecParam)
            #expect(untouched == nil)
        }
    }

    @Test("internet passwords: add, find with attributes and data, update, delete")
    func internetPasswords() throws {
        try withDefaultKeychain { _, _ in
            let add: [String: Any] = [
                kSecClass as String: kSecClassInternetPassword,
                kSecAttrServer as String: "git.example.com",
                kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
                kSecAttrPort as String: 443,
                kSecAttrPath as String: "/repo.git",
                kSecAttrAccount as String: "bob",
                kSecAttrLabel as String: "Example git",
                kSecValueData as String: Data("token-1".utf8),
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)

            let query: [String: Any] = [
                kSecClass as String: kSecClassInternetPassword,
                kSecAttrServer as String: "git.example.com",
                kSecReturnAttributes as String: true,
                kSecReturnData as String: true,
            ]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let item = try #require(result as? [String: Any])
            #expect(item[kSecAttrAccount as String] as? String == "bob")
            #expect(item[kSecAttrPort as String] as? Int == 443)
            #expect(item[kSecAttrProtocol as String] as? String == kSecAttrProtocolHTTPS as String)
            #expect(item[kSecAttrLabel as String] as? String == "Example git")
            #expect(item[kSecValueData as String] as? Data == Data("token-1".utf8))
            #expect(item[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
            #expect(item[kSecAttrCreationDate as String] as? Date != nil)

            let match: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "git.example.com"]
            let changes: [String: Any] = [kSecValueData as String: Data("token-2".utf8)]
            #expect(SecItemUpdate(match as CFDictionary, changes as CFDictionary) == errSecSuccess)
            var data: CFTypeRef?
            var read = match
            read[kSecReturnData as String] = kCFBooleanTrue
            #expect(SecItemCopyMatching(read as CFDictionary, &data) == errSecSuccess)
            #expect(data as? Data == Data("token-2".utf8))
            #expect(SecItemDelete(match as CFDictionary) == errSecSuccess)
            #expect(SecItemDelete(match as CFDictionary) == errSecItemNotFound)
        }
    }

    @Test("arrays of results bridge to [[String: Any]] and [Data]")
    func arrayResults() throws {
        try withDefaultKeychain { _, _ in
            for account in ["a", "b", "c"] {
                let add: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "s",
                                            kSecAttrAccount: account, kSecValueData: Data(account.utf8)]
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            }
            var result: CFTypeRef?
            let all: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "s",
                                        kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitAll]
            #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
            let items = try #require(result as? [[String: Any]])
            #expect(Set(items.compactMap { $0[kSecAttrAccount as String] as? String }) == ["a", "b", "c"])

            let data: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "s",
                                         kSecReturnData: true, kSecMatchLimit: 2]
            #expect(SecItemCopyMatching(data as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [Data])?.count == 2)
        }
    }

    @Test("locked keychain: -25308 for WhenUnlocked items, Always items still read; wrong password -25293")
    func lockAndUnlock() throws {
        try withDefaultKeychain(password: "correct horse") { keychain, _ in
            #expect(TutorialKeychain.save(Data("ak".utf8), service: "s", account: "ak") == errSecSuccess)
            let always: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "s", kSecAttrAccount: "dk",
                                           kSecAttrAccessible: kSecAttrAccessibleAlwaysThisDeviceOnly, kSecValueData: Data("dk".utf8)]
            #expect(SecItemAdd(always as CFDictionary, nil) == errSecSuccess)
            #expect(SecKeychainLock(keychain) == errSecSuccess)
            var status: SecKeychainStatus = 0
            #expect(SecKeychainGetStatus(keychain, &status) == errSecSuccess)
            #expect(status & kSecUnlockStateStatus == 0)

            var result: CFTypeRef?
            let readAK: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrAccount: "ak", kSecReturnData: true]
            #expect(SecItemCopyMatching(readAK as CFDictionary, &result) == errSecInteractionNotAllowed)
            #expect(result == nil)
            #expect(TutorialKeychain.read(service: "s", account: "dk") == Data("dk".utf8))
            #expect(TutorialKeychain.save(Data("x".utf8), service: "s", account: "new") == errSecInteractionNotAllowed)

            let wrong = Array("wrong".utf8)
            #expect(wrong.withUnsafeBytes { SecKeychainUnlock(keychain, UInt32($0.count), $0.baseAddress, true) } == errSecAuthFailed)
            #expect(SecKeychainUnlock(keychain, 0, nil, false) == errSecInteractionNotAllowed, "no dialog, no password file")
            let right = Array("correct horse".utf8)
            #expect(right.withUnsafeBytes { SecKeychainUnlock(keychain, UInt32($0.count), $0.baseAddress, true) } == errSecSuccess)
            #expect(TutorialKeychain.read(service: "s", account: "ak") == Data("ak".utf8))
        }
    }

    @Test("a keychain without a password refuses WhenPasscodeSetThisDeviceOnly with -25291")
    func passcodeClassNeedsPassword() throws {
        try withDefaultKeychain { _, _ in
            let add: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrAccount: "p",
                                        kSecAttrAccessible: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                                        kSecValueData: Data("s".utf8)]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecNotAvailable)
        }
    }

    @Test("SecKeychain management: duplicate create, missing keychain, settings, path, change password")
    func keychainManagement() throws {
        try withDefaultKeychain(password: "one") { keychain, path in
            var again: SecKeychain?
            #expect(SecKeychainCreate(path, 0, nil, false, nil, &again) == errSecDuplicateKeychain)

            var missing: SecKeychain?
            #expect(SecKeychainOpen("/nonexistent/dir/none.keychain-db", &missing) == errSecSuccess)
            #expect(SecKeychainLock(missing) == errSecNoSuchKeychain)

            var settings = SecKeychainSettings(version: UInt32(SEC_KEYCHAIN_SETTINGS_VERS1), lockOnSleep: false, useLockInterval: true, lockInterval: 600)
            #expect(SecKeychainSetSettings(keychain, &settings) == errSecSuccess)
            var read = SecKeychainSettings()
            #expect(SecKeychainCopySettings(keychain, &read) == errSecSuccess)
            #expect(read.lockInterval == 600 && read.useLockInterval.boolValue && !read.lockOnSleep.boolValue)

            var buffer = [CChar](repeating: 0, count: 1024)
            var length = UInt32(buffer.count)
            #expect(SecKeychainGetPath(keychain, &length, &buffer) == errSecSuccess)
            #expect(String(cString: buffer) == path)

            var defaultKeychain: SecKeychain?
            #expect(SecKeychainCopyDefault(&defaultKeychain) == errSecSuccess)
            #expect(defaultKeychain == keychain)

            let old = Array("one".utf8), new = Array("two".utf8)
            let changed = old.withUnsafeBytes { oldBytes in
                new.withUnsafeBytes { newBytes in
                    SecKeychainChangePassword(keychain, UInt32(oldBytes.count), oldBytes.baseAddress!, UInt32(newBytes.count), newBytes.baseAddress!)
                }
            }
            #expect(changed == errSecSuccess)
            _ = SecKeychainLock(keychain)
            #expect(old.withUnsafeBytes { SecKeychainUnlock(keychain, UInt32($0.count), $0.baseAddress, true) } == errSecAuthFailed)
            #expect(new.withUnsafeBytes { SecKeychainUnlock(keychain, UInt32($0.count), $0.baseAddress, true) } == errSecSuccess)
        }
    }
}
