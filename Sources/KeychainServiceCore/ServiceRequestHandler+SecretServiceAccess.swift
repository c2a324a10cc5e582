#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// The Secret Service's per-application access, decided by the service for the D-Bus client it
/// identified itself (never on the provider's word): an item's creator may use it; an application
/// the user allowed always (with the keychain password) may; with the `allow` policy the user set,
/// any verified application may; otherwise the user is asked — through the provider's prompt, the
/// answer carrying the keychain password, which the service checks — and an unverifiable client
/// never gets more than the user confirms. Every decision is logged once, under the client, with
/// the provider named.
extension ServiceRequestHandler {
    /// The reply to a call the provider forwarded for its D-Bus client, once its access is decided.
    func forwardedReply(_ forwarded: ForwardedCalls.Forwarded, session: ConsentSession) -> ServiceReply {
        var request = forwarded.request
        // Whether the provider can put a prompt before its user: a request flag, never an attribute.
        let canPrompt = request.query.contains { $0.key == UserGrantRequest.canPromptKey && $0.value == .bool(true) }
        request.query.removeAll { $0.key == UserGrantRequest.canPromptKey }
        let client = forwarded.client, provider = forwarded.provider
        let query = WireEntry.dictionary(request.query)
        let decided: AccessEvent.Operation
        switch request.operation {
        case .add:
            return forwardedAdd(request, client: client, provider: provider, session: session)
        case .copyMatching where query["r_Data"] as? Bool == true: decided = .read
        case .update: decided = .update
        case .delete: decided = .delete
        default:
            // Attributes alone (what any client of the provider may list): nothing to decide.
            return Self.reply(perform(request, from: client, session: session, forwardedBy: provider), consent: nil)
        }
        let record: SecretServiceAccessLists.Record
        do { record = try secretServiceAccess.record(of: client.uid) } catch {
            return ServiceReply(status: KeychainStatus.io.rawValue, failureReason: error.description)
        }
        let items: [[String: Any]]
        switch matchedItems(query, uid: client.uid) {
        case .success(let found): items = found
        case .failure(let refusal): return refusal.reply
        }
        let ids = items.compactMap(Self.itemID)
        let verdict = SecretServiceAccessDecision.decide(client: client, itemIDs: ids, record: record)
        switch verdict {
        case .allowed(let decision):
            let reply = Self.reply(perform(request, from: client, session: session, forwardedBy: provider, decision: decision), consent: nil)
            if decided == .delete, reply.status == KeychainStatus.success.rawValue { forgetLists(of: ids, uid: client.uid) }
            return reply
        case .denied:
            logDecision(decided, items: items, client: client, provider: provider, decision: .deniedByPolicy)
            return ServiceReply(status: KeychainStatus.missingEntitlement.rawValue,
                                failureReason: "\(client.executablePath) is not trusted by this Secret Service item and your per-application "
                                + "policy is deny; allow it with keychainctl app-access trust")
        case .needsConsent(let asking):
            let uiFails = query["u_AuthUI"] as? String == "u_AuthUIF"
            guard canPrompt, !uiFails else {
                logDecision(decided, items: items, client: client, provider: provider, decision: .deniedByUser)
                return ServiceReply(status: KeychainStatus.userCanceled.rawValue,
                                    failureReason: "\(client.executablePath) is not trusted by this Secret Service item, and allowing it needs "
                                    + "your keychain password at a prompt, which the provider cannot show here; allow it with keychainctl "
                                    + "app-access trust")
            }
            let pending = ConsentPrompt.Pending(
                nonce: ConsentPrompt.nonce(), query: [:], request: request, group: ServiceRequest.secretServiceAccessGroup,
                expires: .now + .seconds(ConsentPrompt.answerSeconds),
                forwarded: ConsentPrompt.ForwardedConsent(request: request, client: client, provider: provider, itemIDs: asking, items: items))
            session.pending = pending
            let prompt = SecretServiceAccessDecision.promptText(client: client, chain: ConsentPrompt.parentChain(of: client.pid),
                                                               provider: provider, operation: decided, items: items)
            return ServiceReply(status: UserGrantRequest.interactionRequiredStatus,
                                failureReason: "the keychain password is needed to allow this access",
                                result: ConsentChallenge(nonce: pending.nonce, prompt: prompt, canAlwaysAllow: client.isVerified).wireValue)
        }
    }

    /// The answer to a forwarded call's challenge: the keychain password proves the user answered
    /// (a wrong one is logged as a denial under the client and carries nothing out); the client
    /// must still be the process that asked; "always" puts a verified client on the items' lists.
    func answerForwarded(_ request: ServiceRequest, to pending: ConsentPrompt.Pending, _ forwarded: ConsentPrompt.ForwardedConsent,
                         from peer: PeerIdentity) -> ServiceReply {
        let fields = WireEntry.dictionary(request.query)
        var password = fields[UserGrantRequest.passwordKey] as? Data ?? Data()
        defer { password.resetBytes(in: 0..<password.count) }
        let operation = Self.eventOperation(forwarded.request)
        do {
            try proofs.verify(password, uid: peer.uid)
        } catch {
            logDecision(operation, items: forwarded.items, client: forwarded.client, provider: forwarded.provider, decision: .deniedByUser)
            return ServiceReply(status: error.osStatus, failureReason: Self.reason(error) + "; nothing was done")
        }
        let client: PeerIdentity
        switch forwardedCalls.reidentify(forwarded.client, provider: peer) {
        case .success(let now): client = now
        case .failure(let refusal): return refusal.reply
        }
        let always = fields[UserGrantRequest.alwaysKey] as? Bool == true && client.isVerified
        if always {
            do {
                try secretServiceAccess.change(of: client.uid) { record in
                    for id in forwarded.itemIDs {
                        var list = record.items[id] ?? SecretServiceAccessLists.ItemList(creator: nil, trusted: [])
                        if !list.trusts(client.executablePath) { list.trusted.append(client.executablePath) }
                        record.items[id] = list
                    }
                }
            } catch {
                return ServiceReply(status: KeychainStatus.io.rawValue, failureReason: error.description + "; nothing was done")
            }
        }
        let outcome = perform(forwarded.request, from: client, session: ConsentSession(), forwardedBy: forwarded.provider,
                              decision: always ? .confirmedAlways : .confirmedOnce)
        if operation == .delete, outcome.status == KeychainStatus.success.rawValue {
            forgetLists(of: forwarded.items.compactMap(Self.itemID), uid: client.uid)
        }
        return Self.reply(outcome, consent: nil)
    }

    /// An answer with no challenge behind it on this connection (forged, replayed or late): logged
    /// as a refused access of the program that sent it.
    func logForgedAnswer(from peer: PeerIdentity) {
        let application = CallerEntitlements(peer: peer, grants: grants).applicationIdentifier
        let events = ServiceAccessRecording.decisionEvents(.read, items: [], peer: peer, application: application,
                                                           channel: .keychainService, provider: nil, decision: .deniedByUser)
        appendEvents(events, uid: peer.uid)
    }

    /// Ends `session`'s challenge, if any: a forwarded call's that was never answered (the user
    /// denied it at the provider's prompt, or nobody answered) is logged as denied.
    func abandon(_ session: ConsentSession) {
        if let forwarded = session.pending?.forwarded { logUnanswered(forwarded) }
        session.pending = nil
    }

    /// Logs a forwarded call's challenge that got no answer as denied by the user.
    func logUnanswered(_ forwarded: ConsentPrompt.ForwardedConsent) {
        logDecision(Self.eventOperation(forwarded.request), items: forwarded.items, client: forwarded.client, provider: forwarded.provider,
                    decision: .deniedByUser)
    }

    /// A forwarded add; a verified client becomes the new item's creator (an unverifiable one is
    /// no application a list can name: each of its reads is confirmed).
    private func forwardedAdd(_ request: ServiceRequest, client: PeerIdentity, provider: PeerIdentity, session: ConsentSession) -> ServiceReply {
        let outcome = perform(request, from: client, session: session, forwardedBy: provider)
        guard outcome.status == KeychainStatus.success.rawValue, client.isVerified else { return Self.reply(outcome, consent: nil) }
        let reference = (outcome.value as? Data) ?? ((outcome.value as? [String: Any])?["v_PersistentRef"] as? Data)
        guard let reference else { return Self.reply(outcome, consent: nil) }
        let id = Self.hex(reference)
        do {
            try secretServiceAccess.change(of: client.uid) { $0.items[id] = SecretServiceAccessLists.ItemList(creator: client.executablePath, trusted: []) }
        } catch {
            // An item its creator could not use is no success: removed again.
            let removal = ServiceRequest(operation: .delete, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                         query: [WireEntry(key: "v_PersistentRef", value: .data(reference))])
            _ = perform(removal, from: client, session: session, forwardedBy: provider)
            return ServiceReply(status: KeychainStatus.io.rawValue,
                                failureReason: "the item's creator could not be recorded, so it was not stored: \(error.description)")
        }
        return Self.reply(outcome, consent: nil)
    }

    /// Every Secret Service item `query` matches, with its attributes and persistent reference;
    /// a failure to look (other than nothing found) refuses the call: nothing is decided blind.
    private func matchedItems(_ query: [String: Any], uid: UInt32) -> Result<[[String: Any]], ForwardedCalls.Refusal> {
        var probe = query.filter { !$0.key.hasPrefix("r_") && $0.key != "m_Limit" }
        probe["r_Attributes"] = true
        probe["r_PersistentRef"] = true
        probe["m_Limit"] = "m_LimitAll"
        let keychain: ServedKeychain
        // No keychain yet: nothing matches, and the call itself says so.
        do { keychain = try keychains.keychain(of: uid, creating: false) } catch { return .success([]) }
        let engine: SecItemEngine
        do {
            engine = try keychain.engine(accessGroups: AccessGroups([ServiceRequest.secretServiceAccessGroup]), creatingKeychain: false)
        } catch {
            return .failure(ForwardedCalls.Refusal(reply: ServiceReply(status: error.osStatus, failureReason: Self.reason(error))))
        }
        let found = engine.copyMatching(probe)
        if found.status == KeychainStatus.itemNotFound.rawValue { return .success([]) }
        guard found.status == KeychainStatus.success.rawValue else {
            return .failure(ForwardedCalls.Refusal(reply: ServiceReply(status: found.status, failureReason: found.failure.map(Self.reason))))
        }
        return .success((found.value as? [[String: Any]]) ?? (found.value as? [String: Any]).map { [$0] } ?? [])
    }

    /// Logs one decision about `items` under `client`, naming the provider; a decision that cannot
    /// be logged is reported on the service's standard error by the caller's refusal alone.
    private func logDecision(_ operation: AccessEvent.Operation, items: [[String: Any]], client: PeerIdentity, provider: PeerIdentity,
                             decision: AccessEvent.Decision) {
        let application = CallerEntitlements(peer: client, grants: grants).applicationIdentifier
        let events = ServiceAccessRecording.decisionEvents(operation, items: items, peer: client, application: application,
                                                           channel: .secretService, provider: provider.executablePath, decision: decision)
        appendEvents(events, uid: client.uid)
    }

    private func appendEvents(_ events: [AccessEvent], uid: UInt32) {
        let keychain: ServedKeychain
        do { keychain = try keychains.keychain(of: uid, creating: false) } catch { return }  // no keychain: nothing to log into
        let log = accessLogs.log(of: uid, keychain: keychain)
        // A refusal stands whether or not its record could be written: nothing was given out.
        _ = Result { () throws(AccessLogError) in try log.recordTogether(events) }
    }

    /// Removes the lists of deleted items (ids are never reused: a leftover list only takes room).
    private func forgetLists(of ids: [String], uid: UInt32) {
        guard !ids.isEmpty else { return }
        _ = Result { () throws(SecretServiceAccessLists.Failure) in
            try secretServiceAccess.change(of: uid) { record in for id in ids { record.items[id] = nil } }
        }
    }

    private static func eventOperation(_ request: ServiceRequest) -> AccessEvent.Operation {
        switch request.operation {
        case .update: .update
        case .delete: .delete
        case .add: .create
        default: .read
        }
    }

    /// An item's Secret Service id: the hex of its persistent reference.
    static func itemID(_ attributes: [String: Any]) -> String? {
        (attributes["v_PersistentRef"] as? Data).map(hex)
    }

    static func hex(_ bytes: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
