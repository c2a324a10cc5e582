import Foundation
import RequiredToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real etcd cluster of `size` members on loopback (Debian's etcd-server), each in its own data
/// directory under a fresh temporary folder. Members can be killed and restarted; everything is
/// stopped and removed when the cluster is released.
public final class EtcdCluster {
    public struct Member {
        public var name: String
        public var clientPort: UInt16
        public var peerPort: UInt16
        public var process: Process?
    }

    public static let executable = "/usr/bin/etcd"
    public let directory: URL
    public private(set) var members: [Member]

    /// Client endpoints of every member, for `EtcdClient`.
    public var endpoints: [String] { members.map { "http://127.0.0.1:\($0.clientPort)" } }

    public init(size: Int = 3) throws {
        try RequiredTool.require([.etcd, .etcdctl])
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-etcd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        members = try (0..<size).map { index in
            Member(name: "m\(index)", clientPort: try Self.freePort(), peerPort: try Self.freePort(), process: nil)
        }
        for index in members.indices { try start(index) }
        try waitUntilServing()
    }

    deinit {
        for index in members.indices { kill(index) }
        try? FileManager.default.removeItem(at: directory)  // test cleanup only
    }

    /// Starts (or restarts, keeping its data) member `index`.
    public func start(_ index: Int) throws {
        let member = members[index]
        let cluster = members.map { "\($0.name)=http://127.0.0.1:\($0.peerPort)" }.joined(separator: ",")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = [
            "--name", member.name, "--data-dir", directory.appendingPathComponent(member.name).path,
            "--listen-client-urls", "http://127.0.0.1:\(member.clientPort)",
            "--advertise-client-urls", "http://127.0.0.1:\(member.clientPort)",
            "--listen-peer-urls", "http://127.0.0.1:\(member.peerPort)",
            "--initial-advertise-peer-urls", "http://127.0.0.1:\(member.peerPort)",
            "--initial-cluster", cluster, "--initial-cluster-state", "new",
            "--initial-cluster-token", directory.lastPathComponent,
        ]
        let log = directory.appendingPathComponent("\(member.name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)  // FileHandle(forWritingTo:) below throws if it was not made
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        members[index].process = process
    }

    /// Kills member `index` with SIGKILL (no clean shutdown) and waits for it to exit.
    public func kill(_ index: Int) {
        guard let process = members[index].process else { return }
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        members[index].process = nil
    }

    /// Waits until a write through every running member succeeds (a leader is elected).
    public func waitUntilServing(timeout: Duration = .seconds(60)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if members.allSatisfy({ $0.process == nil || Self.answers("http://127.0.0.1:\($0.clientPort)") }) { return }
            usleep(100_000)
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "etcd did not start: see \(directory.path)"])
    }

    private static func answers(_ endpoint: String) -> Bool {
        // A put needs a leader; a bare range can be served by a member still electing.
        let task = Process()
        task.executableURL = URL(fileURLWithPath: "/usr/bin/etcdctl")
        task.arguments = ["--endpoints", endpoint, "--command-timeout=2s", "put", "kk-health", "ok"]
        task.environment = ["ETCDCTL_API": "3"]
        task.standardOutput = FileHandle.nullDevice
        task.standardError = FileHandle.nullDevice
        do {
            try task.run()
        } catch {
            return false
        }
        task.waitUntilExit()
        return task.terminationStatus == 0
    }

    /// A TCP port nothing listens on now (bound to port 0, then released).
    private static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileReadUnknown) }
        return UInt16(bigEndian: address.sin_port)
    }
}
