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

    /// Whether SecItem calls go to the keychain service (`KEYCHAINKIT_SERVICE_SOCKET` is set):
    /// the keychain file and its access log are then the service's, not this process's.
    package static var usesKeychainService: Bool {
        KeychainRegistry.shared.configuration.serviceSocketPath != nil
    }

    /// Test suites only: keychains are created with, and may be opened with, a deliberately cheap
    /// key derivation, so that tests can create many password keychains quickly.
    package static func useTestingKDF() {
        KeychainRegistry.shared.useTestingKDF(true)
    }

    /// Whether `KEYCHAINKIT_TESTING_KDF=1` asks for ``useTestingKDF()``.
    package static var testingKDFRequested: Bool {
        KeychainRegistry.shared.configuration.testingKDFRequested
    }

    /// The `KEYCHAINKIT_REQUIRE` setting (normalized: `password`, `tpm`, `any-unlock-secret`, or
    /// an invalid value as written), or nil when none is set.
    package static var storageRequirement: String? {
        KeychainRegistry.shared.configuration.storageRequirement?.name
    }

    /// The default access group (for adds) of the tool whose executable is `executableName`, under
    /// this process's configuration: `KEYCHAINKIT_ACCESS_GROUPS`' first, else `KEYCHAINKIT_APP_ID`,
    /// else `executableName`.
    package static func defaultAccessGroup(ofExecutable executableName: String) -> String {
        KeychainRegistry.shared.configuration.accessGroups(ofExecutable: executableName).groups.first ?? executableName
    }

    /// The etcd user's password from `KEYCHAINKIT_ETCD_PASSWORD`, or nil.
    package static var etcdPassword: String? {
        KeychainRegistry.shared.configuration.etcdPassword?.value
    }

    /// KeychainKit's variables that unlock keychains or hold a secret (`KEYCHAINKIT_PASSWORD_FILE`,
    /// `KEYCHAINKIT_ETCD_PASSWORD`): `keychainctl exec` withholds them from the program it runs.
    package static var unlockingVariableNames: Set<String> {
        [KeychainVariable.passwordFile, KeychainVariable.etcdPassword]
    }

    /// The access log's settings: rotation limits and the debug builds' killed-writer hook.
    package static var accessLog: AccessLogConfiguration {
        KeychainRegistry.shared.configuration.accessLog
    }
}

/// The access log's settings (`KeychainEngine`'s type), named here for the tools, which reach the
/// engine only through this module.
package typealias AccessLogConfiguration = KeychainEngine.AccessLogConfiguration
/// A number setting (`KeychainEngine`'s type), named here for the tools.
package typealias NumberSetting = KeychainEngine.NumberSetting
