import Foundation
@testable import KeychainServiceCore
import Testing

/// The service's proof that a context's keychain password was verified: bound to the very
/// process that answered, worthless before activation, elsewhere or once it lapses.
@Suite("Keychain service: context proofs")
struct ContextProofsTests {
    static let answered: PeerIdentity = {
        var peer = PeerIdentity(uid: 1000, gid: 1000, pid: 42, executablePath: "/usr/bin/tool", device: 1, inode: 2,
                                executableSHA256: String(repeating: "a", count: 64), executableWritableByCaller: false, tracerPID: 0)
        peer.startTime = 12_345
        return peer
    }()

    @Test("a proof holds for the process that answered only: not before activation, not for another pid, start time, uid or program, not after its lifetime")
    func boundToTheProcess() {
        let proofs = ContextProofs()
        let token = ContextProofs.token()
        let now = ContinuousClock.now
        #expect(!proofs.proves(token, for: Self.answered, now: now), "offered, not yet activated")
        proofs.activate(token, for: Self.answered, now: now)
        #expect(proofs.proves(token, for: Self.answered, now: now))
        var child = Self.answered
        child.pid = 43
        var reused = Self.answered
        reused.startTime = 99_999
        var other = Self.answered
        other.uid = 1001
        var execed = Self.answered
        execed.inode = 3
        #expect(!proofs.proves(token, for: child, now: now) && !proofs.proves(token, for: reused, now: now)
                && !proofs.proves(token, for: other, now: now) && !proofs.proves(token, for: execed, now: now))
        #expect(!proofs.proves(ContextProofs.token(), for: Self.answered, now: now), "a made-up token")
        #expect(!proofs.proves(token, for: Self.answered, now: now + ContextProofs.lifetime), "lapsed")
    }

    @Test("a user holds at most perUser live proofs: the oldest goes first")
    func bounded() {
        let proofs = ContextProofs()
        let now = ContinuousClock.now
        let tokens = (0...ContextProofs.perUser).map { _ in ContextProofs.token() }
        for (index, token) in tokens.enumerated() { proofs.activate(token, for: Self.answered, now: now + .milliseconds(index)) }
        let last = now + .milliseconds(tokens.count)
        #expect(!proofs.proves(tokens[0], for: Self.answered, now: last))
        #expect(tokens.dropFirst().allSatisfy { proofs.proves($0, for: Self.answered, now: last) })
    }
}
