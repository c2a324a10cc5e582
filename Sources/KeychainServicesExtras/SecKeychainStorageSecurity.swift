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

/// `kSecKeychainStorageMode`: a `CFString`, `embedded` (calls are answered in this process, on a
/// keychain file of this user) or `service` (by the keychain service, `KEYCHAINKIT_SERVICE_SOCKET`).
nonisolated(unsafe) public let kSecKeychainStorageMode: CFString = "mode"
/// `kSecKeychainStorageModeProtects`: a `CFString`, what the mode protects against, in a sentence.
nonisolated(unsafe) public let kSecKeychainStorageModeProtects: CFString = "modeProtects"
/// `kSecKeychainStoragePtraceScope`: a `CFNumber`, `kernel.yama.ptrace_scope` (absent without
/// Yama, where any program of a user may attach to any other of that user).
nonisolated(unsafe) public let kSecKeychainStoragePtraceScope: CFString = "ptraceScope"
/// `kSecKeychainStoragePtraceMeaning`: a `CFString`, what the ptrace scope means for the keychain.
nonisolated(unsafe) public let kSecKeychainStoragePtraceMeaning: CFString = "ptraceMeaning"

/// How `keychain` (nil: the default keychain) is protected: a dictionary with the
/// `kSecKeychainStorage…` keys above. It describes a keychain below `KEYCHAINKIT_REQUIRE` too
/// (with `kSecKeychainStorageMeetsRequirement` false), so an application can say why it refuses
/// it; every other call refuses such a keychain. Never creates a keychain: a missing one is
/// `errSecNoSuchKeychain`.
public func SecKeychainCopyStorageSecurity(_ keychain: SecKeychain?, _ security: UnsafeMutablePointer<CFDictionary?>) -> OSStatus {
    FailureReport.beginCall()
    let socketPath = KeychainLifecycle.apple.registry.configuration.serviceSocketPath
    let mode = ProcessIsolation.mode(serviceSocketPath: socketPath)
    let scope = ProcessIsolation.ptraceScope()
    var isolation: [String: Any] = [
        kSecKeychainStorageMode as String: mode.rawValue,
        kSecKeychainStorageModeProtects as String: mode.protects,
        kSecKeychainStoragePtraceMeaning as String: ProcessIsolation.ptraceMeaning(scope),
    ]
    if let scope { isolation[kSecKeychainStoragePtraceScope as String] = scope }
    if mode == .service && (keychain == nil || keychain?.path == KeychainLifecycle.apple.defaultKeychainPath) {
        // The keychain is the service's: its file, key source and lock state are not this
        // process's to read. Every item is encrypted at rest there as here.
        isolation[kSecKeychainStorageEncryptedAtRest as String] = true
        isolation[kSecKeychainStorageMeetsRequirement as String] = true
        if let requirement = KeychainLifecycle.apple.registry.configuration.storageRequirement {
            isolation[kSecKeychainStorageRequirement as String] = requirement.name
            isolation[kSecKeychainStorageMeetsRequirement as String] = requirement == .service
        }
        security.pointee = isolation as NSDictionary
        return errSecSuccess
    }
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
        result.merge(isolation) { own, _ in own }
        security.pointee = result as NSDictionary
        return errSecSuccess
    } catch {
        return reportedStatus(error)
    }
}
