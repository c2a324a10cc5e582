#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the conditions on the KeychainClient and KeychainServices dependencies
import KeychainClient
#else
import KeychainServices
#endif

/// The keychain lifecycle calls keychainctl makes, on keychain paths: KeychainClient's where
/// KeychainKit implements the keychain (no CF layer, so no Foundation in the tool), Apple's
/// `SecKeychain…` on macOS. Each returns Apple's status; the callers name Apple's function in
/// their messages, as `security(1)` does.
enum KeychainFiles {
    #if KEYCHAINKIT_REIMPLEMENTED
    /// The default keychain's absolute path.
    static var defaultPath: String { KeychainFileCalls.defaultKeychainPath }

    /// `path` as the keychain calls name it (absolute).
    static func resolve(_ path: String) -> String { KeychainFileCalls.resolve(path) }

    /// `SecKeychainCreate` with `password` (empty: none).
    static func create(at path: String, password: Data) -> Int32 { KeychainClient.createKeychain(at: path, password: password) }

    /// `SecKeychainCreate` with `promptUser`: the configured password, else `errSecUnimplemented`.
    static func createWithConfiguredPassword(at path: String) -> Int32 { KeychainClient.createKeychainWithConfiguredPassword(at: path) }

    /// `SecKeychainUnlock`: with `password`, or with nil the configured password (no dialog).
    static func unlock(_ path: String, password: Data?) -> Int32 { KeychainClient.unlockKeychain(path, password: password) }

    /// `SecKeychainLock`.
    static func lock(_ path: String) -> Int32 { KeychainClient.lockKeychain(path) }

    /// `SecKeychainGetStatus`: whether the keychain is unlocked.
    static func isUnlocked(_ path: String) -> (status: Int32, unlocked: Bool) { KeychainClient.keychainIsUnlocked(path) }

    /// `SecKeychainCopySettings`: the auto-lock interval (0: never) and lock-on-sleep.
    static func settings(_ path: String) -> (status: Int32, seconds: Int, lockOnSleep: Bool) {
        let (status, seconds) = KeychainClient.keychainAutoLockSeconds(path)
        guard status == 0 else { return (status, 0, false) }
        // As SecKeychainCopySettings reports it: a UInt32 interval; lock-on-sleep only where the keychain service holds the keychain.
        let (sleepStatus, lockOnSleep) = KeychainClient.keychainLocksOnSleep(path)
        return (sleepStatus, Int(UInt32(clamping: seconds)), lockOnSleep)
    }

    /// `SecKeychainSetSettings`: the auto-lock interval (0: never) and lock-on-sleep.
    static func setSettings(seconds: UInt32, lockOnSleep: Bool, _ path: String) -> Int32 {
        KeychainClient.setKeychainAutoLock(seconds: seconds, lockOnSleep: lockOnSleep, path)
    }

    /// `SecKeychainChangePassword` (empty: no password).
    static func changePassword(_ path: String, from old: Data, to new: Data) -> Int32 {
        KeychainClient.changeKeychainPassword(path, from: old, to: new)
    }

    /// `SecKeychainDelete`.
    static func delete(_ path: String) -> Int32 { KeychainClient.deleteKeychain(path) }
    #else
    static var defaultPath: String {
        var handle: SecKeychain?
        guard SecKeychainCopyDefault(&handle) == errSecSuccess, let handle else { return "" }
        return path(of: handle) ?? ""
    }

    static func resolve(_ path: String) -> String {
        var handle: SecKeychain?
        guard SecKeychainOpen(path, &handle) == errSecSuccess, let handle else { return path }
        return Self.path(of: handle) ?? path
    }

    static func create(at path: String, password: Data) -> Int32 {
        var created: SecKeychain?
        return password.withUnsafeBytes { SecKeychainCreate(path, UInt32($0.count), $0.baseAddress, false, nil, &created) }
    }

    static func createWithConfiguredPassword(at path: String) -> Int32 {
        var created: SecKeychain?
        return SecKeychainCreate(path, 0, nil, true, nil, &created)
    }

    static func unlock(_ path: String, password: Data?) -> Int32 {
        withHandle(path) { handle in
            guard let password else { return SecKeychainUnlock(handle, 0, nil, false) }
            return password.withUnsafeBytes { SecKeychainUnlock(handle, UInt32($0.count), $0.baseAddress, true) }
        }
    }

    static func lock(_ path: String) -> Int32 { withHandle(path) { SecKeychainLock($0) } }

    static func isUnlocked(_ path: String) -> (status: Int32, unlocked: Bool) {
        var state: SecKeychainStatus = 0
        let status = withHandle(path) { SecKeychainGetStatus($0, &state) }
        return (status, state & SecKeychainStatus(kSecUnlockStateStatus) != 0)  // Apple imports the constant as Int
    }

    static func settings(_ path: String) -> (status: Int32, seconds: Int, lockOnSleep: Bool) {
        var settings = SecKeychainSettings()
        settings.version = UInt32(SEC_KEYCHAIN_SETTINGS_VERS1)  // a C macro: Int32 in Swift
        let status = withHandle(path) { SecKeychainCopySettings($0, &settings) }
        return (status, settings.useLockInterval.boolValue ? Int(settings.lockInterval) : 0, settings.lockOnSleep.boolValue)
    }

    static func setSettings(seconds: UInt32, lockOnSleep: Bool, _ path: String) -> Int32 {
        // SecKeychainSettings is a C structure: an UInt32 version (the macro is an Int32) and C Booleans.
        var settings = SecKeychainSettings(version: UInt32(SEC_KEYCHAIN_SETTINGS_VERS1), lockOnSleep: DarwinBoolean(lockOnSleep),
                                           useLockInterval: DarwinBoolean(seconds > 0), lockInterval: seconds)
        return withHandle(path) { SecKeychainSetSettings($0, &settings) }
    }

    /// macOS: `SecKeychainChangePassword` is private (SPI, not in the SDK headers): use `security set-keychain-password`.
    static func changePassword(_ path: String, from old: Data, to new: Data) -> Int32 { errSecUnimplemented }

    static func delete(_ path: String) -> Int32 { withHandle(path) { SecKeychainDelete($0) } }

    private static func withHandle(_ path: String, _ call: (SecKeychain) -> OSStatus) -> OSStatus {
        var handle: SecKeychain?
        let opened = SecKeychainOpen(path, &handle)
        guard opened == errSecSuccess, let handle else { return opened == errSecSuccess ? errSecInvalidKeychain : opened }
        return call(handle)
    }

    private static func path(of keychain: SecKeychain) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        var length = UInt32(buffer.count)
        guard SecKeychainGetPath(keychain, &length, &buffer) == errSecSuccess else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    #endif
}
