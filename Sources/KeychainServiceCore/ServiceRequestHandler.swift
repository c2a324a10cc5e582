import Foundation
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// Answers one decoded request from an identified caller: its keychain (by uid), its access
/// groups (by verified identity, grants and claims), then the SecItem call on the engine.
final class ServiceRequestHandler: Sendable {
    private let keychains: UserKeychains
    private let grants: [ApplicationGrant]

    /// The keys a caller may not send: the service, not the caller, picks the keychain, and item
    /// references are objects of the caller's own process.
    private static let refusedKeys: Set<String> = ["u_Keychain", "m_SearchList", "v_Ref"]

    init(keychains: UserKeychains, grants: [ApplicationGrant]) {
        self.keychains = keychains
        self.grants = grants
    }

    /// The reply to `request` from `peer`.
    func reply(to request: ServiceRequest, from peer: PeerIdentity) -> ServiceReply {
        if request.operation == .importItems || request.operation == .exportItems {
            // A migration crosses every program's groups: the keychain password proves the user
            // asks, and a traced caller (whose password its tracer reads) is refused outright.
            if peer.tracerPID != 0 {
                return ServiceReply(status: KeychainStatus.missingEntitlement.rawValue,
                                    failureReason: "a traced process (TracerPid \(peer.tracerPID)) cannot migrate a keychain")
            }
            do {
                return ItemMigrationCalls.reply(to: request, on: try keychains.servedKeychain(of: peer.uid))
            } catch {
                return ServiceReply(status: error.osStatus, failureReason: Self.reason(error))
            }
        }
        if request.operation.isKeychainCall {
            // The caller's own login keychain, whichever program of theirs asks (as any app may
            // call SecKeychainUnlock on macOS): the password, not the program, is the proof.
            do {
                return LoginKeychainCalls.reply(to: request, on: try keychains.servedKeychain(of: peer.uid))
            } catch {
                return ServiceReply(status: error.osStatus, failureReason: Self.reason(error))
            }
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
        let query = WireEntry.dictionary(request.query)
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
            case .update: return engine.updateOutcome(query, WireEntry.dictionary(request.changes))
            case .delete: return engine.deleteOutcome(query)
            case .unlockKeychain, .lockKeychain, .createKeychain, .keychainStatus, .importItems, .exportItems:
                return SecItemResult(failure: .invalidParameter("not a SecItem call"))
            }
        } catch {
            return SecItemResult(failure: error)
        }
    }
}
