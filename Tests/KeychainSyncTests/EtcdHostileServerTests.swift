import EtcdClusterSupport
import Foundation
import Testing
@testable import KeychainSync

/// The etcd client against a server that sends what it likes: every buffer stays bounded (the
/// error names the limit) and deadlines hold while bytes keep arriving.
@Suite("etcd client against a hostile server", .serialized)
struct EtcdHostileServerTests {
    private let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"

    /// A client of `server` with small limits (so the tests move little data) and a short timeout.
    private func client(of server: HostileHTTPServer, timeout: Duration = .seconds(1)) throws(EtcdError) -> EtcdClient {
        var connection = EtcdConnection(endpoints: [server.endpoint], insecure: true, timeout: timeout)
        connection.limits = HTTPLimits(line: 1024, head: 8192, body: 65_536, chunk: 65_536, watchMessage: 65_536)
        return try EtcdClient(connection: connection)
    }

    /// Expects `body` to fail with a bad response whose reason contains `phrase`.
    private func expectBadResponse(_ phrase: String, sourceLocation: SourceLocation = #_sourceLocation,
                                   _ body: () throws(EtcdError) -> Void) {
        do throws(EtcdError) {
            try body()
            Issue.record("expected a bad response, but the call succeeded", sourceLocation: sourceLocation)
        } catch .badResponse(let reason) {
            #expect(reason.contains(phrase), "\(reason)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected .badResponse, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("endless headers, an endless header line, an oversized Content-Length or chunk: refused, naming the limit")
    func oversizedResponses() async throws {
        try await onDedicatedThread {
            let endlessHeaders = try HostileHTTPServer { send in
                guard send(Data(head.utf8)) else { return }
                while send(Data("X-Filler: \(String(repeating: "a", count: 100))\r\n".utf8)) {}
            }
            expectBadResponse("a response head larger than the client's 8 KiB limit") { () throws(EtcdError) in _ = try client(of: endlessHeaders).get(Data("k".utf8)) }
            #expect(endlessHeaders.bytesSent < 1 << 20, "the client stopped reading")

            let endlessLine = try HostileHTTPServer { send in
                guard send(Data((head + "X-Long: ").utf8)) else { return }
                while send(Data(repeating: UInt8(ascii: "a"), count: 512)) {}
            }
            expectBadResponse("a header line longer than the client's 1 KiB limit") { () throws(EtcdError) in _ = try client(of: endlessLine).get(Data("k".utf8)) }

            let bigLength = try HostileHTTPServer { send in
                _ = send(Data((head + "Content-Length: 1099511627776\r\n\r\n").utf8))
                while send(Data(repeating: 0x20, count: 4096)) {}
            }
            expectBadResponse("a response body of 1099511627776 bytes, over the client's 64 KiB limit") { () throws(EtcdError) in _ = try client(of: bigLength).get(Data("k".utf8)) }

            let bigChunk = try HostileHTTPServer { send in
                _ = send(Data((head + "Transfer-Encoding: chunked\r\n\r\n10000000000\r\n").utf8))
                while send(Data(repeating: 0x20, count: 4096)) {}
            }
            expectBadResponse("a chunk larger than the client's 64 KiB limit") { () throws(EtcdError) in _ = try client(of: bigChunk).get(Data("k".utf8)) }

            // Many chunks, each within the limit, that add up past the body limit.
            let manyChunks = try HostileHTTPServer { send in
                guard send(Data((head + "Transfer-Encoding: chunked\r\n\r\n").utf8)) else { return }
                while send(Data("1000\r\n\(String(repeating: " ", count: 4096))\r\n".utf8)) {}
            }
            expectBadResponse("a response body over the client's 64 KiB limit") { () throws(EtcdError) in _ = try client(of: manyChunks).get(Data("k".utf8)) }
        }
    }

    @Test("a watch that trickles bytes forever returns at its deadline; an endless watch message is refused at its limit")
    func tricklingWatch() async throws {
        try await onDedicatedThread {
            // One space every 50 ms, in chunks of one byte: never a whole message, never silent for long.
            let trickle = try HostileHTTPServer { send in
                guard send(Data((head + "Transfer-Encoding: chunked\r\n\r\n").utf8)) else { return }
                while send(Data("1\r\n \r\n".utf8)) { Thread.sleep(forTimeInterval: 0.05) }
            }
            var delivered = 0
            try client(of: trickle).watch(prefix: Data("/kk/".utf8), startRevision: 1, deadline: .now + .seconds(2)) { events, _ in
                delivered += events.count
                return true
            }
            #expect(delivered == 0)
            #expect(trickle.isRunning && trickle.bytesSent > 0, "the watch returned while the server was still sending")

            // The same stream without a pause and without a newline: the message outgrows its limit.
            let endless = try HostileHTTPServer { send in
                guard send(Data((head + "Transfer-Encoding: chunked\r\n\r\n").utf8)) else { return }
                while send(Data("400\r\n\(String(repeating: "a", count: 1024))\r\n".utf8)) {}
            }
            expectBadResponse("a watch message longer than the client's 64 KiB limit") { () throws(EtcdError) in
                try client(of: endless).watch(prefix: Data("/kk/".utf8), startRevision: 1, deadline: .now + .seconds(30)) { _, _ in true }
            }
        }
    }

    @Test("an ordinary call whose answer trickles in forever fails at the timeout instead of hanging")
    func tricklingCall() async throws {
        try await onDedicatedThread {
            let trickle = try HostileHTTPServer { send in
                guard send(Data((head + "Content-Length: 10000\r\n\r\n").utf8)) else { return }
                while send(Data(" ".utf8)) { Thread.sleep(forTimeInterval: 0.05) }
            }
            let error = #expect(throws: EtcdError.self) { try client(of: trickle).get(Data("k".utf8)) }
            guard case .unavailable(let reason)? = error else {
                Issue.record("expected unavailable, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("no answer in time"))
            #expect(trickle.isRunning, "the call gave up while the server was still sending")
        }
    }

    @Test("a token that would inject header lines is refused; a server's error text is shown printable and bounded")
    func hostileAuthentication() async throws {
        try await onDedicatedThread {
            let injecting = try HostileHTTPServer { send in
                let body = #"{"header":{"revision":"1"},"token":"abc\r\nX-Injected: 1"}"#
                _ = send(Data((head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body).utf8))
            }
            var connection = EtcdConnection(endpoints: [injecting.endpoint], credentials: .init(user: "u", password: "p"), insecure: true)
            connection.timeout = .seconds(1)
            expectBadResponse("an authentication answer without a usable token") { () throws(EtcdError) in
                _ = try EtcdClient(connection: connection).get(Data("k".utf8))
            }

            let noisy = try HostileHTTPServer { send in
                let body = "\u{1B}[2J" + String(repeating: "x", count: 5000)
                _ = send(Data("HTTP/1.1 500 Oops\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
            }
            do throws(EtcdError) {
                _ = try client(of: noisy).get(Data("k".utf8))
                Issue.record("expected a bad response")
            } catch .badResponse(let reason) {
                #expect(!reason.contains("\u{1B}"), "no control characters from the server")
                #expect(reason.count < 300, "the server's text is cut at 200 characters")
            } catch {
                Issue.record("expected .badResponse, got \(error)")
            }
        }
    }
}
