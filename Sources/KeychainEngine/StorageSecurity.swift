#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainStore
import KeychainVocabulary

/// How a keychain file is protected, as far as this process can tell: what an application asks
/// before it trusts the keychain with a secret, instead of discovering a weak store later.
package struct StorageSecurity: Sendable, Equatable {
    /// What the keychain's "when unlocked" class keys are wrapped with and where that secret comes from.
    package enum KeySource: String, Sendable, CaseIterable {
        /// No password: items are encrypted, but the key to them is in the file and the device key
        /// (like a device without a passcode); anyone who can read both as this user reads the items.
        case none
        /// A password a person types (or a program passes to `SecKeychainUnlock`).
        case password
        /// A password read from `KEYCHAINKIT_PASSWORD_FILE`.
        case passwordFile = "password-file"
        /// A password read from the systemd credential `keychainkit.password`.
        case systemdCredential = "systemd-credential"
        /// An unlock secret sealed to this machine's TPM.
        case tpm
    }

    /// Always true: every item's data and attributes are encrypted (AES-256-GCM) in the file.
    package var encryptedAtRest: Bool
    /// Where the unlock secret comes from.
    package var keySource: KeySource
    /// Whether the `…ThisDeviceOnly` classes are usable (the device key is here).
    package var deviceBoundClassesAvailable: Bool
    /// Whether the "when unlocked" classes are locked now.
    package var isLocked: Bool
    /// Seconds of inactivity after which the keychain locks; 0 for never.
    package var autoLockSeconds: Int

    /// The protection of `database` in a process configured as `configuration`.
    package static func of(_ database: KeychainDatabase, configuration: KeychainConfiguration) throws(KeychainStoreError) -> StorageSecurity {
        let status = try database.status
        let source: KeySource
        if !status.hasPassword {
            source = .none
        } else if FileManager.default.fileExists(atPath: database.path + ".tpm/seal.priv") {
            // `keychainctl create-keychain --tpm`: the password is a random secret sealed to the TPM.
            source = .tpm
        } else {
            switch configuration.unlockSource {
            case .passwordFile?: source = .passwordFile
            case .systemdCredential?: source = .systemdCredential
            case nil: source = .password
            }
        }
        return StorageSecurity(encryptedAtRest: true, keySource: source,
                               deviceBoundClassesAvailable: database.deviceBoundClassesAvailable,
                               isLocked: !status.isUnlocked, autoLockSeconds: status.autoLockSeconds)
    }
}

/// `KEYCHAINKIT_REQUIRE`: the least protection a keychain must have before this process creates
/// or uses it. Below it, the keychain is refused with `errSecNotAvailable` and a reason.
package enum StorageRequirement: Sendable, Equatable {
    /// `password`: the keychain has a password (typed, from a password file or a systemd credential).
    case password
    /// `tpm`: the unlock secret is sealed to this machine's TPM.
    case tpm
    /// `any-unlock-secret`: a password or a TPM-sealed secret; never a keychain without one.
    case anyUnlockSecret
    /// `service`: SecItem calls go to the keychain service (`KEYCHAINKIT_SERVICE_SOCKET`); every
    /// keychain this process would open itself (the embedded mode) is refused.
    case service
    /// A value that is none of these: every keychain is refused (a typo must not weaken the rule).
    case invalid(String)

    /// The requirement a `KEYCHAINKIT_REQUIRE` value names (any case), or nil when unset or empty.
    package static func named(_ value: String?) -> StorageRequirement? {
        guard let value, !value.isEmpty else { return nil }
        switch value.lowercased() {
        case "password": return .password
        case "tpm": return .tpm
        case "any-unlock-secret": return .anyUnlockSecret
        case "service": return .service
        default: return .invalid(value)
        }
    }

    /// Whether a keychain whose secret comes from `source` meets the requirement.
    package func isMet(by source: StorageSecurity.KeySource) -> Bool {
        switch self {
        case .password: return [.password, .passwordFile, .systemdCredential].contains(source)
        case .tpm: return source == .tpm
        case .anyUnlockSecret: return source != .none
        case .invalid, .service: return false
        }
    }

    /// The variable's value as written.
    package var name: String {
        switch self {
        case .password: return "password"
        case .tpm: return "tpm"
        case .anyUnlockSecret: return "any-unlock-secret"
        case .service: return "service"
        case .invalid(let value): return value
        }
    }

    /// Throws `notAvailable` with the reason and the fix unless a keychain at `path` protected by
    /// `source` meets the requirement (`creating`: it would be created so).
    package func check(_ source: StorageSecurity.KeySource, path: String, creating: Bool) throws(KeychainStoreError) {
        guard !isMet(by: source) else { return }
        let verb = creating ? "creating" : "using"
        switch self {
        case .invalid(let value):
            throw .notAvailable("\(KeychainVariable.require)=\(value) is not password, tpm, any-unlock-secret or service; no keychain is used until it is")
        case .service:
            throw .notAvailable("\(KeychainVariable.require)=service refuses \(verb) \(path) in this process (the embedded mode): "
                                + "set \(KeychainVariable.serviceSocket) to the keychain service's socket (keychainctl service run) "
                                + "or unset \(KeychainVariable.require)")
        case .tpm:
            throw .notAvailable("\(KeychainVariable.require)=tpm refuses \(verb) \(path): its password is not sealed to a TPM "
                                + "(keychainctl set-keychain-password --tpm seals one)")
        case .password, .anyUnlockSecret:
            throw .notAvailable("\(KeychainVariable.require)=\(name) refuses \(verb) \(path): it has no password; "
                                + "give it one (keychainctl set-keychain-password) or unset \(KeychainVariable.require)")
        }
    }
}
