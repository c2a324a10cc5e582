#if KEYCHAINKIT_REIMPLEMENTED
import Foundation
import KeychainServices
import KeychainServicesExtras

/// How the keychain file is protected, as this process sees it (Linux; on Apple platforms the
/// system's keychain protection is not something an app can choose or query).
///
/// ```swift
/// let security = try Keychain.storageSecurity
/// guard security.keySource != .none else { throw SetupError.keychainHasNoPassword }
/// ```
public struct KeychainStorageSecurity: Sendable, Equatable {
    /// Where the keychain's unlock secret comes from.
    public enum KeySource: String, Sendable, Equatable, CaseIterable {
        /// No password: the items are encrypted, but whoever can read the keychain file and the
        /// device key as this user can read them.
        case none
        /// A password typed at a prompt (or passed to `SecKeychainUnlock`).
        case password
        /// A password read from `KEYCHAINKIT_PASSWORD_FILE`.
        case passwordFile = "password-file"
        /// A password read from the systemd credential `keychainkit.password`.
        case systemdCredential = "systemd-credential"
        /// A secret sealed to this machine's TPM.
        case tpm
    }

    /// Always true: item data and attributes are encrypted (AES-256-GCM) in the file.
    public let isEncryptedAtRest: Bool
    /// Where the unlock secret comes from.
    public let keySource: KeySource
    /// Whether the `…ThisDeviceOnly` accessibility classes are usable (the device key is present).
    public let deviceBoundClassesAvailable: Bool
    /// Whether the "when unlocked" items are locked now.
    public let isLocked: Bool
    /// Seconds of inactivity after which the keychain locks, or nil if it never does.
    public let autoLockInterval: Int?
    /// The value of `KEYCHAINKIT_REQUIRE`, if set.
    public let requirement: String?
    /// Whether the keychain meets `KEYCHAINKIT_REQUIRE` (true when it is unset). When false,
    /// every other keychain call of this process refuses the keychain.
    public let meetsRequirement: Bool
}

extension Keychain {
    /// How the default keychain (the one ``KeychainBackend/securityFramework`` uses) is protected.
    /// See ``storageSecurity(ofKeychainAt:)``.
    public static var storageSecurity: KeychainStorageSecurity {
        get throws(KeychainError) { try storageSecurity(ofKeychainAt: nil) }
    }

    /// How the keychain file at `path` (nil: the default keychain) is protected. Describes a
    /// keychain below `KEYCHAINKIT_REQUIRE` too, so an app can say why it stops. Throws
    /// ``KeychainError`` with `errSecNoSuchKeychain` (-25294) when the file does not exist (this
    /// never creates it).
    public static func storageSecurity(ofKeychainAt path: String?) throws(KeychainError) -> KeychainStorageSecurity {
        var keychain: SecKeychain?
        if let path {
            let status = SecKeychainOpen(path, &keychain)
            guard status == errSecSuccess else { throw KeychainError(status: status, context: "storageSecurity") }
        }
        var report: CFDictionary?
        let status = SecKeychainCopyStorageSecurity(keychain, &report)
        guard status == errSecSuccess else { throw KeychainError(status: status, context: "storageSecurity") }
        guard let report = report as? [String: Any],
              let encryptedAtRest = report[kSecKeychainStorageEncryptedAtRest as String] as? Bool,
              let keySourceName = report[kSecKeychainStorageKeySource as String] as? String,
              let deviceBoundClassesAvailable = report[kSecKeychainStorageDeviceBoundClassesAvailable as String] as? Bool,
              let isLocked = report[kSecKeychainStorageLocked as String] as? Bool,
              let autoLockSeconds = report[kSecKeychainStorageAutoLockInterval as String] as? Int,
              let meetsRequirement = report[kSecKeychainStorageMeetsRequirement as String] as? Bool
        else {
            throw KeychainError(status: errSecInternalComponent, kind: .unexpectedResult, context: "storageSecurity")
        }
        return KeychainStorageSecurity(
            isEncryptedAtRest: encryptedAtRest,
            keySource: KeychainStorageSecurity.KeySource(rawValue: keySourceName) ?? KeychainStorageSecurity.KeySource.none,
            deviceBoundClassesAvailable: deviceBoundClassesAvailable,
            isLocked: isLocked,
            autoLockInterval: autoLockSeconds > 0 ? autoLockSeconds : nil,
            requirement: report[kSecKeychainStorageRequirement as String] as? String,
            meetsRequirement: meetsRequirement)
    }
}
#endif
