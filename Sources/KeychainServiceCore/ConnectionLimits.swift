#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
import KeychainServiceWire

/// The bounds that keep one client from starving the others: a user may hold at most
/// ``perUser`` connections at once and the service at most ``total``; each connection carries
/// one request at a time (the next frame is read only after the reply is sent), frames of at most
/// ``WireFrame/maximumPayloadBytes``, and ``deadlines`` (idle between frames, and the time a
/// started frame has to arrive whole). A user over their bound is disconnected at once, before
/// the service reads a byte or looks the process up, so a flood costs its sender alone.
package struct ConnectionLimits: Sendable {
    /// Connections one uid may hold at once.
    package var perUser: Int
    /// Connections the service holds at once, every user together.
    package var total: Int
    /// Silence allowed between frames, and the time a frame has from its first byte to its last.
    package var deadlines: WireFrame.Deadlines

    /// The service's bounds: 32 connections per user, 1024 in all, 30 s idle, 10 s per frame.
    package static let standard = ConnectionLimits(perUser: 32, total: 1024, deadlines: .init(idleSeconds: 30, frameSeconds: 10))

    package init(perUser: Int, total: Int, deadlines: WireFrame.Deadlines) {
        self.perUser = perUser
        self.total = total
        self.deadlines = deadlines
    }
}

/// The connections open now, by uid, under ``ConnectionLimits``.
final class ConnectionCounter: @unchecked Sendable {
    private let limits: ConnectionLimits
    private let lock = ThreadLock()
    private var byUser: [UInt32: Int] = [:]
    private var total = 0

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// Counts a new connection of `uid`, or returns why it is refused (nothing is counted then).
    func admit(_ uid: UInt32) -> String? {
        lock.withLock {
            let held = byUser[uid, default: 0]
            if held >= limits.perUser { return "uid \(uid) already holds \(held) connections (at most \(limits.perUser))" }
            if total >= limits.total { return "the service holds \(total) connections (at most \(limits.total))" }
            byUser[uid] = held + 1
            total += 1
            return nil
        }
    }

    /// Uncounts a connection of `uid` that ``admit(_:)`` counted.
    func release(_ uid: UInt32) {
        lock.withLock {
            let held = byUser[uid, default: 1] - 1
            byUser[uid] = held > 0 ? held : nil
            total -= 1
        }
    }
}
