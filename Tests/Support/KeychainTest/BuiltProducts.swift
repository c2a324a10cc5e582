import Foundation

/// Where the package's built executables are (keychainctl, keychainkit-torture, the migration
/// probe): beside the test binary itself, `.build/<configuration>`.
package enum BuiltProducts {
    /// The folder of the running test binary (found through /proc/self/exe, which names the real
    /// file even when the runner started it through a link).
    package static let folder: String = {
        let executable: String
        do {
            executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        } catch {
            // No /proc (not Linux): the path the test runner was started with.
            executable = CommandLine.arguments[0]
        }
        return (executable as NSString).deletingLastPathComponent
    }()

    /// The absolute path of the built executable `name`.
    package static func path(_ name: String) -> String { folder + "/" + name }
}
