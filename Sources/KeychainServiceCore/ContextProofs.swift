#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// What lets an `LAContext` that authenticated once through the service read passcode-guarded
/// secrets again without a new prompt, as a context does in the embedded mode, without the
/// service trusting the client: a random token the service made and activated itself when it
/// verified the keychain password, bound to the process that answered — its uid, pid, start
/// time and executable (device and inode: an exec keeps the pid), which the service reads from
/// the kernel for every connection, never from the client. A token copied to another process
/// (another pid, the same pid reused, or another program exec'd in it) proves nothing; it
/// lapses after ``lifetime``, and the client forgets it when the context is invalidated.
final class ContextProofs: @unchecked Sendable {
    /// How long a proof spares the prompt.
    static let lifetime: Duration = .seconds(300)
    /// At most this many live proofs per user; the oldest go first.
    static let perUser = 64

    private struct Holder {
        let uid: UInt32
        let pid: Int32
        let startTime: UInt64
        let device: UInt64
        let inode: UInt64
        let expires: ContinuousClock.Instant
    }

    private let lock = ThreadLock()
    private var holders: [Data: Holder] = [:]

    /// A fresh token, valid only once ``activate(_:for:)`` is called with it.
    static func token() -> Data { ConsentPrompt.nonce() }

    /// Makes `token` prove the keychain password for `peer`'s process.
    func activate(_ token: Data, for peer: PeerIdentity, now: ContinuousClock.Instant = .now) {
        lock.withLock {
            holders = holders.filter { $0.value.expires > now }
            let own = holders.filter { $0.value.uid == peer.uid }.sorted { $0.value.expires < $1.value.expires }
            for (stale, _) in own.prefix(max(0, own.count - Self.perUser + 1)) { holders.removeValue(forKey: stale) }
            holders[token] = Holder(uid: peer.uid, pid: peer.pid, startTime: peer.startTime, device: peer.device, inode: peer.inode,
                                   expires: now + Self.lifetime)
        }
    }

    /// Whether `token` proves the keychain password for `peer`'s process now.
    func proves(_ token: Data, for peer: PeerIdentity, now: ContinuousClock.Instant = .now) -> Bool {
        lock.withLock {
            guard let holder = holders[token], holder.expires > now else { return false }
            return holder.uid == peer.uid && holder.pid == peer.pid && holder.startTime == peer.startTime
                && holder.device == peer.device && holder.inode == peer.inode
        }
    }
}
