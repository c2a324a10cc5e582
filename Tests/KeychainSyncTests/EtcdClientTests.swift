import EtcdClusterSupport
import Foundation
import Testing
@testable import KeychainSync
import RequiredToolSupport

/// The etcd client against a real 3-member cluster on loopback.
@Suite("etcd client (real 3-member cluster)", .serialized, .tags(.external, .etcd))
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
}
