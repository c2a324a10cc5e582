import Foundation
import KeychainEngine
import KeychainServicesPortable
import KeychainVocabulary  // FailureReport: the edge records a call's cause

// How a keychain is protected (Linux only; Apple's Security API has no such query: there the
// system decides). Shaped like Apple's `SecKeychainCopySettings`: a status and a dictionary.

/// `kSecKeychainStorageEncryptedAtRest`: a `CFBoolean`, always true (every item's data and
/// attributes are encrypted in the file).
nonisolated(unsafe) public let kSecKeychainStorageEncryptedAtRest: CFString = "encryptedAtRest"
/// `kSecKeychainStorageKeySource`: a `CFString`: `none`, `password`, `password-file`,
/// `systemd-credential` or `tpm` (where the unlock secret comes from).
nonisolated(unsafe) public let kSecKeychainStorageKeySource: CFString = "keySource"
/// `kSecKeychainStorageDeviceBoundClassesAvailable`: a `CFBoolean`, whether the
/// `…ThisDeviceOnly` classes are usable (the device key the keychain was made with is here).
nonisolated(unsafe) public let kSecKeychainStorageDeviceBoundClassesAvailable: CFString = "deviceBoundClassesAvailable"
/// `kSecKeychainStorageLocked`: a `CFBoolean`, whether the "when unlocked" classes are locked.
nonisolated(unsafe) public let kSecKeychainStorageLocked: CFString = "locked"
/// `kSecKeychainStorageAutoLockInterval`: a `CFNumber`, seconds of inactivity before it locks (0: never).
nonisolated(unsafe) public let kSecKeychainStorageAutoLockInterval: CFString = "autoLockInterval"
/// `kSecKeychainStorageRequirement`: a `CFString`, the value of `KEYCHAINKIT_REQUIRE` (absent when unset).
nonisolated(unsafe) public let kSecKeychainStorageRequirement: CFString = "requirement"
/// `kSecKeychainStorageMeetsRequirement`: a `CFBoolean`, whether the keychain meets
/// `KEYCHAINKIT_REQUIRE` (true when it is unset).
nonisolated(unsafe) public let kSecKeychainStorageMeetsRequirement: CFString = "meetsRequirement"

/// How `keychain` (nil: the default keychain) is protected: a dictionary with the
/// `kSecKeychainStorage…` keys above. It describes a keychain below `KEYCHAINKIT_REQUIRE` too
/// (with `kSecKeychainStorageMeetsRequirement` false), so an application can say why it refuses
/// it; every other call refuses such a keychain. Never creates a keychain: a missing one is
/// `errSecNoSuchKeychain`.
public func SecKeychainCopyStorageSecurity(_ keychain: SecKeychain?, _ security: UnsafeMutablePointer<CFDictionary?>) -> OSStatus {
    FailureReport.beginCall()
    do {
        let (storage, configuration) = try KeychainLifecycle.apple.storageSecurity(keychain?.path)
        var result: [String: Any] = [
            kSecKeychainStorageEncryptedAtRest as String: storage.encryptedAtRest,
            kSecKeychainStorageKeySource as String: storage.keySource.rawValue,
            kSecKeychainStorageDeviceBoundClassesAvailable as String: storage.deviceBoundClassesAvailable,
            kSecKeychainStorageLocked as String: storage.isLocked,
            kSecKeychainStorageAutoLockInterval as String: storage.autoLockSeconds,
            kSecKeychainStorageMeetsRequirement as String: configuration.storageRequirement?.isMet(by: storage.keySource) ?? true,
        ]
        if let requirement = configuration.storageRequirement { result[kSecKeychainStorageRequirement as String] = requirement.name }
        security.pointee = result as NSDictionary
        return errSecSuccess
    } catch {
        return reportedStatus(error)
    }
}
