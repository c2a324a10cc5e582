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
    /// Never on Apple platforms.
    package static var testingKDFRequested: Bool { false }
    /// None on Apple platforms: the Security framework has no such rule.
    package static var storageRequirement: String? { nil }
    /// The executable's own name: on Apple platforms entitlements name the groups.
    package static func defaultAccessGroup(ofExecutable executableName: String) -> String { executableName }
    /// None on Apple platforms: the Security framework is not unlocked through variables.
    package static var unlockingVariableNames: Set<String> { [] }
}
#else
import KeychainServicesExtras
#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on the KeychainAudit dependency
import KeychainAudit
#endif

/// Process configuration for the command-line tools on KeychainKit's own keychain: the one seam
/// where the tools ask for more than an application gets, and where they read the process's
/// configuration (through `KeychainServicesExtras`; its variables are read once per process).
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

    /// Whether the test suites ask for ``useTestingKDF()`` (`KEYCHAINKIT_TESTING_KDF=1`).
    package static var testingKDFRequested: Bool {
        KeychainToolSettings.testingKDFRequested
    }

    /// The `KEYCHAINKIT_REQUIRE` setting (normalized), or nil when none is set.
    package static var storageRequirement: String? {
        KeychainToolSettings.storageRequirement
    }

    /// The default access group of the tool whose executable is `executableName`
    /// (`KEYCHAINKIT_ACCESS_GROUPS`' first, else `KEYCHAINKIT_APP_ID`, else `executableName`).
    package static func defaultAccessGroup(ofExecutable executableName: String) -> String {
        KeychainToolSettings.defaultAccessGroup(ofExecutable: executableName)
    }

    /// The etcd user's password from `KEYCHAINKIT_ETCD_PASSWORD`, or nil.
    package static var etcdPassword: String? {
        KeychainToolSettings.etcdPassword
    }

    /// KeychainKit's variables that unlock keychains or hold a secret (`KEYCHAINKIT_PASSWORD_FILE`,
    /// `KEYCHAINKIT_ETCD_PASSWORD`), which `keychainctl exec` withholds from its program.
    package static var unlockingVariableNames: Set<String> {
        KeychainToolSettings.unlockingVariableNames
    }

    #if os(Linux)
    /// The access log's settings from the configuration (`KEYCHAINKIT_ACCESS_LOG_MAX_BYTES`,
    /// `KEYCHAINKIT_ACCESS_LOG_FILES`, `KEYCHAINKIT_ACCESS_LOG_TEST_KILL`), or
    /// ``AccessLogError/invalidSetting(name:value:expected:)`` naming a value the log cannot use.
    package static func accessLogSettings() throws(AccessLogError) -> AccessLogSettings {
        let configured = KeychainToolSettings.accessLog
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
            killsWriterMidAppend: configured.killsWriterMidAppend)
    }
    #endif
}
#endif
