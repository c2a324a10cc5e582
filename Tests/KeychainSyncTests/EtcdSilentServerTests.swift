import EtcdClusterSupport
import Foundation
import RequiredToolSupport
import Testing
@testable import KeychainSync

/// The etcd client and transport against a server an attacker runs: one that takes the
/// connection and never answers (over plain HTTP and over TLS, where the handshake never
/// completes), and one that answers a listing with more records than a pass reads. Each call ends
/// at its timeout with an error saying so, and a listing hands the merge no more than its limits.
@Suite("etcd against a silent or flooding server", .serialized)
struct EtcdSilentServerTests {
    /// Runs `body`, expecting `.unavailable` naming a timeout, and returns how long it took.
    private func expectTimeout(_ what: String, _ body: () throws(EtcdError) -> Void) -> Duration {
        let started = ContinuousClock.now
        do throws(EtcdError) {
            try body()
            Issue.record("\(what): expected a timeout, but the call succeeded")
        } catch .unavailable(let reason) {
            #expect(reason.contains("no answer in time") || reason.contains("timed out"), "\(what): \(reason)")
        } catch {
            Issue.record("\(what): expected .unavailable, got \(error)")
        }
        return started.duration(to: .now)
    }

    @Test("a server that accepts and never answers: every call fails at its timeout, naming it, over http and https",
          .integration, .tags(.external, .openssl))
    func silentServer() async throws {
        try await onDedicatedThread {
            let silent = try SilentListener()
            let plain = EtcdConnection(endpoints: ["http://127.0.0.1:\(silent.port)"], insecure: true, timeout: .seconds(1))
            // The client retries an unreachable member for up to three timeouts (a leader election):
            // bounded, never a hang. The bound checked is loose; the point is that it returns.
            let plainTook = expectTimeout("http") { () throws(EtcdError) in _ = try EtcdClient(connection: plain).get(Data("k".utf8)) }
            #expect(plainTook < .seconds(15), "took \(plainTook)")

            let certificates = try TestCertificates()
            let tls = EtcdConnection(endpoints: ["https://127.0.0.1:\(silent.port)"], caFile: certificates.caFile, timeout: .seconds(1))
            let tlsTook = expectTimeout("https") { () throws(EtcdError) in _ = try EtcdClient(connection: tls).get(Data("k".utf8)) }
            #expect(tlsTook < .seconds(15), "took \(tlsTook)")

            // Through the sync transport: unreachable, the pass's error.
            let transport = EtcdTransport(client: try EtcdClient(connection: plain), circleID: "00", location: "silent")
            #expect(throws: SyncTransportError.self) { try transport.list(prefix: "items/", within: .standard) }
        }
    }

    @Test("a server answering a listing with 3,000 records: the transport hands on only what the limits allow and names the rest unread")
    func floodingServer() async throws {
        try await onDedicatedThread {
            let circle = "ab"
            var kvs: [String] = []
            for index in 0..<3_000 {
                let key = Data("/keychainkit/v2/\(circle)/items/\(String(format: "%064x", index))".utf8).base64EncodedString()
                let value = Data(repeating: UInt8(index & 0xff), count: 100 + index % 7).base64EncodedString()
                kvs.append(#"{"key":"\#(key)","value":"\#(value)","mod_revision":"\#(index + 1)"}"#)
            }
            let body = #"{"header":{"revision":"3001"},"kvs":[\#(kvs.joined(separator: ","))],"count":"3000"}"#
            let server = try HostileHTTPServer { send in
                _ = send(Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
            }
            let client = try EtcdClient(connection: EtcdConnection(endpoints: [server.endpoint], insecure: true, timeout: .seconds(5)))
            let transport = EtcdTransport(client: client, circleID: circle, location: server.endpoint)
            let listing = try transport.list(prefix: "items/", within: SyncListingLimits(maximumRecords: 100, maximumBytes: 1 << 20))
            #expect(listing.records.count == 100)
            #expect(listing.unread.count == 2_900)
            #expect(listing.resumeAfter != nil, "the next pass resumes after the last record read")
        }
    }
}
