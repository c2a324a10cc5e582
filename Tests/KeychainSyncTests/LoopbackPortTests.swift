import Foundation
import Testing
@testable import LoopbackPortSupport
#if canImport(Glibc)
import Glibc
#endif

/// The ports test daemons are told to listen on: never one an outgoing connection could take
/// first (the kernel's ephemeral range), never one in use, never the same one twice.
@Suite("loopback ports for test daemons")
struct LoopbackPortTests {
    private var ephemeralStart: Int {
        let setting = FileManager.default.contents(atPath: "/proc/sys/net/ipv4/ip_local_port_range").map { String(decoding: $0, as: UTF8.self) }
        return setting?.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
    }

    @Test("ports are below the ephemeral range, free when handed out, and never handed out twice")
    func distinctAndBelowEphemeralRange() throws {
        let ports = try (0..<300).map { _ in try LoopbackPort.next() }
        #expect(Set(ports).count == ports.count)
        #expect(ports.allSatisfy { Int($0) < ephemeralStart && $0 > 1023 })
        let pair = try LoopbackPort.consecutive(2)
        #expect(LoopbackPort.isFree(pair) && LoopbackPort.isFree(pair + 1))
        #expect(!ports.contains(pair) && !ports.contains(pair + 1))
    }

    @Test("a port something listens on counts as taken, and as accepting connections")
    func listeningPortIsNotFree() throws {
        let port = try LoopbackPort.next()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        #expect(!LoopbackPort.isAccepting(port))
        let listening = LoopbackPort.withSocketAddress(port) { bind(listener, $0, $1) == 0 } && listen(listener, 1) == 0
        try #require(listening)
        #expect(!LoopbackPort.isFree(port))
        #expect(LoopbackPort.isAccepting(port))
    }

    @Test("a port another reservation table holds (as another test process would) is not handed out")
    func reservedElsewhereIsNotHandedOut() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-ports-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }  // test cleanup only
        let port = try LoopbackPort.next()
        // Two tables open the lock file separately: flock(2) locks of two open files conflict
        // within one process exactly as between two.
        let first = HandedOutPorts(directory: directory), second = HandedOutPorts(directory: directory)
        #expect(first.claim([port]) { true })
        #expect(!second.claim([port]) { true }, "held by the first table's lock")
        #expect(!second.claim([port + 1, port]) { true }, "a run that includes it is refused whole")
        #expect(second.claim([port + 1]) { true }, "and the refused run's other port was given back")
    }
}
