import EtcdClusterSupport
import Foundation
import Testing
@testable import KeychainSync
import RequiredToolSupport

/// The etcd client against a real 3-member cluster on loopback.
@Suite("etcd client (real 3-member cluster)", .serialized, .integration, .tags(.external, .etcd))
struct EtcdClientTests {
    private func bytes(_ text: String) -> Data { Data(text.utf8) }

    @Test("range by prefix, put, compare-and-put and compare-and-delete, with binary keys and values")
    func keyValueCalls() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let client = try EtcdClient(endpoints: cluster.endpoints)
            let prefix = Data([0x2F, 0x6B, 0x6B, 0xFF])  // ends in 0xff: the range end must carry over
            let first = prefix + Data([0x00, 0x01])
            let second = prefix + Data([0xFF, 0xFE])
            let binary = Data((0...255).map { UInt8($0) })
            try client.put(first, binary)
            #expect(try client.compareAndPut(second, bytes("v1"), expectedModRevision: 0))
            #expect(try !client.compareAndPut(second, bytes("lost"), expectedModRevision: 0), "the key exists: refused")
            try client.put(bytes("/kk"), bytes("outside the prefix"))

            let (keyValues, revision) = try client.range(prefix: prefix)
            #expect(keyValues.map(\.key) == [first, second])
            #expect(keyValues.first?.value == binary)
            #expect(revision >= keyValues.map(\.modRevision).max() ?? 0)

            let current = try #require(try client.get(second))
            #expect(try !client.compareAndPut(second, bytes("stale"), expectedModRevision: current.modRevision - 1))
            #expect(try client.compareAndPut(second, bytes("v2"), expectedModRevision: current.modRevision))
            #expect(try client.get(second)?.value == bytes("v2"))
            #expect(try !client.compareAndDelete(second, expectedModRevision: current.modRevision), "changed since: refused")
            let latest = try #require(try client.get(second))
            #expect(try client.compareAndDelete(second, expectedModRevision: latest.modRevision))
            #expect(try client.get(second) == nil)
        }
    }

    @Test("a member killed: calls move to another; the whole cluster down: unavailable; back up: the data is there")
    func failover() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let client = try EtcdClient(endpoints: cluster.endpoints, timeout: .seconds(2))
            try client.put(bytes("/kk/a"), bytes("1"))
            cluster.kill(0)
            try client.put(bytes("/kk/b"), bytes("2"))
            #expect(try client.range(prefix: bytes("/kk/")).keyValues.count == 2)

            for index in 1..<cluster.members.count { cluster.kill(index) }
            let error = #expect(throws: EtcdError.self) { try client.get(bytes("/kk/a")) }
            if case .unavailable(let reason)? = error {
                #expect(!reason.contains("/kk/"), "errors name endpoints, not keys")
            } else {
                Issue.record("expected unavailable, got \(String(describing: error))")
            }
            for index in cluster.members.indices { try cluster.start(index) }
            try cluster.waitUntilServing()
            #expect(try client.get(bytes("/kk/b"))?.value == bytes("2"))
        }
    }

    @Test("a watch from a revision delivers every later put and delete under the prefix, and ends at its deadline")
    func watch() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let client = try EtcdClient(endpoints: cluster.endpoints)
            let start = try client.put(bytes("/kk/w/0"), bytes("before")) + 1
            try client.put(bytes("/kk/w/1"), bytes("one"))
            try client.put(bytes("/kk/other"), bytes("not watched"))
            let last = try #require(try client.get(bytes("/kk/w/1")))
            #expect(try client.compareAndDelete(bytes("/kk/w/1"), expectedModRevision: last.modRevision))
            var seen: [EtcdEvent] = []
            try client.watch(prefix: bytes("/kk/w/"), startRevision: start, deadline: .now + .seconds(10)) { events, _ in
                seen += events
                return seen.count < 2
            }
            #expect(seen.map(\.keyValue.key) == [bytes("/kk/w/1"), bytes("/kk/w/1")])
            #expect(seen.map(\.isDelete) == [false, true])
            #expect(seen.first?.keyValue.value == bytes("one"))

            // Nothing more happens: the watch returns (normally) at its deadline, having seen nothing.
            var later: [EtcdEvent] = []
            try client.watch(prefix: bytes("/kk/w/"), startRevision: try client.range(prefix: bytes("/kk/")).revision + 1,
                             deadline: .now + .seconds(1)) { events, _ in
                later += events
                return true
            }
            #expect(later.isEmpty)
        }
    }

    @Test("a member that dies on its own ends the wait for a leader at once, with its name and the end of its log")
    func memberExitIsReported() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let victim = try #require(cluster.members[1].process)
            kill(victim.processIdentifier, SIGKILL)  // not cluster.kill(1): the cluster still counts on it
            victim.waitUntilExit()
            do {
                try cluster.waitUntilServing()
                Issue.record("the wait ended well although member m1 is dead")
            } catch EtcdClusterFailure.memberExited(let report) {
                #expect(report.contains("etcd member m1") && report.contains("client port \(cluster.members[1].clientPort)"), "\(report)")
                #expect(report.contains("exited with status \(SIGKILL)"), "\(report)")
                // It ends with the last line that member printed (its folder goes with the cluster).
                let log = try String(contentsOf: cluster.directory.appendingPathComponent("m1.log"), encoding: .utf8)
                let lastLine = try #require(log.split(separator: "\n").last)
                #expect(report.hasSuffix(lastLine), "\(report)")
            }
        }
    }
}

/// The etcd client against a real etcd serving TLS (certificates made by `openssl` for the test):
/// client certificates, a CA the client names, etcd users and passwords, and every refusal.
@Suite("etcd client over TLS (real etcd, certificates made at test time)", .serialized, .integration, .tags(.external, .etcd, .openssl))
struct EtcdTLSTests {
    private func bytes(_ text: String) -> Data { Data(text.utf8) }

    /// The error `body` throws, or nil (recorded as a failure) when it does not throw.
    private func refusal(_ body: () throws(EtcdError) -> Void) -> EtcdError? {
        do throws(EtcdError) {
            try body()
            Issue.record("expected a refusal, but the call succeeded")
            return nil
        } catch {
            return error
        }
    }

    private func expectRefused(_ error: EtcdError?, mentioning phrases: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .refused(let reason)? = error else {
            Issue.record("expected .refused, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        for phrase in phrases {
            #expect(reason.contains(phrase), "\(reason) should mention \(phrase)", sourceLocation: sourceLocation)
        }
    }

    @Test("client certificate + the right CA: every call works; wrong CA, no or a stranger's certificate, wrong host name, plain HTTP: refused, clearly")
    func clientCertificates() async throws {
        try await onDedicatedThread {
            let etcd = try SecuredEtcd.requiringClientCertificates()
            let (pki, cluster, endpoint) = (etcd.pki, etcd.cluster, etcd.endpoint)
            let port = try #require(cluster.members.first?.clientPort)
            func connection(_ endpoints: [String]? = nil, ca: String? = pki.caFile, certificate: String? = pki.clientCertificateFile,
                            key: String? = pki.clientKeyFile, insecure: Bool = false) -> EtcdConnection {
                EtcdConnection(endpoints: endpoints ?? [endpoint], caFile: ca, clientCertificateFile: certificate,
                               clientKeyFile: key, insecure: insecure, timeout: .seconds(3))
            }

            // The right CA and a client certificate it signed.
            let client = try EtcdClient(connection: connection())
            let revision = try client.put(bytes("/kk/tls/a"), bytes("over TLS"))
            #expect(try client.get(bytes("/kk/tls/a"))?.value == bytes("over TLS"))
            #expect(try client.compareAndPut(bytes("/kk/tls/b"), bytes("new"), expectedModRevision: 0))
            // Many TLS records each way (a body larger than one record and one socket buffer).
            let large = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try client.put(bytes("/kk/large"), large)
            #expect(try client.get(bytes("/kk/large"))?.value == large)
            var seen: [EtcdEvent] = []
            try client.watch(prefix: bytes("/kk/tls/"), startRevision: revision, deadline: .now + .seconds(10)) { events, _ in
                seen += events
                return seen.count < 2
            }
            #expect(seen.map(\.keyValue.key) == [bytes("/kk/tls/a"), bytes("/kk/tls/b")])

            // A CA that did not sign etcd's certificate.
            expectRefused(refusal { () throws(EtcdError) in _ = try EtcdClient(connection: connection(ca: pki.otherCAFile)).get(bytes("/kk/tls/a")) },
                          mentioning: ["does not verify against the CA in \(pki.otherCAFile)", "unable to get local issuer certificate"])
            // No client certificate, and one signed by a CA etcd does not trust.
            expectRefused(refusal { () throws(EtcdError) in
                _ = try EtcdClient(connection: connection(certificate: nil, key: nil)).get(bytes("/kk/tls/a"))
            }, mentioning: ["requires a client certificate", "--cert"])
            expectRefused(refusal { () throws(EtcdError) in
                _ = try EtcdClient(connection: connection(certificate: pki.strangerCertificateFile, key: pki.strangerKeyFile)).get(bytes("/kk/tls/a"))
            }, mentioning: ["rejected the client certificate"])
            // The right CA, but a name the certificate does not carry (it is for IP 127.0.0.1 only).
            expectRefused(refusal { () throws(EtcdError) in
                _ = try EtcdClient(connection: connection(["https://localhost:\(port)"])).get(bytes("/kk/tls/a"))
            }, mentioning: ["is not for that host", "subjectAltName"])

            // Plain HTTP: refused before any connection unless allowed; allowed, etcd's TLS port says so.
            let plain = "http://127.0.0.1:\(port)"
            let configuration = refusal { () throws(EtcdError) in _ = try EtcdClient(connection: connection([plain], ca: nil, certificate: nil, key: nil)) }
            guard case .invalidConfiguration(let reason)? = configuration else {
                Issue.record("expected .invalidConfiguration, got \(String(describing: configuration))")
                return
            }
            #expect(reason.contains("plain HTTP") && reason.contains("--insecure"))
            // etcd closes a plain-HTTP connection to its TLS port without an answer.
            let spokenPlain = refusal { () throws(EtcdError) in
                var plainConnection = connection([plain], ca: nil, certificate: nil, key: nil, insecure: true)
                plainConnection.timeout = .seconds(1)
                _ = try EtcdClient(connection: plainConnection).get(bytes("/kk/tls/a"))
            }
            guard case .unavailable(let plainReason)? = spokenPlain else {
                Issue.record("expected .unavailable, got \(String(describing: spokenPlain))")
                return
            }
            #expect(plainReason.contains("closed without an answer") && plainReason.contains("https://"), "\(plainReason)")
            // https:// without a CA, and a certificate without its key: refused before any connection.
            #expect(throws: EtcdError.self) { try EtcdClient(connection: connection(ca: nil)) }
            #expect(throws: EtcdError.self) { try EtcdClient(connection: connection(key: nil)) }
            #expect(throws: EtcdError.self) { try EtcdClient(connection: connection(key: pki.strangerKeyFile)) }
        }
    }

    @Test("etcd users: the right password works (and a new token is fetched when it expires); a wrong or missing one, or a key outside the role: refused")
    func passwords() async throws {
        try await onDedicatedThread {
            let etcd = try SecuredEtcd.withUser(prefix: "/kk/", tokenTTL: 1)
            let (pki, cluster) = (etcd.pki, etcd.cluster)
            func connection(_ credentials: EtcdConnection.Credentials?) -> EtcdConnection {
                EtcdConnection(endpoints: cluster.endpoints, caFile: pki.caFile, credentials: credentials, timeout: .seconds(3))
            }

            let client = try EtcdClient(connection: connection(.init(user: "alice", password: "alice-secret")))
            let revision = try client.put(bytes("/kk/auth/a"), bytes("one"))
            #expect(try client.get(bytes("/kk/auth/a"))?.value == bytes("one"))
            let firstToken = try #require(client.heldToken)
            // Past --auth-token-ttl etcd forgets the token; the client authenticates again by itself.
            // A fixed wait on purpose: etcd renews a token on every use and checks expiry once a
            // second, so only idle time (TTL 1 s + that second + margin) expires it; no call can
            // observe the expiry without renewing the token.
            Thread.sleep(forTimeInterval: 3)
            try client.put(bytes("/kk/auth/b"), bytes("two"))
            let secondToken = try #require(client.heldToken)
            #expect(secondToken != firstToken, "an expired token was replaced")
            Thread.sleep(forTimeInterval: 3)
            var seen: [EtcdEvent] = []
            try client.watch(prefix: bytes("/kk/auth/"), startRevision: revision, deadline: .now + .seconds(10)) { events, _ in
                seen += events
                return seen.count < 2
            }
            #expect(seen.map(\.keyValue.value) == [bytes("one"), bytes("two")], "a watch with an expired token authenticates again too")

            let denied = refusal { () throws(EtcdError) in try client.put(bytes("/elsewhere"), bytes("x")) }
            expectRefused(denied, mentioning: ["no permission"])
            let wrong = refusal { () throws(EtcdError) in
                _ = try EtcdClient(connection: connection(.init(user: "alice", password: "not-it"))).get(bytes("/kk/auth/a"))
            }
            expectRefused(wrong, mentioning: ["rejected the user name or password for alice"])
            #expect(!String(describing: wrong).contains("not-it"), "the password is not in the error")
            expectRefused(refusal { () throws(EtcdError) in _ = try EtcdClient(connection: connection(nil)).get(bytes("/kk/auth/a")) },
                          mentioning: ["requires authentication", "--user"])
            let credentials = EtcdConnection.Credentials(user: "alice", password: "alice-secret")
            #expect(!String(describing: credentials).contains("alice-secret") && !String(reflecting: credentials).contains("alice-secret"))
            var dumped = ""
            dump(credentials, to: &dumped)
            #expect(!dumped.contains("alice-secret"))
        }
    }
}
