import KeychainEngine

/// Process settings for this package's command-line tools (`keychainctl`, the git and Docker
/// helpers), which manage the keychain as its owner rather than as one application. Not API:
/// `package` access, reached through `CredentialStore`'s `ToolEnvironment`.
package enum KeychainToolSettings {
    /// Lets the process see the items of every access group, as `security(1)` does. Adds go to
    /// the tool's own default group (`KEYCHAINKIT_ACCESS_GROUPS`' first, else `KEYCHAINKIT_APP_ID`,
    /// else the executable's name).
    package static func grantAllAccessGroups() {
        KeychainRegistry.shared.setAccessGroups(KeychainRegistry.shared.configuration.accessGroups.groups + ["*"])
    }

    /// Adds `group` to the process's access groups, after its own (adds still go to its default
    /// group).
    package static func grantAccessGroup(_ group: String) {
        KeychainRegistry.shared.setAccessGroups(KeychainRegistry.shared.configuration.accessGroups.groups + [group])
    }

    /// Test suites only: keychains are created with, and may be opened with, a deliberately cheap
    /// key derivation, so that tests can create many password keychains quickly.
    package static func useTestingKDF() {
        KeychainRegistry.shared.useTestingKDF(true)
    }
}
