import Foundation
import KeychainEngine
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `keychainctl` (next to the test bundle, `.build/debug`) on the test's default
/// keychain, as a separate process; passwords go through standard input, never argv.
enum KeychainctlRunner {
    static var path: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]  // test code only
        return (executable as NSString).deletingLastPathComponent + "/keychainctl"
    }

    /// Runs keychainctl with `arguments` and `stdin`; returns the status and standard output.
    static func run(_ arguments: [String], stdin: String? = nil, directory: String) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = [
            "PATH": "/usr/bin:/bin", "HOME": directory, "LC_ALL": "C",
            "KEYCHAINKIT_KEYCHAIN": directory + "/login.keychain-db",
            // This process's device key and access group, so the tool and the store under test
            // (here, in this process) open the same classes and see the same items.
            "KEYCHAINKIT_DEVICE_KEY_FILE": KeychainRegistry.shared.configuration.deviceKeyPath,
            "KEYCHAINKIT_APP_ID": KeychainRegistry.shared.configuration.accessGroups.groups.last ?? "",
            "KEYCHAINKIT_SESSION_KEYRING": "off", "KEYCHAINKIT_TESTING_KDF": "1",
        ]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        signal(SIGPIPE, SIG_IGN)
        if let stdin { try input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
