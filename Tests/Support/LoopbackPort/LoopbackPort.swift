import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loopback TCP ports for the daemons tests start (etcd, git daemon, sshd, swtpm), which must be
/// told their port before they bind it.
///
/// Binding port 0 and releasing it picks a port from the kernel's *ephemeral* range, the range it
/// also takes the local port of every outgoing connection from: with the whole suite running, a
/// client connecting somewhere (etcdctl, git, a sync device) can take that port before the daemon
/// binds it, and the daemon exits with "address already in use". Ports here come from below the
/// ephemeral range, which only explicit binds use, are checked free, and are never handed out
/// twice in one test process.
public enum LoopbackPort {
    /// Errors finding a port.
    public enum Failure: Error, CustomStringConvertible {
        /// No free run of `count` ports below the ephemeral range after many tries.
        case noneFree(count: Int, range: Range<Int>)

        public var description: String {
            switch self {
            case .noneFree(let count, let range):
                "no \(count) consecutive free loopback ports in \(range.lowerBound)..<\(range.upperBound) (below the kernel's ephemeral range)"
            }
        }
    }

    private static let handedOut = HandedOutPorts()

    /// A port on 127.0.0.1 that nothing listens on now and that no earlier call returned.
    public static func next() throws -> UInt16 {
        try consecutive(1)
    }

    /// The first of `count` consecutive ports on 127.0.0.1 that are all free now and that no earlier
    /// call returned (swtpm takes its server port and the next one for control).
    public static func consecutive(_ count: Int) throws -> UInt16 {
        let range = candidateRange
        for _ in 0..<2_000 {
            let first = Int.random(in: range.lowerBound...(range.upperBound - count))
            let ports = (first..<first + count).map { UInt16($0) }
            if handedOut.claim(ports, when: { ports.allSatisfy(isFree) }) { return ports[0] }
        }
        throw Failure.noneFree(count: count, range: range)
    }

    /// From 20000 (clear of the well-known and registered ports services commonly use) up to the
    /// kernel's ephemeral range (`net.ipv4.ip_local_port_range`, 32768 on Debian unless changed).
    static var candidateRange: Range<Int> {
        let setting = FileManager.default.contents(atPath: "/proc/sys/net/ipv4/ip_local_port_range").map { String(decoding: $0, as: UTF8.self) }
        let ephemeralStart = setting?.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        let lower = ephemeralStart > 21_000 ? 20_000 : 1_024
        return lower..<max(ephemeralStart, lower + 1_000)
    }

    /// Whether binding 127.0.0.1:`port` succeeds now (without SO_REUSEADDR, so a port with
    /// connections still in TIME_WAIT counts as taken too).
    static func isFree(_ port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return withSocketAddress(port) { bind(descriptor, $0, $1) == 0 }
    }

    /// Whether something accepts connections on 127.0.0.1:`port` now.
    public static func isAccepting(_ port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return withSocketAddress(port) { connect(descriptor, $0, $1) == 0 }
    }

    /// Calls `body` with 127.0.0.1:`port` as a socket address and its length.
    public static func withSocketAddress<T>(_ port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}

/// The ports this process has handed out (tests run concurrently, so under a lock).
private final class HandedOutPorts: @unchecked Sendable {
    private let lock = NSLock()
    private var ports: Set<UInt16> = []

    /// Records `candidates` and returns true if none was handed out before and `check` passes.
    func claim(_ candidates: [UInt16], when check: () -> Bool) -> Bool {
        lock.withLock {
            guard ports.isDisjoint(with: candidates), check() else { return false }
            ports.formUnion(candidates)
            return true
        }
    }
}
