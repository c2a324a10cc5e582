import Foundation
import KeychainPrimitives
import RequiredToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// Spawning programs for tests through the library's `Subprocess`, the one way the test support
/// starts children: no blocked signals and default signal actions in the child (a test runner's
/// threads block SIGTERM), the given descriptors as standard input/output/error, and no other
/// descriptor: all test targets share one process, and a socket or pipe some other test opened
/// without `O_CLOEXEC` would otherwise live on in a daemon, holding that test's connection or pipe
/// open after it closed its end.
public enum ChildProcess {
    /// A child that could not be started, or a descriptor that could not be made for it.
    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `argv[0]` (an absolute path) and returns its pid. With `ownProcessGroup` the child
    /// leads a new process group from its first instruction, so that `kill(-pid, …)` reaches it
    /// and everything it starts, however early. A program the test machine lacks fails naming its
    /// Debian package.
    public static func spawn(_ argv: [String], environment: [String: String], stdin: Int32, stdout: Int32, stderr: Int32,
                             ownProcessGroup: Bool = false) throws -> pid_t {
        try IntegrationTier.requireEnabled(toRun: argv[0])
        try RequiredTool.requireIfKnown(argv[0])
        do {
            return try Subprocess.spawn(executable: argv[0], arguments: argv, environment: environment,
                                        stdin: stdin, stdout: stdout, stderr: stderr, ownProcessGroup: ownProcessGroup)
        } catch {
            throw SpawnError(description: error.description)
        }
    }

    /// A close-on-exec pipe: (read end, write end), made so atomically (no child spawned meanwhile
    /// by another thread inherits it).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        do {
            return try Subprocess.pipe()
        } catch {
            throw SpawnError(description: error.description)
        }
    }

    /// Writes all of `bytes` to `descriptor`, giving up when the reader has gone. A caller that
    /// writes to a child that may exit without reading must ignore SIGPIPE (as `SecretServiceHarness`
    /// does), so that it gets EPIPE instead of being killed.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
