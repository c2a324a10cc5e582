import Foundation
import KeychainAudit
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// Answers one decoded request from an identified caller: its keychain (by uid), its access
/// groups (by verified identity, grants and claims), then the SecItem call on the engine.
final class ServiceRequestHandler: Sendable {
    private let keychains: UserKeychains
    private let grants: [ApplicationGrant]
    /// Each user's access log: every secret read and write through the service, whoever the front end.
    private let accessLogs = ServiceAccessLogs()

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
        if request.operation == .readAccessLog {
            // The caller's own log only: the uid, from the kernel, picks the keychain.
            var skip = 0
            if let entry = request.query.first(where: { $0.key == ServiceRequest.skipKey }), case .integer(let value) = entry.value {
                skip = Int(clamping: value)
            }
            do {
                return accessLogs.reply(readingLogOf: peer.uid, keychain: try keychains.keychain(of: peer.uid, creating: false), skip: skip)
            } catch {
                return ServiceReply(status: KeychainStatus.noSuchKeychain.rawValue,
                                    failureReason: "you have no keychain in the keychain service yet, so no access log")
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

    /// `outcome`, once the access log holds its record: a secret read that cannot be logged is
    /// refused (the secret does not leave), a write that cannot be logged is reported as failed
    /// with what happened (it was made).
    private func record(_ outcome: SecItemResult, of request: ServiceRequest, from peer: PeerIdentity, as application: String,
                        in keychain: ServedKeychain) -> SecItemResult {
        let events = ServiceAccessRecording.events(for: request, outcome: outcome, peer: peer, application: application)
        guard !events.isEmpty else { return outcome }
        let log = accessLogs.log(of: peer.uid, keychain: keychain)
        guard case .failure(let error) = Result(catching: { () throws(AccessLogError) in try log.recordTogether(events) }) else { return outcome }
        let what = request.operation == .copyMatching ? "the secret was not given out because the access could not be logged"
            : "the change was made, but the access log could not record it"
        return SecItemResult(failure: KeychainStoreError(.notAvailable("\(what): \(error)"),
                                                         status: KeychainStatus(rawValue: ServiceAccessLogs.status(of: error))))
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
            let entitlements = CallerEntitlements(peer: peer, grants: grants)
            let groups = try entitlements.accessGroups(claimedApplicationIdentifier: request.claimedApplicationIdentifier,
                                                       claimedGroups: request.claimedAccessGroups)
            // The log's key item would let its reader forge entries: no program may be given its group.
            if groups.groups.contains(AccessLog.keyAccessGroup) {
                return SecItemResult(failure: KeychainStoreError(.notAvailable("the access group \(AccessLog.keyAccessGroup) holds the access "
                                                                               + "log's key and is granted to no program"), status: .missingEntitlement))
            }
            let creating = request.operation == .add
            let keychain = try keychains.keychain(of: peer.uid, creating: creating)
            let engine = try keychain.engine(accessGroups: groups, creatingKeychain: creating)
            let outcome: SecItemResult
            switch request.operation {
            case .add: outcome = engine.add(query)
            case .copyMatching: outcome = engine.copyMatching(query)
            case .update: outcome = engine.updateOutcome(query, WireEntry.dictionary(request.changes))
            case .delete: outcome = engine.deleteOutcome(query)
            case .unlockKeychain, .lockKeychain, .createKeychain, .keychainStatus, .importItems, .exportItems, .readAccessLog:
                return SecItemResult(failure: .invalidParameter("not a SecItem call"))
            }
            return record(outcome, of: request, from: peer, as: entitlements.applicationIdentifier, in: keychain)
        } catch {
            return SecItemResult(failure: error)
        }
    }
}
