#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import InternetCredentials
import KeychainClient

/// `SecKeychainCopyStorageSecurity` (KeychainClient's) for `show-keychain-info --security`.
struct StorageSecurityReport {
    /// The keychain's absolute path.
    let path: String
    let values: [String: Any]

    /// Whether `KEYCHAINKIT_REQUIRE` (if set) accepts the keychain.
    var meetsRequirement: Bool { flag(StorageSecurityKey.meetsRequirement) }

    /// Where the unlock secret comes from: `none`, `password`, `password-file`, `systemd-credential` or `tpm`.
    var keySource: String? { values[StorageSecurityKey.keySource] as? String }

    /// The protection of the keychain at `path` (nil: the default keychain).
    static func of(_ path: String?) throws(KeychainCallError) -> StorageSecurityReport {
        let path = path.map(KeychainFiles.resolve) ?? KeychainFiles.defaultPath
        let (status, values) = KeychainClient.keychainStorageSecurity(path)
        try require(status, "SecKeychainCopyStorageSecurity")
        return StorageSecurityReport(path: path, values: values)
    }

    private func flag(_ key: String) -> Bool { values[key] as? Bool ?? false }

    /// Whether the keychain service answers this process's calls (its keychain is not a file here).
    var isServiceMode: Bool { values[StorageSecurityKey.mode] as? String == "service" }

    /// The dictionary as JSON values.
    var json: [String: Any] { values }

    /// One line per property, indented under the `Keychain "…"` line.
    var lines: [String] {
        var lines = [
            "    encrypted at rest: \(flag(StorageSecurityKey.encryptedAtRest) ? "yes (AES-256-GCM per item)" : "no")",
        ]
        if !isServiceMode { lines += [
            "    key source: \(values[StorageSecurityKey.keySource] as? String ?? "unknown")",
            "    device-bound classes: \(flag(StorageSecurityKey.deviceBoundClassesAvailable) ? "available" : "unavailable (the device key is not here)")",
            "    lock state: \(flag(StorageSecurityKey.locked) ? "locked" : "unlocked")",
            "    auto-lock: \((values[StorageSecurityKey.autoLockInterval] as? Int).map { $0 > 0 ? "after \($0)s" : "never" } ?? "unknown")",
        ] }
        if let requirement = values[StorageSecurityKey.requirement] as? String {
            lines.append("    KEYCHAINKIT_REQUIRE=\(requirement): \(flag(StorageSecurityKey.meetsRequirement) ? "met" : "NOT met (the keychain is refused)")")
        }
        lines.append("    mode: \(values[StorageSecurityKey.mode] as? String ?? "unknown")"
                     + ((values[StorageSecurityKey.modeProtects] as? String).map { " (protects against \($0))" } ?? ""))
        lines.append("    kernel.yama.ptrace_scope: \((values[StorageSecurityKey.ptraceScope] as? Int).map(String.init) ?? "absent")"
                     + ((values[StorageSecurityKey.ptraceMeaning] as? String).map { " (\($0))" } ?? ""))
        return lines
    }
}
#endif
