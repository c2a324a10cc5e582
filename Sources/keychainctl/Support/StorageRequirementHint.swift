import KeychainToolSupport

/// Why a keychain may be unavailable when `KEYCHAINKIT_REQUIRE` is set: the status alone
/// ("No keychain is available.") does not say that the process's own rule refused it.
enum StorageRequirementHint {
    /// A sentence to add to the message of `status`, or "".
    static func hint(for status: Int32) -> String {
        guard status == StatusCode.notAvailable, let requirement = Keychainctl.environment.storageRequirement else { return "" }
        return " (KEYCHAINKIT_REQUIRE=\(requirement) refuses a keychain below that level; "
            + "keychainctl show-keychain-info --security shows how it is protected)"
    }
}
