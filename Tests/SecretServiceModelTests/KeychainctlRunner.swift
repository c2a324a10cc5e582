import Foundation
import KeychainTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `keychainctl` (next to the test bundle, `.build/debug`) on the test's default
/// keychain, as a separate process; passwords go through standard input, never argv.
enum KeychainctlRunner {
    static var path: String { BuiltProducts.path("keychainctl") }

    /// Runs keychainctl with `arguments` and `stdin`; returns the status and standard output.
    static func run(_ arguments: [String], stdin: String? = nil, directory: String) throws -> (status: Int32, stdout: String) {
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": directory, "LC_ALL": "C",
            "KEYCHAINKIT_KEYCHAIN": directory + "/login.keychain-db",
            // This process's device key and access group, so the tool and the store under test
            // (here, in this process) open the same classes and see the same items.
            "KEYCHAINKIT_DEVICE_KEY_FILE": AppleAPIRegistry.configuration.deviceKeyPath,
            "KEYCHAINKIT_APP_ID": AppleAPIRegistry.configuration.accessGroups.groups.last ?? "",
            "KEYCHAINKIT_SESSION_KEYRING": "off", "KEYCHAINKIT_TESTING_KDF": "1",
        ]
        let run = try ToolRun("keychainctl", arguments, stdin: stdin, environment: environment)
        return (run.status, run.stdout)
    }
}
