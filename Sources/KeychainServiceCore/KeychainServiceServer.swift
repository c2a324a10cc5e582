import Foundation
import KeychainServiceWire

/// The keychain service's socket: accepts connections, admits each under ``ConnectionLimits``
/// by the uid the kernel gives, identifies the peer from the kernel (before reading a byte from
/// it), then answers its requests one frame at a time on a thread of its own. A peer that sends an
/// oversized or malformed frame, stays silent too long or trickles a frame, is disconnected; the
/// others are served on.
package final class KeychainServiceServer: @unchecked Sendable {
    private let listener: Int32
    private let handler: ServiceRequestHandler
    private let hashes = ExecutableHashCache()
    private let log: @Sendable (String) -> Void
    private let limits: ConnectionLimits
    private let connections: ConnectionCounter

    /// A server on the listening socket `listener` (see ``ServiceSocket``), for keychains under
    /// `stateDirectory` and the grants in `grantsDirectory`; `log` receives one line per refusal
    /// (ids, paths and reasons only).
    package init(listener: Int32, stateDirectory: String, grantsDirectory: String, limits: ConnectionLimits = .standard,
                 log: @escaping @Sendable (String) -> Void) {
        self.listener = listener
        self.log = log
        self.limits = limits
        connections = ConnectionCounter(limits: limits)
        let grants = ApplicationGrant.load(from: grantsDirectory) { log("grant refused: \($0)") }
        handler = ServiceRequestHandler(keychains: UserKeychains(stateDirectory: stateDirectory), grants: grants)
    }

    /// Accepts connections until the listener fails (it never returns otherwise).
    package func serve() -> Never {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { continue }
                log("accept failed: \(String(cString: strerror(errno)))")
                exit(1)
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)  // no child of the service inherits a caller's connection
            let uid: UInt32
            do { uid = try PeerIdentification.credentials(connection).uid } catch {
                log("connection refused: \(error)")
                close(connection)
                continue
            }
            if let refusal = connections.admit(uid) {
                log("connection refused: \(refusal)")
                close(connection)
                continue
            }
            let thread = Thread { [self] in
                serveConnection(connection)
                connections.release(uid)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    private func serveConnection(_ connection: Int32) {
        defer { close(connection) }
        // A reply the client does not read cannot hold the thread forever either.
        var timeout = timeval(tv_sec: limits.deadlines.frameSeconds, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let peer: PeerIdentity
        do {
            peer = try PeerIdentification.identify(connection, hashes: hashes)
        } catch {
            log("connection refused: \(error)")
            return
        }
        while true {
            let request: ServiceRequest
            do {
                request = try ServiceRequest.decode(WireFrame.read(from: connection, limits: limits.deadlines))
            } catch WireFailure.closed(midFrame: false) {
                return
            } catch {
                log("\(peer.summary): disconnected: \(error)")
                return
            }
            let reply = handler.reply(to: request, from: peer)
            if reply.status != 0 && reply.status != -25300 {
                log("\(peer.summary): \(request.operation) -> \(reply.status) \(reply.failureReason ?? "")")
            }
            do { try WireFrame.write(reply.encoded(), to: connection) } catch {
                log("\(peer.summary): reply not delivered: \(error)")
                return
            }
        }
    }
}
