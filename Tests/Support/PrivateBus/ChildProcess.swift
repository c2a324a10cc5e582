import Foundation
import RequiredToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// Spawning programs for tests with `posix_spawn`, the one way the test support starts children:
/// the child gets no blocked signals and default signal actions (a test runner's threads block
/// SIGTERM, and a child inherits the mask of the thread that spawns it), the given descriptors as
/// standard input/output/error, and nothing else. Every other descriptor is closed in the child
/// (`closefrom(3)`), not only the close-on-exec ones: all test targets share one process, and a
/// socket or pipe some other test opened without `O_CLOEXEC` would otherwise live on in a daemon,
/// holding that test's connection or pipe open after it closed its end.
public enum ChildProcess {
    /// A child that could not be started, or a descriptor that could not be made for it.
    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `argv[0]` (an absolute path) and returns its pid. With `ownProcessGroup` the child
    /// leads a new process group from its first instruction, so that `kill(-pid, …)` reaches it
    /// and everything it starts, however early.
    public static func spawn(_ argv: [String], environment: [String: String], stdin: Int32, stdout: Int32, stderr: Int32,
                             ownProcessGroup: Bool = false) throws -> pid_t {
        try RequiredTool.requireIfKnown(argv[0])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stdout, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stderr, STDERR_FILENO)
        // After the dup2s, which may read descriptors above 2. Without it (glibc before 2.34, or
        // another libc) the child still gets none of the close-on-exec descriptors.
        if let addCloseFrom = addCloseFromFunction {
            let added = addCloseFrom(&actions, STDERR_FILENO + 1)
            guard added == 0 else { throw SpawnError(description: "posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(added)))") }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, argv[0], &actions, &attributes, cArguments, cEnvironment)
        guard result == 0 else { throw SpawnError(description: "cannot start \(argv[0]): \(String(cString: strerror(result)))") }
        return child
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), looked up at run time: Swift's
    /// Glibc module does not declare it (it needs _GNU_SOURCE).
    private static let addCloseFromFunction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }  // nil is RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// A close-on-exec pipe: (read end, write end). Made close-on-exec atomically with pipe2, so
    /// that no child spawned meanwhile by another thread inherits it.
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard let pipe2 = pipe2Function else { throw SpawnError(description: "pipe2 is not available") }
        guard pipe2(&descriptors, O_CLOEXEC) == 0 else { throw SpawnError(description: "pipe2: \(String(cString: strerror(errno)))") }
        return (descriptors[0], descriptors[1])
    }

    /// glibc's pipe2, looked up at run time: Swift's Glibc module does not declare it (it needs _GNU_SOURCE).
    private static let pipe2Function: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "pipe2") else { return nil }  // nil is RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    }()

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
