import Foundation
import KeychainClient  // KeychainFileCalls.storageSecurity: the one implementation
import KeychainEngine
import KeychainServicesPortable

// How a keychain is protected (Linux only; Apple's Security API has no such query: there the
// system decides). Shaped like Apple's `SecKeychainCopySettings`: a status and a dictionary.

/// `kSecKeychainStorageEncryptedAtRest`: a `CFBoolean`, always true (every item's data and
/// attributes are encrypted in the file).
nonisolated(unsafe) public let kSecKeychainStorageEncryptedAtRest: CFString = StorageSecurityKey.encryptedAtRest as CFString
/// `kSecKeychainStorageKeySource`: a `CFString`: `none`, `password`, `password-file`,
/// `systemd-credential` or `tpm` (where the unlock secret comes from).
nonisolated(unsafe) public let kSecKeychainStorageKeySource: CFString = StorageSecurityKey.keySource as CFString
/// `kSecKeychainStorageDeviceBoundClassesAvailable`: a `CFBoolean`, whether the
/// `…ThisDeviceOnly` classes are usable (the device key the keychain was made with is here).
nonisolated(unsafe) public let kSecKeychainStorageDeviceBoundClassesAvailable: CFString = StorageSecurityKey.deviceBoundClassesAvailable as CFString
/// `kSecKeychainStorageLocked`: a `CFBoolean`, whether the "when unlocked" classes are locked.
nonisolated(unsafe) public let kSecKeychainStorageLocked: CFString = StorageSecurityKey.locked as CFString
/// `kSecKeychainStorageAutoLockInterval`: a `CFNumber`, seconds of inactivity before it locks (0: never).
nonisolated(unsafe) public let kSecKeychainStorageAutoLockInterval: CFString = StorageSecurityKey.autoLockInterval as CFString
/// `kSecKeychainStorageRequirement`: a `CFString`, the value of `KEYCHAINKIT_REQUIRE` (absent when unset).
nonisolated(unsafe) public let kSecKeychainStorageRequirement: CFString = StorageSecurityKey.requirement as CFString
/// `kSecKeychainStorageMeetsRequirement`: a `CFBoolean`, whether the keychain meets
/// `KEYCHAINKIT_REQUIRE` (true when it is unset).
nonisolated(unsafe) public let kSecKeychainStorageMeetsRequirement: CFString = StorageSecurityKey.meetsRequirement as CFString

/// `kSecKeychainStorageMode`: a `CFString`, `embedded` (calls are answered in this process, on a
/// keychain file of this user) or `service` (by the keychain service, `KEYCHAINKIT_SERVICE_SOCKET`).
nonisolated(unsafe) public let kSecKeychainStorageMode: CFString = StorageSecurityKey.mode as CFString
/// `kSecKeychainStorageModeProtects`: a `CFString`, what the mode protects against, in a sentence.
nonisolated(unsafe) public let kSecKeychainStorageModeProtects: CFString = StorageSecurityKey.modeProtects as CFString
/// `kSecKeychainStoragePtraceScope`: a `CFNumber`, `kernel.yama.ptrace_scope` (absent without
/// Yama, where any program of a user may attach to any other of that user).
nonisolated(unsafe) public let kSecKeychainStoragePtraceScope: CFString = StorageSecurityKey.ptraceScope as CFString
/// `kSecKeychainStoragePtraceMeaning`: a `CFString`, what the ptrace scope means for the keychain.
nonisolated(unsafe) public let kSecKeychainStoragePtraceMeaning: CFString = StorageSecurityKey.ptraceMeaning as CFString

/// How `keychain` (nil: the default keychain) is protected: a dictionary with the
/// `kSecKeychainStorage…` keys above. It describes a keychain below `KEYCHAINKIT_REQUIRE` too
/// (with `kSecKeychainStorageMeetsRequirement` false), so an application can say why it refuses
/// it; every other call refuses such a keychain. Never creates a keychain: a missing one is
/// `errSecNoSuchKeychain`.
public func SecKeychainCopyStorageSecurity(_ keychain: SecKeychain?, _ security: UnsafeMutablePointer<CFDictionary?>) -> OSStatus {
    var values: [String: Any] = [:]
    let status = keychainCallStatus { () throws(KeychainCallFailure) in values = try KeychainFileCalls.storageSecurity(keychain?.path) }
    if status == errSecSuccess { security.pointee = values as NSDictionary }
    return status
}
