#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the conditions on the KeychainEngine and KeychainClient dependencies
// The tools' policy: it changes the engine's settings (access groups, key derivation), which an
// application never may, so it lives with the tools and reaches the engine itself, instead of
// hiding in the Apple-shaped extras every application links.
import KeychainClient
import KeychainEngine

/// Settings for this package's command-line tools (`keychainctl`, the git and Docker helpers),
/// which manage the keychain as its owner rather than as one application, on the registry they are
/// given. Reached through ``ToolEnvironment``.
///
/// A value over one ``KeychainRegistry``: the tools' entry points make one for the process
/// (``ofThisProcess()``, the registry their SecItem calls use) and pass it down; a test makes one
/// over a registry of its own.
package struct KeychainToolSettings: Sendable {
    /// The keychains and configuration these settings read and change.
    package let registry: KeychainRegistry

    /// Settings over `registry`.
    package init(registry: KeychainRegistry) {
        self.registry = registry
    }

    /// The settings of this process's keychains (KeychainClient's ``ProcessKeychains``): the
    /// registry the tool's SecItem and SecKeychain calls work on, through either edge. For the tools' entry points, once.
    package static func ofThisProcess() -> KeychainToolSettings {
        KeychainToolSettings(registry: ProcessKeychains.registry)
    }

    /// Lets the registry's callers see the items of every access group, as `security(1)` does.
    /// Adds go to the tool's own default group (`KEYCHAINKIT_ACCESS_GROUPS`' first, else
    /// `KEYCHAINKIT_APP_ID`, else the executable's name).
    package func grantAllAccessGroups() {
        registry.setAccessGroups(registry.configuration.accessGroups.groups + ["*"])
    }

    /// Adds `group` to the registry's access groups, after its own (adds still go to its default
    /// group).
    package func grantAccessGroup(_ group: String) {
        registry.setAccessGroups(registry.configuration.accessGroups.groups + [group])
    }

    /// Whether SecItem calls go to the keychain service (`KEYCHAINKIT_SERVICE_SOCKET` is set):
    /// the keychain file and its access log are then the service's, not this process's.
    package var usesKeychainService: Bool {
        registry.configuration.serviceSocketPath != nil
    }

    /// Test suites only: keychains are created with, and may be opened with, a deliberately cheap
    /// key derivation, so that tests can create many password keychains quickly.
    package func useTestingKDF() {
        registry.useTestingKDF(true)
    }

    /// Whether `KEYCHAINKIT_TESTING_KDF=1` asks for ``useTestingKDF()``.
    package var testingKDFRequested: Bool {
        registry.configuration.testingKDFRequested
    }

    /// The `KEYCHAINKIT_REQUIRE` setting (normalized: `password`, `tpm`, `any-unlock-secret`, or
    /// an invalid value as written), or nil when none is set.
    package var storageRequirement: String? {
        registry.configuration.storageRequirement?.name
    }

    /// The default access group (for adds) of the tool whose executable is `executableName`, under
    /// the registry's configuration: `KEYCHAINKIT_ACCESS_GROUPS`' first, else `KEYCHAINKIT_APP_ID`,
    /// else `executableName`.
    package func defaultAccessGroup(ofExecutable executableName: String) -> String {
        registry.configuration.accessGroups(ofExecutable: executableName).groups.first ?? executableName
    }

    /// The etcd user's password from `KEYCHAINKIT_ETCD_PASSWORD`, or nil.
    package var etcdPassword: String? {
        registry.configuration.etcdPassword?.value
    }

    /// KeychainKit's variables that unlock keychains or hold a secret (`KEYCHAINKIT_PASSWORD_FILE`,
    /// `KEYCHAINKIT_ETCD_PASSWORD`): `keychainctl exec` withholds them from the program it runs.
    package static var unlockingVariableNames: Set<String> {
        [KeychainVariable.passwordFile, KeychainVariable.etcdPassword]
    }

    /// The access log's settings: rotation limits and the debug builds' killed-writer hook.
    package var accessLog: AccessLogConfiguration {
        registry.configuration.accessLog
    }

    /// The pinentry program the registry's configuration names (`KEYCHAINKIT_PINENTRY`, or
    /// `pinentry` on the `PATH` when there is a terminal or a display), or nil when no prompt can
    /// be shown.
    package var promptProgram: KeychainPromptProgram? {
        registry.configuration.authenticator.pinentry.map {
            KeychainPromptProgram(program: $0.program, terminal: $0.terminal, responseTimeout: $0.responseTimeout)
        }
    }
}

/// The access log's settings (`KeychainEngine`'s type), named here for the tools, which reach the
/// engine only through this module.
package typealias AccessLogConfiguration = KeychainEngine.AccessLogConfiguration
/// A number setting (`KeychainEngine`'s type), named here for the tools.
package typealias NumberSetting = KeychainEngine.NumberSetting
#endif
