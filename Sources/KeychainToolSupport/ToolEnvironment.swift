
#if !KEYCHAINKIT_REIMPLEMENTED
/// Process configuration for the command-line tools. On Apple platforms the Security framework
/// decides access groups (entitlements) and key derivation, so there is nothing to configure.
package struct ToolEnvironment: Sendable {
    /// The environment of this process; for the tools' entry points.
    package static func ofThisProcess() -> ToolEnvironment { ToolEnvironment() }
    /// Nothing to do on Apple platforms.
    package func grantAllAccessGroups() {}
    /// Nothing to do on Apple platforms.
    package func useTestingKDF() {}
    /// Nothing to do on Apple platforms.
    package func grantAccessGroup(_ group: String) {}
    /// Never on Apple platforms.
    package var testingKDFRequested: Bool { false }
    /// None on Apple platforms: the Security framework has no such rule.
    package var storageRequirement: String? { nil }
    /// The executable's own name: on Apple platforms entitlements name the groups.
    package func defaultAccessGroup(ofExecutable executableName: String) -> String { executableName }
    /// None on Apple platforms: the Security framework is not unlocked through variables.
    package var unlockingVariableNames: Set<String> { [] }
}
#else
import KeychainEngine
#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on the KeychainAudit dependency
import KeychainAudit
#endif

/// The configuration the command-line tools run with on KeychainKit's own keychain: the one seam
/// where the tools ask for more than an application gets. A value: each tool's entry point makes
/// it once (``ofThisProcess()``, over the registry its SecItem calls use) and passes it down.
package struct ToolEnvironment: Sendable {
    /// The settings, over the registry the tool works on.
    package let settings: KeychainToolSettings

    /// An environment over `settings`.
    package init(settings: KeychainToolSettings) {
        self.settings = settings
    }

    /// The environment of this process: the registry of Apple's C API in it, whose configuration
    /// is read once from the process's variables. For the tools' entry points, once.
    package static func ofThisProcess() -> ToolEnvironment {
        ToolEnvironment(settings: .ofThisProcess())
    }

    /// The configuration the tool runs with (its registry's): the keychain service's socket, the
    /// default keychain, the device key, the access groups.
    package var configuration: KeychainConfiguration {
        settings.registry.configuration
    }

    /// Lets the tool see the items of every access group, as `security(1)` does. Adds go to the
    /// tool's own default group (`KEYCHAINKIT_ACCESS_GROUPS`' first, else `KEYCHAINKIT_APP_ID`,
    /// else the executable's name).
    package func grantAllAccessGroups() {
        settings.grantAllAccessGroups()
    }

    /// Adds `group` to the tool's access groups, after its own (adds still go to its default group):
    /// the Docker helper reaches the access log's key item this way.
    package func grantAccessGroup(_ group: String) {
        settings.grantAccessGroup(group)
    }

    /// Test suites only: keychains are created with, and may be opened with, a deliberately cheap
    /// key derivation, so that tests can create many password keychains quickly.
    package func useTestingKDF() {
        settings.useTestingKDF()
    }

    /// Whether the test suites ask for ``useTestingKDF()`` (`KEYCHAINKIT_TESTING_KDF=1`).
    package var testingKDFRequested: Bool {
        settings.testingKDFRequested
    }

    /// The `KEYCHAINKIT_REQUIRE` setting (normalized), or nil when none is set.
    package var storageRequirement: String? {
        settings.storageRequirement
    }

    /// The default access group of the tool whose executable is `executableName`
    /// (`KEYCHAINKIT_ACCESS_GROUPS`' first, else `KEYCHAINKIT_APP_ID`, else `executableName`).
    package func defaultAccessGroup(ofExecutable executableName: String) -> String {
        settings.defaultAccessGroup(ofExecutable: executableName)
    }

    /// The etcd user's password from `KEYCHAINKIT_ETCD_PASSWORD`, or nil.
    package var etcdPassword: String? {
        settings.etcdPassword
    }

    /// KeychainKit's variables that unlock keychains or hold a secret (`KEYCHAINKIT_PASSWORD_FILE`,
    /// `KEYCHAINKIT_ETCD_PASSWORD`), which `keychainctl exec` withholds from its program.
    package var unlockingVariableNames: Set<String> {
        KeychainToolSettings.unlockingVariableNames
    }

    /// The default keychain's path (`SecKeychainCopyDefault`'s): where the tool's SecItem calls
    /// read and write when the keychain service is not in use.
    package var defaultKeychainPath: String {
        settings.registry.defaultKeychainPath
    }

    /// Whether SecItem calls go to the keychain service (`KEYCHAINKIT_SERVICE_SOCKET` is set).
    package var usesKeychainService: Bool {
        settings.usesKeychainService
    }

    /// The pinentry program the configuration names, or nil when no prompt can be shown.
    package var promptProgram: KeychainPromptProgram? {
        settings.promptProgram
    }

    #if os(Linux)
    /// The access log's settings from the configuration (`KEYCHAINKIT_ACCESS_LOG_MAX_BYTES`,
    /// `KEYCHAINKIT_ACCESS_LOG_FILES`, `KEYCHAINKIT_ACCESS_LOG_SYNC_MS`, `KEYCHAINKIT_ACCESS_LOG_TEST_KILL`), or
    /// ``AccessLogError/invalidSetting(name:value:expected:)`` naming a value the log cannot use.
    package func accessLogSettings() throws(AccessLogError) -> AccessLogSettings {
        let configured = settings.accessLog
        func number(_ setting: NumberSetting, default value: Int) throws(AccessLogError) -> Int {
            switch setting {
            case .unset: return value
            case .value(let number): return number
            case .refused(let name, let text, let expected): throw .invalidSetting(name: name, value: text, expected: expected)
            }
        }
        return AccessLogSettings(
            maximumFileSize: try number(configured.maximumFileSize, default: AccessLogFiles.defaultMaximumFileSize),
            rotatedFiles: try number(configured.rotatedFiles, default: AccessLogFiles.defaultRotatedFiles),
            killsWriterMidAppend: configured.killsWriterMidAppend,
            syncBound: Double(try number(configured.syncBoundMilliseconds,
                                         default: Int(AccessLogGroupCommit.defaultSyncBound * 1000))) / 1000)
    }
    #endif
}
#endif
