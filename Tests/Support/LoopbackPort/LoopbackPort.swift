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
/// twice while the process lives — nor to another test process on the machine (two worktrees'
/// suites at once): each port is reserved by a lock file (`flock`) this process holds until it
/// ends, so a port whose daemon is down between a kill and a restart stays this test's. (The
/// empty lock files stay, at most one per port of the range: removing one that another process
/// may be opening would let two processes lock two different files of the same name.)
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

/// The ports this process has handed out (tests run concurrently, so under a lock), each held by
/// a lock on a file of its own in a directory every test process shares.
final class HandedOutPorts: @unchecked Sendable {
    private let lock = NSLock()
    private var ports: Set<UInt16> = []
    /// The lock files' descriptors: open (and so locked) until the process ends.
    private var reservations: [Int32] = []
    private let directory: String

    /// Reservations in `directory` (the shared one, unless a test gives its own).
    init(directory: String = FileManager.default.temporaryDirectory.appendingPathComponent("keychainkit-test-ports").path) {
        self.directory = directory
    }

    /// Records `candidates` and returns true if none was handed out before, here or by another
    /// live process, and `check` passes.
    func claim(_ candidates: [UInt16], when check: () -> Bool) -> Bool {
        lock.withLock {
            guard ports.isDisjoint(with: candidates) else { return false }
            var held: [Int32] = []
            for port in candidates {
                guard let descriptor = reserve(port) else { break }
                held.append(descriptor)
            }
            guard held.count == candidates.count, check() else {
                for descriptor in held { close(descriptor) }  // closing releases the lock
                return false
            }
            ports.formUnion(candidates)
            reservations += held
            return true
        }
    }

    /// An open, exclusively locked descriptor of `port`'s lock file, or nil when another process
    /// holds it (or it cannot be made).
    private func reserve(_ port: UInt16) -> Int32? {
        mkdir(directory, 0o1777)  // EEXIST when another process made it first
        let descriptor = open("\(directory)/\(port).lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
