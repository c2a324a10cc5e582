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
import KeychainAudit
import KeychainPrimitives
import KeychainServiceWire
import KeychainVocabulary

/// The keychain service's socket: accepts connections, admits each under ``ConnectionLimits``
/// by the uid the kernel gives, identifies the peer from the kernel (before reading a byte from
/// it), then answers its requests one frame at a time on a thread of its own. A peer that sends an
/// oversized or malformed frame, stays silent too long or trickles a frame, is disconnected; the
/// others are served on.
package final class KeychainServiceServer: @unchecked Sendable {
    private let listener: Int32
    private let handler: ServiceRequestHandler
    private let keychains: UserKeychains
    private let lockAfterSeconds: Int
    private let hashes: ExecutableHashCache
    private let log: @Sendable (String) -> Void
    private let limits: ConnectionLimits
    private let connections: ConnectionCounter
    private let accessLogs: ServiceAccessLogs
    private let sleepWatch = SleepWatch()
    /// How long a keychain with a password stays unlocked without a call before the service
    /// locks it (forgets its "when unlocked" class keys), unless `service run --lock-after` says otherwise.
    package static let defaultLockAfterSeconds = 300

    /// A server on the listening socket `listener` (see ``ServiceSocket``), for keychains under
    /// `stateDirectory` and the grants in `grantsDirectory`; `log` receives one line per refusal
    /// (ids, paths and reasons only). A keychain unused for `lockAfterSeconds` is locked (0: never).
    /// `testingKDF` (test suites only, `KEYCHAINKIT_TESTING_KDF=1`): password keychains use the cheap test key derivation.
    /// Each access log entry is synced within `accessLogSyncBound` seconds of its write (0: before its secret leaves).
    package init(listener: Int32, stateDirectory: String, grantsDirectory: String, lockAfterSeconds: Int = defaultLockAfterSeconds,
                 testingKDF: Bool = false, limits: ConnectionLimits = .standard,
                 accessLogSyncBound: TimeInterval = AccessLogGroupCommit.defaultSyncBound, log: @escaping @Sendable (String) -> Void) {
        self.listener = listener
        self.log = log
        self.lockAfterSeconds = lockAfterSeconds
        self.limits = limits
        connections = ConnectionCounter(limits: limits)
        let grants = ApplicationGrant.load(from: grantsDirectory) { log("grant refused: \($0)") }
        keychains = UserKeychains(stateDirectory: stateDirectory, testingKDF: testingKDF)
        let hashes = ExecutableHashCache()
        self.hashes = hashes
        accessLogs = ServiceAccessLogs(syncBound: accessLogSyncBound)
        handler = ServiceRequestHandler(keychains: keychains, grants: grants, userGrants: UserGrants(stateDirectory: stateDirectory),
                                        forwardedCalls: ForwardedCalls(hashes: hashes),
                                        secretServiceAccess: SecretServiceAccessLists(stateDirectory: stateDirectory),
                                        accessLogs: accessLogs)
    }

    /// Accepts connections until the listener fails (it never returns otherwise).
    package func serve() -> Never {
        startSweeping()
        raiseDescriptorLimit()
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
            do {
                try DetachedThread.start(stackSize: 1 << 20) { [self] in
                    serveConnection(connection)
                    connections.release(uid)
                }
            } catch {
                log("connection refused: \(error)")
                close(connection)
                connections.release(uid)
            }
        }
    }

    /// Each connection holds five descriptors (the socket, the caller's pidfd, its `/proc`
    /// directory, `status` and `stat`): the soft limit on open descriptors (often 1,024) is
    /// raised to the hard one, so the connection limit, not the descriptor limit, bounds them.
    private func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(LinuxSystemCalls.openFilesLimit, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        let soft = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        if setrlimit(LinuxSystemCalls.openFilesLimit, &limit) != 0 {
            log("the limit on open descriptors stays \(soft): \(String(cString: strerror(errno)))")
        }
    }

    /// Looks for idle keychains a few times per timeout (at most every 5 s), so that class keys
    /// leave memory soon after the timeout rather than at the next call; and, as often, for a
    /// sleep of the machine since the last look (``lockIfSlept()``).
    private func startSweeping() {
        let interval = lockAfterSeconds > 0 ? max(0.2, min(Double(lockAfterSeconds) / 4, 5)) : 5
        do {
            try DetachedThread.start { [self] in
                while true {
                    BlockingSleep.sleep(for: .seconds(interval))
                    lockIfSlept()
                    guard lockAfterSeconds > 0 else { continue }
                    for uid in keychains.lockIdle(after: lockAfterSeconds, beforeLocking: flushAccessLog(of:)) {
                        log("locked the keychain of uid \(uid) after \(lockAfterSeconds) s without a call")
                    }
                }
            }
        } catch {
            log("idle keychains will not be locked, nor keychains after a sleep until their next call: \(error)")
        }
    }

    /// Locks the keychains whose users asked to lock on sleep, when the machine slept since the
    /// last look: run before every request is answered, so none is answered unlocked after a sleep.
    private func lockIfSlept() {
        sleepWatch.afterSleep {
            for uid in keychains.lockForSleep(beforeLocking: flushAccessLog(of:)) {
                log("locked the keychain of uid \(uid): the machine slept")
            }
        }
    }

    /// Syncs every access log the service has open and brings its checkpoint up to the newest
    /// entry (the service is stopping: `service run` calls it on SIGTERM and SIGINT).
    package func flushAccessLogs() {
        for failure in accessLogs.flushAll() {
            log("the access log of uid \(failure.uid) could not be flushed: \(failure.error)")
        }
    }

    /// Flushes user `uid`'s access log before their keychain is locked (its checkpoint is kept in
    /// the keychain); a failure is logged and the keychain locked all the same.
    private func flushAccessLog(of uid: UInt32) {
        do throws(AccessLogError) { try accessLogs.flush(of: uid) } catch {
            log("the access log of uid \(uid) could not be flushed before locking: \(error)")
        }
    }

    private func serveConnection(_ connection: Int32) {
        defer { close(connection) }
        // A reply the client does not read cannot hold the thread forever either.
        var timeout = timeval(tv_sec: limits.deadlines.frameSeconds, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: ConnectedPeer
        do {
            connected = try PeerIdentification.connectedPeer(connection, hashes: hashes)
        } catch {
            log("connection refused: \(error)")
            return
        }
        let consent = ConsentSession()
        // A Secret Service prompt left unanswered when the connection ends was denied: logged so.
        defer { handler.abandon(consent) }
        while true {
            let request: ServiceRequest
            do {
                request = try ServiceRequest.decode(WireFrame.read(from: connection, limits: limits.deadlines))
            } catch WireFailure.closed(midFrame: false) {
                return
            } catch {
                log("\(connected.identity.summary): disconnected: \(error)")
                return
            }
            // The caller was identified when it connected; what can have changed since is checked now.
            let peer: PeerIdentity
            do {
                peer = try connected.identityForRequest()
            } catch {
                log("\(connected.identity.summary): disconnected: \(error)")
                let refusal = ServiceReply(status: KeychainStatus.missingEntitlement.rawValue, failureReason: error.description)
                if case .failure(let failure) = Result(catching: { () throws(WireFailure) in try WireFrame.write(refusal.encoded(), to: connection) }) {
                    log("\(connected.identity.summary): refusal not delivered: \(failure)")
                }
                return
            }
            lockIfSlept()
            let reply = handler.reply(to: request, from: peer, session: consent)
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
