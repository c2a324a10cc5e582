import Foundation
import KeychainServiceCore
import RequiredToolSupport
import Testing

/// Pid reuse between connect and check: the process that connected exits, another process takes
/// its pid, and only then does the service look the peer up. The kernel's `SO_PEERCRED` still names
/// the old pid; the service must refuse the peer, never describe the newcomer. Needs root (it
/// steers the kernel's next pid through `/proc/sys/kernel/ns_last_pid`).
@Suite("Keychain service pid reuse", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "writes /proc/sys/kernel/ns_last_pid: run as root"))
struct PidReuseTests {
    @Test("a peer whose pid now belongs to another process is refused, not identified as that process")
    func reusedPid() throws {
        let directory = "/tmp/kkpid-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/s.sock"
        let listener = try Self.listen(at: path)
        defer { close(listener) }
        var reused = false
        // Other processes on the machine may take the pid first: try again a few times.
        for _ in 0..<40 where !reused {
            // The connecting process: connects, then exits (and is reaped) before anyone accepts.
            let connector = Process()
            connector.executableURL = URL(fileURLWithPath: try RequiredTool.python3.require())
            connector.arguments = ["-I", "-c", "import socket; s = socket.socket(socket.AF_UNIX); s.connect('\(path)')"]
            try connector.run()
            connector.waitUntilExit()
            let oldPid = connector.processIdentifier
            // The newcomer takes the same pid.
            try String(oldPid - 1).write(toFile: "/proc/sys/kernel/ns_last_pid", atomically: false, encoding: .utf8)
            // posix_spawn at once: Foundation's Process may start a thread (which takes a pid) first.
            var newcomerPid: pid_t = 0
            let words: [String] = ["/bin/sleep", "10"]
            let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { arguments.forEach { free($0) } }
            let spawned = posix_spawn(&newcomerPid, "/bin/sleep", nil, nil, arguments, environ)
            try #require(spawned == 0)
            defer {
                kill(newcomerPid, SIGKILL)
                var status: Int32 = 0
                waitpid(newcomerPid, &status, 0)
            }
            let connection = accept(listener, nil, nil)
            try #require(connection >= 0)
            defer { close(connection) }
            guard newcomerPid == oldPid else { continue }
            reused = true
            // The pid is the newcomer's now, and SO_PEERCRED still names it.
            #expect(try PeerIdentification.credentials(connection).pid == oldPid)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(oldPid)/exe").hasSuffix("sleep"))
            do {
                let identity = try PeerIdentification.identify(connection, hashes: ExecutableHashCache())
                Issue.record("a reused pid was identified as \(identity.executablePath)")
            } catch {
                #expect(error.description.contains("gone") || error.description.contains("exited"), "\(error)")
            }
        }
        #expect(reused, "no newcomer took the old pid in 40 tries")
    }

    static func listen(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 8) == 0 else { throw FixtureFailure("cannot listen at \(path)") }
        return descriptor
    }
}
