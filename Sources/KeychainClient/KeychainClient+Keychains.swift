#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine

/// The keychain lifecycle as the tools call it: Apple's `SecKeychain…` calls on paths (nil: the
/// default keychain) and Swift values, each returning Apple's status with the cause of a failure
/// recorded for ``KeychainClient/failureReason(for:)``, as the SecItem calls do. Each is
/// ``KeychainFileCalls``' call (the one implementation, shared with Apple's C API).
extension KeychainClient {
    /// `SecKeychainCreate` with a password (none when nil or empty).
    package static func createKeychain(at path: String, password: Data?) -> Int32 {
        KeychainFileCalls.status { () throws(KeychainCallFailure) in try KeychainFileCalls.create(at: path, password: password) }
    }

    /// `SecKeychainCreate` with `promptUser`: the configured password (`KEYCHAINKIT_PASSWORD_FILE`).
    package static func createKeychainWithConfiguredPassword(at path: String) -> Int32 {
        KeychainFileCalls.status { () throws(KeychainCallFailure) in try KeychainFileCalls.createWithConfiguredPassword(at: path) }
    }

    /// `SecKeychainUnlock`: with `password`, or with nil as `usePassword` false (the configured password).
    package static func unlockKeychain(_ path: String?, password: Data?) -> Int32 {
        KeychainFileCalls.status { () throws(KeychainCallFailure) in try KeychainFileCalls.unlock(path, password: password) }
    }

    /// `SecKeychainLock`.
    package static func lockKeychain(_ path: String?) -> Int32 {
        KeychainFileCalls.status { () throws(KeychainCallFailure) in try KeychainFileCalls.lock(path) }
    }

    /// `SecKeychainGetStatus`: the status, and whether the keychain is unlocked.
    package static func keychainIsUnlocked(_ path: String?) -> (status: Int32, unlocked: Bool) {
        var unlocked = false
        let status = KeychainFileCalls.status { () throws(KeychainCallFailure) in unlocked = try KeychainFileCalls.isUnlocked(path) }
        return (status, unlocked)
    }

    /// `SecKeychainCopySettings`: the status, and the auto-lock interval in seconds (0: never).
    package static func keychainAutoLockSeconds(_ path: String?) -> (status: Int32, seconds: Int) {
        var seconds = 0
        let status = KeychainFileCalls.status { () throws(KeychainCallFailure) in seconds = try KeychainFileCalls.autoLockSeconds(path) }
        return (status, seconds)
    }

    /// `SecKeychainCopySettings`: the status, and whether the keychain locks when the machine sleeps.
    package static func keychainLocksOnSleep(_ path: String?) -> (status: Int32, lockOnSleep: Bool) {
        var lockOnSleep = false
        let status = KeychainFileCalls.status { () throws(KeychainCallFailure) in lockOnSleep = try KeychainFileCalls.locksOnSleep(path) }
        return (status, lockOnSleep)
    }

    /// `SecKeychainSetSettings`: the auto-lock interval (0: never) and lock-on-sleep.
    package static func setKeychainAutoLock(seconds: UInt32, lockOnSleep: Bool, _ path: String?) -> Int32 {
        KeychainFileCalls.status { () throws(KeychainCallFailure) in
            try KeychainFileCalls.setAutoLock(seconds: seconds, lockOnSleep: lockOnSleep, path)
        }
    }

    /// `SecKeychainChangePassword` (nil or empty: no password).
    package static func changeKeychainPassword(_ path: String?, from oldPassword: Data?, to newPassword: Data?) -> Int32 {
        KeychainFileCalls.status { () throws(KeychainCallFailure) in try KeychainFileCalls.changePassword(path, from: oldPassword, to: newPassword) }
    }

    /// `SecKeychainDelete`.
    package static func deleteKeychain(_ path: String) -> Int32 {
        KeychainFileCalls.status { () throws(KeychainCallFailure) in try KeychainFileCalls.delete(path) }
    }

    /// `SecKeychainCopyChangeMark` (Linux only): the status, and on success the mark of the keychain
    /// at `path` as this process sees it now (``KeychainFileCalls/changeMark(_:)``);
    /// `errSecUnimplemented` for the keychain the keychain service holds.
    package static func keychainChangeMark(_ path: String) -> (status: Int32, mark: Data?) {
        var mark: Data?
        let status = KeychainFileCalls.status { () throws(KeychainCallFailure) in mark = try KeychainFileCalls.changeMark(path) }
        return (status, mark)
    }

    /// `SecKeychainCopyStorageSecurity`: the status, and on success the values keyed by ``StorageSecurityKey``.
    package static func keychainStorageSecurity(_ path: String?) -> (status: Int32, values: [String: Any]) {
        var values: [String: Any] = [:]
        let status = KeychainFileCalls.status { () throws(KeychainCallFailure) in values = try KeychainFileCalls.storageSecurity(path) }
        return (status, values)
    }
}
