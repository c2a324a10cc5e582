import Foundation

#if !KEYCHAINKIT_REIMPLEMENTED
/// Process configuration for the command-line tools. On Apple platforms the Security framework
/// decides access groups (entitlements) and key derivation, so there is nothing to configure.
package enum ToolEnvironment {
    /// Nothing to do on Apple platforms.
    package static func grantAllAccessGroups() {}
    /// Nothing to do on Apple platforms.
    package static func useTestingKDF() {}
    /// Nothing to do on Apple platforms.
    package static func grantAccessGroup(_ group: String) {}
}
#else
import KeychainServicesExtras

/// Process configuration for the command-line tools on KeychainKit's own keychain: the one seam
/// where the tools ask for more than an application gets (through `KeychainServicesExtras`).
package enum ToolEnvironment {
    /// Lets the tool see the items of every access group, as `security(1)` does. Adds go to the
    /// tool's own default group (`KEYCHAINKIT_ACCESS_GROUPS`' first, else `KEYCHAINKIT_APP_ID`,
    /// else the executable's name).
    package static func grantAllAccessGroups() {
        KeychainToolSettings.grantAllAccessGroups()
    }

    /// Adds `group` to the tool's access groups, after its own (adds still go to its default group):
    /// the Docker helper reaches the access log's key item this way.
    package static func grantAccessGroup(_ group: String) {
        KeychainToolSettings.grantAccessGroup(group)
    }

    /// Test suites only: keychains are created with, and may be opened with, a deliberately cheap
    /// key derivation, so that tests can create many password keychains quickly.
    package static func useTestingKDF() {
        KeychainToolSettings.useTestingKDF()
    }
}
#endif
