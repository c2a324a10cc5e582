#if KEYCHAINKIT_REIMPLEMENTED
import Foundation
import KeychainServices
import KeychainServicesExtras

/// `SecKeychainCopyStorageSecurity` for `show-keychain-info --security`.
struct StorageSecurityReport {
    /// The keychain's absolute path.
    let path: String
    let values: [String: Any]

    /// Whether `KEYCHAINKIT_REQUIRE` (if set) accepts the keychain.
    var meetsRequirement: Bool { flag(kSecKeychainStorageMeetsRequirement) }

    /// The protection of the keychain at `path` (nil: the default keychain).
    static func of(_ path: String?) throws -> StorageSecurityReport {
        var keychain: SecKeychain?
        if let path {
            try require(SecKeychainOpen(path, &keychain), "SecKeychainOpen")
        } else {
            try require(SecKeychainCopyDefault(&keychain), "SecKeychainCopyDefault")
        }
        var result: CFDictionary?
        try require(SecKeychainCopyStorageSecurity(keychain, &result), "SecKeychainCopyStorageSecurity")
        guard let values = result as? [String: Any] else { throw UsageFailure(message: "SecKeychainCopyStorageSecurity returned no dictionary") }
        return StorageSecurityReport(path: keychain?.path ?? path ?? "", values: values)
    }

    private func flag(_ key: CFString) -> Bool { values[key as String] as? Bool ?? false }

    /// Whether the keychain service answers this process's calls (its keychain is not a file here).
    var isServiceMode: Bool { values[kSecKeychainStorageMode as String] as? String == "service" }

    /// The dictionary as JSON values.
    var json: [String: Any] { values }

    /// One line per property, indented under the `Keychain "…"` line.
    var lines: [String] {
        var lines = [
            "    encrypted at rest: \(flag(kSecKeychainStorageEncryptedAtRest) ? "yes (AES-256-GCM per item)" : "no")",
        ]
        if !isServiceMode { lines += [
            "    key source: \(values[kSecKeychainStorageKeySource as String] as? String ?? "unknown")",
            "    device-bound classes: \(flag(kSecKeychainStorageDeviceBoundClassesAvailable) ? "available" : "unavailable (the device key is not here)")",
            "    lock state: \(flag(kSecKeychainStorageLocked) ? "locked" : "unlocked")",
            "    auto-lock: \((values[kSecKeychainStorageAutoLockInterval as String] as? Int).map { $0 > 0 ? "after \($0)s" : "never" } ?? "unknown")",
        ] }
        if let requirement = values[kSecKeychainStorageRequirement as String] as? String {
            lines.append("    KEYCHAINKIT_REQUIRE=\(requirement): \(flag(kSecKeychainStorageMeetsRequirement) ? "met" : "NOT met (the keychain is refused)")")
        }
        lines.append("    mode: \(values[kSecKeychainStorageMode as String] as? String ?? "unknown")"
                     + ((values[kSecKeychainStorageModeProtects as String] as? String).map { " (protects against \($0))" } ?? ""))
        lines.append("    kernel.yama.ptrace_scope: \((values[kSecKeychainStoragePtraceScope as String] as? Int).map(String.init) ?? "absent")"
                     + ((values[kSecKeychainStoragePtraceMeaning as String] as? String).map { " (\($0))" } ?? ""))
        return lines
    }
}
#endif
