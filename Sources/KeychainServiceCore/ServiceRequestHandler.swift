import Foundation
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// Answers one decoded request from an identified caller: its keychain (by uid), its access
/// groups (by verified identity, grants and claims), then the SecItem call on the engine.
final class ServiceRequestHandler: Sendable {
    private let keychains: UserKeychains
    private let grants: [ApplicationGrant]
    /// The wait after wrong passwords, per uid, for every connection of the service.
    private let passwordDelay = WrongPasswordDelay()

    /// The keys a caller may not send: the service, not the caller, picks the keychain, and item
    /// references are objects of the caller's own process.
    private static let refusedKeys: Set<String> = ["u_Keychain", "m_SearchList", "v_Ref"]

    init(keychains: UserKeychains, grants: [ApplicationGrant]) {
        self.keychains = keychains
        self.grants = grants
    }

    /// The reply to `request` from `peer`.
    func reply(to request: ServiceRequest, from peer: PeerIdentity) -> ServiceReply {
        if request.operation.isKeychainCall {
            // The caller's own login keychain, whichever program of theirs asks (as any app may
            // call SecKeychainUnlock on macOS): the password, not the program, is the proof.
            return keychainCallReply(to: request, uid: peer.uid)
        }
        let outcome = perform(request, from: peer)
        var reply = ServiceReply(status: outcome.status, failureReason: outcome.failure.map(Self.reason),
                                 unreadableItems: UInt32(clamping: outcome.unreadableItems))
        if outcome.status == KeychainStatus.success.rawValue, let value = outcome.value {
            guard let wire = WireValue(AccessControlWireForm.encodingPolicies(in: value)) else {
                return ServiceReply(status: KeychainStatus.unimplemented.rawValue,
                                    failureReason: "the result holds an object the keychain service cannot send yet")
            }
            reply.result = wire
        }
        return reply
    }

    /// A keychain call; one that checks a password waits out the uid's delay after wrong ones
    /// first (refused, the password untried) and counts its outcome.
    private func keychainCallReply(to request: ServiceRequest, uid: UInt32) -> ServiceReply {
        let checksPassword = request.operation == .changePassword
            || request.operation == .unlockKeychain && request.query.contains { $0.key == ServiceRequest.passwordKey }
        guard checksPassword else { return keychainCallReply(to: request, uid: uid, checksPassword: false) }
        return passwordDelay.oneAtATime(for: uid) { keychainCallReply(to: request, uid: uid, checksPassword: true) }
    }

    private func keychainCallReply(to request: ServiceRequest, uid: UInt32, checksPassword: Bool) -> ServiceReply {
        if checksPassword, let wait = passwordDelay.remainingWait(of: uid) {
            return ServiceReply(status: KeychainStatus.authFailed.rawValue, failureReason: WrongPasswordDelay.refusal(wait))
        }
        let reply: ServiceReply
        do {
            reply = LoginKeychainCalls.reply(to: request, on: try keychains.servedKeychain(of: uid))
        } catch {
            return ServiceReply(status: error.osStatus, failureReason: Self.reason(error))
        }
        guard checksPassword else { return reply }
        switch reply.status {
        case KeychainStatus.success.rawValue:
            passwordDelay.recordRightPassword(of: uid)
        case KeychainStatus.authFailed.rawValue:
            if let wait = passwordDelay.recordWrongPassword(of: uid) {
                return ServiceReply(status: reply.status, failureReason: "the password is wrong; " + WrongPasswordDelay.refusal(wait))
            }
        default:
            break
        }
        return reply
    }

    /// The words of `failure` for the client, which shows them as "Not available: …".
    private static func reason(_ failure: KeychainStoreError) -> String {
        if case .notAvailable(let what) = failure.reason { return what }
        return failure.description
    }

    private func perform(_ request: ServiceRequest, from peer: PeerIdentity) -> SecItemResult {
        if peer.tracerPID != 0 {
            return SecItemResult(failure: KeychainStoreError(.notAvailable("a traced process (TracerPid \(peer.tracerPID)) cannot be verified"),
                                                             status: .missingEntitlement))
        }
        let query: [String: Any], changes: [String: Any]
        do {
            query = try AccessControlWireForm.decodingPolicy(in: WireEntry.dictionary(request.query))
            changes = try AccessControlWireForm.decodingPolicy(in: WireEntry.dictionary(request.changes))
        } catch {
            return SecItemResult(failure: error)
        }
        if let key = query.keys.first(where: Self.refusedKeys.contains) ?? request.changes.first(where: { Self.refusedKeys.contains($0.key) })?.key {
            return SecItemResult(failure: .invalidParameter("the keychain service picks the keychain and takes no \(key)"))
        }
        do {
            let groups = try CallerEntitlements(peer: peer, grants: grants)
                .accessGroups(claimedApplicationIdentifier: request.claimedApplicationIdentifier, claimedGroups: request.claimedAccessGroups)
            let creating = request.operation == .add
            let engine = try keychains.keychain(of: peer.uid, creating: creating).engine(accessGroups: groups, creatingKeychain: creating)
            switch request.operation {
            case .add: return engine.add(query)
            case .copyMatching: return engine.copyMatching(query)
            case .update: return engine.updateOutcome(query, changes)
            case .delete: return engine.deleteOutcome(query)
            case .unlockKeychain, .lockKeychain, .createKeychain, .keychainStatus, .changePassword, .setSettings:
                return SecItemResult(failure: .invalidParameter("not a SecItem call"))
            }
        } catch {
            return SecItemResult(failure: error)
        }
    }
}
