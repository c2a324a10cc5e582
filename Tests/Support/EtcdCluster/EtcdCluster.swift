import Foundation
import LoopbackPortSupport
import RequiredToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real etcd cluster of `size` members on loopback (Debian's etcd-server), each in its own data
/// directory under a fresh temporary folder. Members can be killed and restarted; everything is
/// stopped and removed when the cluster is released. With ``Security`` its client URLs are
/// `https://` (peers stay plain HTTP on loopback), optionally requiring client certificates.
public final class EtcdCluster {
    /// TLS for the client URLs.
    public struct Security {
        /// The certificates (the server's, and the CA that etcd trusts for client certificates).
        public var certificates: TestCertificates
        /// etcd's `--client-cert-auth`: refuse clients without a certificate the CA signed.
        public var requireClientCertificates: Bool
        /// etcd's `--auth-token-ttl` (seconds a simple auth token lives).
        public var authTokenTTL: Int

        public init(certificates: TestCertificates, requireClientCertificates: Bool, authTokenTTL: Int = 300) {
            self.certificates = certificates
            self.requireClientCertificates = requireClientCertificates
            self.authTokenTTL = authTokenTTL
        }
    }

    public struct Member {
        public var name: String
        public var clientPort: UInt16
        public var peerPort: UInt16
        public var process: Process?
    }

    public static let executable = "/usr/bin/etcd"
    public let directory: URL
    public private(set) var members: [Member]
    public let security: Security?

    /// Client endpoints of every member, for `EtcdClient`.
    public var endpoints: [String] { members.map { clientURL($0) } }

    private func clientURL(_ member: Member) -> String {
        "\(security == nil ? "http" : "https")://127.0.0.1:\(member.clientPort)"
    }

    /// How many times the cluster is started on fresh ports when a member exits while starting.
    private static let startAttempts = 3

    public init(size: Int = 3, security: Security? = nil) throws {
        try RequiredTool.require([.etcd, .etcdctl])
        self.security = security
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-etcd-\(UUID().uuidString)")
        members = []
        var exits: [String] = []
        for _ in 0..<Self.startAttempts {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            members = try (0..<size).map { index in
                Member(name: "m\(index)", clientPort: try LoopbackPort.next(), peerPort: try LoopbackPort.next(), process: nil)
            }
            for index in members.indices { try start(index) }
            do {
                try waitUntilServing()
                return
            } catch EtcdClusterFailure.memberExited(let report) {
                // A member that cannot start (its port taken after all, a crash) is reported and
                // the whole cluster starts again from nothing on other ports.
                exits.append(report)
                for index in members.indices { kill(index) }
                try FileManager.default.removeItem(at: directory)
            }
        }
        throw EtcdClusterFailure.couldNotStart(attempts: Self.startAttempts, reports: exits)
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
            "--listen-client-urls", clientURL(member), "--advertise-client-urls", clientURL(member),
            "--listen-peer-urls", "http://127.0.0.1:\(member.peerPort)",
            "--initial-advertise-peer-urls", "http://127.0.0.1:\(member.peerPort)",
            "--initial-cluster", cluster, "--initial-cluster-state", "new",
            "--initial-cluster-token", directory.lastPathComponent,
        ]
        if let security {
            process.arguments! += ["--cert-file", security.certificates.serverCertificateFile,
                                   "--key-file", security.certificates.serverKeyFile,
                                   "--auth-token-ttl", String(security.authTokenTTL)]
            if security.requireClientCertificates {
                process.arguments! += ["--client-cert-auth", "--trusted-ca-file", security.certificates.caFile]
            }
        }
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

    /// Waits until a write through every running member succeeds (a leader is elected). The bound
    /// only ends a run that would hang: the suite starts several clusters at once beside the other
    /// daemons' suites, and on 2 loaded cores an election has taken over 60 s.
    ///
    /// A member that exits meanwhile ends the wait at once (``EtcdClusterFailure/memberExited(_:)``,
    /// with its log), except one that could not bind its port: right after a member is killed, the
    /// sockets of its previous run can hold its port for a moment (seen in the full suite), and
    /// clients know the member by that port, so it is started again there, up to
    /// ``rebindAttempts`` times, half a second apart.
    public func waitUntilServing(timeout: Duration = .seconds(180)) throws {
        let deadline = ContinuousClock.now + timeout
        var rebinds = 0
        while ContinuousClock.now < deadline {
            if let index = members.indices.first(where: { members[$0].process?.isRunning == false }) {
                let exited = members[index]
                if rebinds < Self.rebindAttempts, logTail(exited, lines: 1).contains("address already in use") {
                    rebinds += 1
                    usleep(500_000)
                    try start(index)
                    continue
                }
                throw EtcdClusterFailure.memberExited("""
                    etcd member \(exited.name) (client port \(exited.clientPort), peer port \(exited.peerPort)) \
                    exited with status \(exited.process?.terminationStatus ?? 0); its log ends:
                    \(logTail(exited))
                    """)
            }
            if members.allSatisfy({ $0.process == nil || answers(clientURL($0)) }) { return }
            usleep(100_000)
        }
        throw EtcdClusterFailure.notServing(after: timeout, logs: members.map { "\($0.name): \(logTail($0))" })
    }

    /// How many times ``waitUntilServing(timeout:)`` starts a member again on its own port after
    /// it exited with "address already in use".
    public static let rebindAttempts = 20

    /// The last lines of member `member`'s log (the folder is removed with the cluster, so failures
    /// carry what it said).
    private func logTail(_ member: Member, lines: Int = 12) -> String {
        let log = FileManager.default.contents(atPath: directory.appendingPathComponent("\(member.name).log").path) ?? Data()
        return String(decoding: log, as: UTF8.self).split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    private func answers(_ endpoint: String) -> Bool {
        // A put needs a leader; a bare range can be served by a member still electing.
        (try? etcdctl(["--endpoints", endpoint, "--command-timeout=2s", "put", "kk-health", "ok"])) != nil
    }

    /// Runs etcdctl (API v3) against this cluster with its TLS settings, `input` on its standard
    /// input; returns its output (standard output and error together), or throws with it.
    @discardableResult
    public func etcdctl(_ arguments: [String], input: String = "") throws -> String {
        let task = Process()
        task.executableURL = URL(fileURLWithPath: "/usr/bin/etcdctl")
        var tls: [String] = []
        if let certificates = security?.certificates {
            tls = ["--cacert", certificates.caFile, "--cert", certificates.clientCertificateFile, "--key", certificates.clientKeyFile]
        }
        let endpoints = arguments.contains("--endpoints") ? [] : ["--endpoints", self.endpoints.joined(separator: ",")]
        task.arguments = tls + endpoints + arguments
        task.environment = ["ETCDCTL_API": "3"]
        // One pipe for both streams: reading two pipes one after the other could block on the second.
        let output = Pipe()
        let stdin = Pipe()
        task.standardOutput = output
        task.standardError = output
        task.standardInput = stdin
        try task.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        task.waitUntilExit()
        guard task.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "etcdctl \(arguments.joined(separator: " ")): \(text)"])
        }
        return text
    }

    /// Turns etcd's authentication on: a `root` user (etcd requires one) and `user`, whose role may
    /// read and write keys under `prefix` only. Passwords go to etcdctl on its standard input.
    public func enableAuthentication(rootPassword: String, user: String, password: String, prefix: String) throws {
        try etcdctl(["user", "add", "root", "--interactive=false"], input: rootPassword + "\n")
        try etcdctl(["user", "grant-role", "root", "root"])
        try etcdctl(["user", "add", user, "--interactive=false"], input: password + "\n")
        try etcdctl(["role", "add", "kk-sync"])
        try etcdctl(["role", "grant-permission", "kk-sync", "--prefix=true", "readwrite", prefix])
        try etcdctl(["user", "grant-role", user, "kk-sync"])
        try etcdctl(["auth", "enable"])
    }
}

/// Why a test's etcd cluster is not there.
public enum EtcdClusterFailure: Error, CustomStringConvertible {
    /// A member's process exited while the cluster was starting (the report names it and ends with its log).
    case memberExited(String)
    /// Every start attempt had a member exit; the reports of each.
    case couldNotStart(attempts: Int, reports: [String])
    /// The members run but no write succeeded through each of them within the bound; their logs' ends.
    case notServing(after: Duration, logs: [String])

    public var description: String {
        switch self {
        case .memberExited(let report):
            report
        case .couldNotStart(let attempts, let reports):
            "etcd did not start in \(attempts) attempts on fresh ports:\n" + reports.joined(separator: "\n")
        case .notServing(let timeout, let logs):
            "etcd did not elect a leader within \(timeout) (not every member took a write):\n" + logs.joined(separator: "\n")
        }
    }
}
