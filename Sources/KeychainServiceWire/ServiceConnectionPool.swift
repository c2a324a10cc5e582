#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainPrimitives
import Synchronization

/// The connections a client process keeps open to one keychain service socket, reused across
/// calls: the service identifies a caller once per connection (its executable's digest, every
/// mapped file), which costs far more than a call, and re-checks per request only what can change
/// during a connection (an exec, a tracer, the uid, newly mapped code).
///
/// - Threads: each call holds a connection of its own for its whole exchange (a request, its reply
///   and a consent answer); up to ``maximumConnections`` calls run at once, later ones wait.
/// - Fork: a connection belongs to the process that opened it. A child (another pid) never uses
///   its parent's: it drops them (closing its copies of the descriptors, which leaves the parent's
///   open) and connects anew. Every socket is opened with `SOCK_CLOEXEC`, so an exec closes it:
///   the program exec'd never inherits a connection the service identified as another program.
/// - Idle: the service closes a connection silent for its idle limit (30 s). A connection is reused
///   only if it was used within ``maximumIdleSeconds`` and `poll` shows no hang-up from the
///   service (`POLLRDHUP`); a request whose send fails on a reused connection (`EPIPE`,
///   `ECONNRESET`: the service never read it) is sent once more on a new connection. A request
///   that was sent is never resent: the service may have carried it out.
package final class ServiceConnectionPool: @unchecked Sendable {
    /// Connections open at once per process and socket, far below the service's per-user bound (32).
    package static let maximumConnections = 4
    /// Seconds a connection may have been idle and still be reused: well below the service's
    /// idle limit, so the service does not close it while a request is on its way.
    package static let maximumIdleSeconds = 10.0

    /// The pool of the socket at `path` (one per path and process).
    package static func pool(for path: String) -> ServiceConnectionPool {
        pools.withLock { pools in
            if let pool = pools[path] { return pool }
            let pool = ServiceConnectionPool(socketPath: path)
            pools[path] = pool
            return pool
        }
    }

    private static let pools = Mutex<[String: ServiceConnectionPool]>([:])

    /// The socket's path.
    package let socketPath: String
    private let condition = ThreadCondition()
    // Guarded by `condition`.
    private var idle: [(descriptor: Int32, lastUsed: Double)] = []
    private var openCount = 0
    private var owner = getpid()

    private init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Runs `exchange` on a connection of this process: a kept one when it is still usable, else a
    /// new one. `exchange` gets a ``Connection`` and must send through it; when its first send
    /// fails on a reused connection with nothing sent, it runs once more on a new connection. The
    /// connection is kept for the next call when `exchange` returns, closed when it throws.
    package func withConnection<Result>(_ exchange: (Connection) throws(WireFailure) -> Result) throws(WireFailure) -> Result {
        var (descriptor, reused) = try take()
        while true {
            let connection = Connection(descriptor: descriptor)
            do {
                let result = try exchange(connection)
                give(back: descriptor)
                return result
            } catch {
                discard(descriptor)
                guard reused, !connection.sentAnything, Self.isHangUp(error) else { throw error }
                // The service had closed the kept connection before it read a byte of this request.
                descriptor = try openNew()
                reused = false
            }
        }
    }

    /// One connection lent to an exchange: what was sent on it so far.
    package final class Connection {
        /// The connected socket.
        package let descriptor: Int32
        /// Whether any byte of a request has been sent.
        package private(set) var sentAnything = false

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        /// Sends `request` as one frame.
        package func send(_ request: ServiceRequest) throws(WireFailure) {
            var sent = 0
            defer { if sent > 0 { sentAnything = true } }
            try WireFrame.write(request.encoded(), to: descriptor, sent: &sent)
        }

        /// Reads one reply.
        package func receive() throws(WireFailure) -> ServiceReply {
            try ServiceReply.decode(WireFrame.read(from: descriptor))
        }
    }

    /// Whether `failure` says the service had closed the connection.
    private static func isHangUp(_ failure: WireFailure) -> Bool {
        if case .system(_, let code) = failure { return code == EPIPE || code == ECONNRESET }
        return false
    }

    /// A usable kept connection (`reused`) or a new one; waits while ``maximumConnections`` are in use.
    private func take() throws(WireFailure) -> (descriptor: Int32, reused: Bool) {
        condition.lock()
        forgetParentsConnections()
        while true {
            while let kept = idle.popLast() {
                if Self.now() - kept.lastUsed <= Self.maximumIdleSeconds, Self.isOpen(kept.descriptor) {
                    condition.unlock()
                    return (kept.descriptor, true)
                }
                close(kept.descriptor)
                openCount -= 1
            }
            if openCount < Self.maximumConnections { break }
            condition.wait()
            forgetParentsConnections()
        }
        openCount += 1
        condition.unlock()
        do {
            return (try ServiceClient.connect(to: socketPath), false)
        } catch {
            condition.withLock {
                openCount -= 1
                condition.signal()
            }
            throw error
        }
    }

    /// A new connection counted in place of one just discarded.
    private func openNew() throws(WireFailure) -> Int32 {
        condition.withLock { openCount += 1 }
        do {
            return try ServiceClient.connect(to: socketPath)
        } catch {
            condition.withLock {
                openCount -= 1
                condition.signal()
            }
            throw error
        }
    }

    private func give(back descriptor: Int32) {
        condition.withLock {
            if owner == getpid() {
                idle.append((descriptor, Self.now()))
            } else {
                close(descriptor)  // opened by the parent before a fork; never counted in this process
            }
            condition.signal()
        }
    }

    private func discard(_ descriptor: Int32) {
        close(descriptor)
        condition.withLock {
            if owner == getpid() { openCount -= 1 }
            condition.signal()
        }
    }

    /// In a forked child: the parent's connections are not this process's to use (the service
    /// identified the parent, and two processes on one stream would read each other's replies).
    /// Closing the child's copies leaves the parent's connections open. Called with the lock held.
    private func forgetParentsConnections() {
        let pid = getpid()
        guard owner != pid else { return }
        for kept in idle { close(kept.descriptor) }
        idle = []
        openCount = 0
        owner = pid
    }

    /// Whether the service has not closed `descriptor`: nothing is readable (the service sends
    /// only replies) and no hang-up is pending.
    private static func isOpen(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN) | readHangUp, revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    #if os(Linux)
    private static let readHangUp = Int16(0x2000)  // POLLRDHUP
    #else
    private static let readHangUp: Int16 = 0
    #endif

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
