import Foundation
import KeychainTestSupport
import KeychainEngine
import KeychainServices
import Testing

/// A process that keeps a keychain open follows the lock state of the user's session, the way
/// every app on macOS follows `securityd`: the other process here is the real `keychainctl`.
@Suite("Lock state follows the session", .serialized)
struct SessionFollowingTests {
    /// A password keychain created in this process (so its unlock is published to the kernel
    /// keyring), deleted afterwards with its keyring entries.
    private func withSharedKeychain(_ body: (SecKeychain, String) throws -> Void) throws {
        try #require(AppleAPIRegistry.sharesUnlockWithSession, "the kernel keyring must be usable here (as in CI)")
        let scratch = try TemporaryKeychain.forAppleAPI("follow")
        defer { scratch.remove() }
        let path = scratch.file("follow.keychain-db")
        var keychain: SecKeychain?
        let password = Array("follow-pw".utf8)
        let status = password.withUnsafeBytes { SecKeychainCreate(path, UInt32(password.count), $0.baseAddress, false, nil, &keychain) }
        try #require(status == errSecSuccess)
        let created = try #require(keychain)
        defer {
            _ = SecKeychainDelete(created)
        }
        try body(created, path)
    }

    private func add(_ keychain: SecKeychain) -> OSStatus {
        SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a",
                    kSecAttrService as String: "follow", kSecValueData as String: Data("secret".utf8),
                    kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked, kSecUseKeychain as String: keychain] as CFDictionary, nil)
    }

    private func read(_ keychain: SecKeychain) -> OSStatus {
        var result: AnyObject?
        let status = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a",
                                          kSecAttrService as String: "follow", kSecReturnData as String: true,
                                          kSecUseKeychain as String: keychain] as CFDictionary, &result)
        if status == errSecSuccess, (result as? Data) != Data("secret".utf8) { return errSecDecode }
        return status
    }

    /// Runs the built keychainctl with this process's environment (same device key, same user
    /// keyring) and the test KDF; returns its exit status.
    private func keychainctl(_ arguments: [String], stdin: String? = nil) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path("keychainctl"))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["KEYCHAINKIT_TESTING_KDF"] = "1"
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test("another process locking the keychain locks it here at the next call; its unlock unlocks it here")
    func followsLockAndUnlock() throws {
        try withSharedKeychain { (keychain, path) throws in
            #expect(add(keychain) == errSecSuccess)
            #expect(read(keychain) == errSecSuccess)

            #expect(try keychainctl(["lock-keychain", path]) == 0)
            #expect(read(keychain) == errSecInteractionNotAllowed, "the lock by another process applies here")
            var status = SecKeychainStatus()
            #expect(SecKeychainGetStatus(keychain, &status) == errSecSuccess)
            #expect(status & kSecUnlockStateStatus == 0)

            #expect(try keychainctl(["unlock-keychain", path, "-p"], stdin: "follow-pw\n") == 0)
            #expect(read(keychain) == errSecSuccess, "the unlock by another process applies here")
        }
    }

    @Test("an unlock shared with the session ends here when the session's auto-lock timeout passes")
    func followsAutoLock() throws {
        try withSharedKeychain { (keychain, _) throws in
            #expect(add(keychain) == errSecSuccess)
            var settings = SecKeychainSettings(version: UInt32(SEC_KEYCHAIN_SETTINGS_VERS1), lockOnSleep: false, useLockInterval: true, lockInterval: 1)
            #expect(SecKeychainSetSettings(keychain, &settings) == errSecSuccess)
            let password = Array("follow-pw".utf8)
            #expect(password.withUnsafeBytes { SecKeychainUnlock(keychain, UInt32(password.count), $0.baseAddress, true) } == errSecSuccess)
            #expect(read(keychain) == errSecSuccess)
            // The kernel drops the shared unlock one second after it was published: wait for the
            // lock (a read does not renew it), at most 15 s.
            let deadline = ContinuousClock.now + .seconds(15)
            while read(keychain) == errSecSuccess, ContinuousClock.now < deadline { usleep(50_000) }
            #expect(read(keychain) == errSecInteractionNotAllowed)
        }
    }
}
