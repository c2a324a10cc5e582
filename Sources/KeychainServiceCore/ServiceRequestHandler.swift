#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainEngine
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// Answers one decoded request from an identified caller: its keychain (by uid), its access
/// groups (by verified identity, grants and claims), then the SecItem call on the engine.
final class ServiceRequestHandler: Sendable {
    let keychains: UserKeychains
    let grants: [ApplicationGrant]
    /// The wait after wrong keychain passwords, per uid, for every connection of the service.
    private let passwordDelay: WrongPasswordDelay
    private let userGrants: UserGrants
    let proofs: PasswordProof
    /// The tokens that let an `LAContext` skip the prompt after the service verified its password.
    let contextProofs = ContextProofs()
    /// Each user's access log: every secret read and write through the service, whoever the front end.
    let accessLogs: ServiceAccessLogs
    /// The calls the Secret Service provider forwards for its D-Bus clients.
    let forwardedCalls: ForwardedCalls
    /// The Secret Service's per-application access, kept by the service for each user.
    let secretServiceAccess: SecretServiceAccessLists

    /// The keys a caller may not send: the service, not the caller, picks the keychain, and item
    /// references are objects of the caller's own process.
    private static let refusedKeys: Set<String> = ["u_Keychain", "m_SearchList", "v_Ref"]

    init(keychains: UserKeychains, grants: [ApplicationGrant], userGrants: UserGrants, forwardedCalls: ForwardedCalls,
         secretServiceAccess: SecretServiceAccessLists, accessLogs: ServiceAccessLogs = ServiceAccessLogs()) {
        self.keychains = keychains
        self.accessLogs = accessLogs
        self.secretServiceAccess = secretServiceAccess
        self.forwardedCalls = forwardedCalls
        self.grants = grants
        self.userGrants = userGrants
        let passwordDelay = WrongPasswordDelay()
        self.passwordDelay = passwordDelay
        proofs = PasswordProof(keychains: keychains, delay: passwordDelay)
    }

    /// The reply to `request` from `peer` on the connection whose consent state is `session`.
    func reply(to request: ServiceRequest, from peer: PeerIdentity, session: ConsentSession = ConsentSession()) -> ServiceReply {
        // A challenge is answered by the very next request on its connection, or not at all.
        let pending = session.pending
        session.pending = nil
        if request.operation != .answerConsent, let forwarded = pending?.forwarded { logUnanswered(forwarded) }
        let pendingAuthentication = session.pendingAuthentication
        session.pendingAuthentication = nil
        if request.operation == .answerAuthentication {
            return answerAuthentication(request, to: pendingAuthentication, from: peer, session: session)
        }
        if request.operation == .importItems || request.operation == .exportItems {
            // A migration crosses every program's groups: the keychain password proves the user
            // asks, and a traced caller (whose password its tracer reads) is refused outright.
            if peer.tracerPID != 0 {
                return ServiceReply(status: KeychainStatus.missingEntitlement.rawValue,
                                    failureReason: "a traced process (TracerPid \(peer.tracerPID)) cannot migrate a keychain")
            }
            // Its password counts toward the wait after wrong passwords, as an unlock's does.
            return passwordDelay.oneAtATime(for: peer.uid) {
                passwordCheckedReply(uid: peer.uid) { keychain in ItemMigrationCalls.reply(to: request, on: keychain) }
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
        if request.operation.isGrantOrConsentCall {
            let calls = UserGrantCalls(userGrants: userGrants, proofs: proofs)
            if request.operation == .answerConsent {
                return answer(request, to: pending, from: peer, calls: calls)
            }
            return calls.reply(to: request, from: peer)
        }
        if request.operation.isSecretServiceAccessCall {
            return secretServiceAccessReply(to: request, from: peer)
        }
        if request.operation.forwardedItemOperation != nil {
            // The Secret Service provider's call for a D-Bus client: decided and logged here under
            // the client's identity, which the service reads itself.
            switch forwardedCalls.unwrap(request, from: peer) {
            case .failure(let refusal):
                return refusal.reply
            case .success(let forwarded):
                return forwardedReply(forwarded, session: session)
            }
        }
        if request.operation.isKeychainCall {
            // The caller's own login keychain, whichever program of theirs asks (as any app may
            // call SecKeychainUnlock on macOS): the password, not the program, is the proof.
            return keychainCallReply(to: request, uid: peer.uid)
        }
        let outcome = perform(request, from: peer, session: session)
        if outcome.status == UserGrantRequest.interactionRequiredStatus, let challenge = outcome.value as? AuthenticationChallenge {
            return Self.challengeReply(challenge, reason: "a password is needed to read this item's secret")
        }
        return Self.reply(outcome, consent: session.pending)
    }

    /// The reply carrying `outcome`, or the challenge `consent` when one was just made.
    static func reply(_ outcome: SecItemResult, consent: ConsentPrompt.Pending?) -> ServiceReply {
        if let consent, outcome.status == UserGrantRequest.interactionRequiredStatus, let prompt = outcome.value as? ConsentChallenge {
            return ServiceReply(status: outcome.status, failureReason: "the keychain password is needed to allow this read",
                                result: ConsentChallenge(nonce: consent.nonce, prompt: prompt.prompt, canAlwaysAllow: prompt.canAlwaysAllow).wireValue)
        }
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
        guard checksPassword else {
            do {
                let keychain = try keychains.servedKeychain(of: uid)
                if request.operation == .lockKeychain { return lockReply(to: request, uid: uid, on: keychain) }
                return LoginKeychainCalls.reply(to: request, on: keychain)
            } catch {
                return ServiceReply(status: error.osStatus, failureReason: Self.reason(error))
            }
        }
        return passwordCheckedReply(uid: uid) { keychain in LoginKeychainCalls.reply(to: request, on: keychain) }
    }

    /// An explicit lock (`lock-keychain`, the wire's lock call): the user's access log is synced
    /// and its checkpoint, kept in the keychain, brought up to the newest entry first, as before an
    /// idle lock. A log that cannot be flushed does not keep the keychain unlocked: it is locked
    /// all the same, and the reply says what could not be done.
    private func lockReply(to request: ServiceRequest, uid: UInt32, on keychain: ServedKeychain) -> ServiceReply {
        let flushed = Result { () throws(AccessLogError) in try accessLogs.flush(of: uid) }
        let reply = LoginKeychainCalls.reply(to: request, on: keychain)
        guard reply.status == KeychainStatus.success.rawValue, case .failure(let error) = flushed else { return reply }
        return ServiceReply(status: KeychainStatus.notAvailable.rawValue,
                            failureReason: "the keychain is locked, but its access log's newest entries could not be synced first: \(error)")
    }

    /// The reply of `call`, a call that checks the keychain password of `uid`, run inside
    /// `passwordDelay.oneAtATime(for: uid)`: refused untried during a wait; a wrong password
    /// counted (and its wait named), a right one clearing the count.
    private func passwordCheckedReply(uid: UInt32, _ call: (ServedKeychain) -> ServiceReply) -> ServiceReply {
        if let wait = passwordDelay.remainingWait(of: uid) {
            return ServiceReply(status: KeychainStatus.authFailed.rawValue, failureReason: WrongPasswordDelay.refusal(wait))
        }
        let reply: ServiceReply
        do {
            reply = call(try keychains.servedKeychain(of: uid))
        } catch {
            return ServiceReply(status: error.osStatus, failureReason: Self.reason(error))
        }
        switch reply.status {
        case KeychainStatus.success.rawValue:
            passwordDelay.recordRightPassword(of: uid)
        case KeychainStatus.authFailed.rawValue:
            if let wait = passwordDelay.recordWrongPassword(of: uid) {
                return ServiceReply(status: reply.status, failureReason: (reply.failureReason ?? "the password is wrong") + "; "
                                    + WrongPasswordDelay.refusal(wait))
            }
        default:
            break
        }
        return reply
    }

    /// The words of `failure` for the client, which shows them as "Not available: …".
    static func reason(_ failure: KeychainStoreError) -> String {
        if case .notAvailable(let what) = failure.reason { return what }
        return failure.description
    }

    /// The answer to the challenge `pending` (nil: none is pending on this connection).
    private func answer(_ request: ServiceRequest, to pending: ConsentPrompt.Pending?, from peer: PeerIdentity,
                        calls: UserGrantCalls) -> ServiceReply {
        let fields = WireEntry.dictionary(request.query)
        guard let pending, let nonce = fields[UserGrantRequest.nonceKey] as? Data, ConsentPrompt.sameNonce(nonce, pending.nonce),
              ContinuousClock.now < pending.expires else {
            logForgedAnswer(from: peer)
            return ServiceReply(status: KeychainStatus.authFailed.rawValue,
                                failureReason: "no such consent prompt on this connection (answered, expired or never asked): nothing was read")
        }
        if fields[UserGrantRequest.denyKey] as? Bool == true {
            // The user denied it at the prompt: a forwarded call's denial is logged now, under the
            // client, not when the next request or the connection's end finds the challenge unanswered.
            if let forwarded = pending.forwarded { logUnanswered(forwarded) }
            return ServiceReply(status: KeychainStatus.userCanceled.rawValue,
                                failureReason: "you denied the program access to that item: nothing was done")
        }
        if let forwarded = pending.forwarded {
            return answerForwarded(request, to: pending, forwarded, from: peer)
        }
        var password = fields[UserGrantRequest.passwordKey] as? Data ?? Data()
        defer { password.resetBytes(in: 0..<password.count) }
        do {
            try proofs.verify(password, uid: peer.uid)
            if fields[UserGrantRequest.alwaysKey] as? Bool == true, peer.isVerified {
                try calls.record(ApplicationGrant(executablePath: peer.executablePath, sha256: nil, applicationIdentifier: nil,
                                                  accessGroups: [pending.group]), for: peer.uid)
            }
            let keychain = try keychains.keychain(of: peer.uid, creating: false)
            let engine = try keychain.engine(accessGroups: AccessGroups([pending.group]), creatingKeychain: false)
            // A read the user allowed is logged like any other, under the caller's own identifier.
            let application = CallerEntitlements(peer: peer, grants: grants).applicationIdentifier
            return Self.reply(record(engine.copyMatching(pending.query), of: pending.request, from: peer, as: application, in: keychain),
                              consent: nil)
        } catch {
            return ServiceReply(status: error.osStatus, failureReason: Self.reason(error))
        }
    }

    /// `outcome`, once the access log holds its record: a secret read that cannot be logged is
    /// refused (the secret does not leave), a write that cannot be logged is reported as failed
    /// with what happened (it was made).
    func record(_ outcome: SecItemResult, of request: ServiceRequest, from peer: PeerIdentity, as application: String,
                        in keychain: ServedKeychain, forwardedBy provider: PeerIdentity? = nil,
                        changedItems: [[String: Any]]? = nil, decision: AccessEvent.Decision = .trusted,
                        decodedQuery: [String: Any]? = nil) -> SecItemResult {
        let events = ServiceAccessRecording.events(for: request, outcome: outcome, peer: peer, application: application,
                                                   channel: provider == nil ? .keychainService : .secretService,
                                                   provider: provider?.executablePath, changedItems: changedItems, decision: decision,
                                                   decodedQuery: decodedQuery)
        guard !events.isEmpty else { return outcome }
        let log = accessLogs.log(of: peer.uid, keychain: keychain)
        guard case .failure(let error) = Result(catching: { () throws(AccessLogError) in try log.recordTogether(events) }) else { return outcome }
        let what = request.operation == .copyMatching || request.operation == .useTokenKey
            ? "the secret was not given out because the access could not be logged"
            : "the change was made, but the access log could not record it"
        return SecItemResult(failure: KeychainStoreError(.notAvailable("\(what): \(error)"),
                                                         status: KeychainStatus(rawValue: ServiceAccessLogs.status(of: error))))
    }

    /// A SecItem call of `peer`; with `provider`, one the Secret Service provider forwarded for
    /// `peer`, its D-Bus client: run in ``ServiceRequest/secretServiceAccessGroup`` once the
    /// client's per-application access allowed it (``forwardedReply(_:session:)``, `decision`),
    /// never asking for consent here, and logged under the client's identity with the provider named.
    func perform(_ request: ServiceRequest, from peer: PeerIdentity, session: ConsentSession,
                 forwardedBy provider: PeerIdentity? = nil, decision: AccessEvent.Decision = .trusted) -> SecItemResult {
        // A traced client of the provider is logged as traced; the provider itself is verified untraced.
        if peer.tracerPID != 0, provider == nil {
            return SecItemResult(failure: KeychainStoreError(.notAvailable("a traced process (TracerPid \(peer.tracerPID)) cannot be verified"),
                                                             status: .missingEntitlement))
        }
        var wireQuery = WireEntry.dictionary(request.query)
        // Whether the client can show the consent prompt: a request flag, never an item attribute.
        let canPrompt = wireQuery.removeValue(forKey: UserGrantRequest.canPromptKey) as? Bool == true
        var authentication = AuthenticationFields(removingFrom: &wireQuery)
        if let proof = authentication.proof { authentication.ownerProved = contextProofs.proves(proof, for: peer) }
        let query: [String: Any], changes: [String: Any]
        do {
            query = try AccessControlWireForm.decodingPolicy(in: wireQuery)
            changes = try AccessControlWireForm.decodingPolicy(in: WireEntry.dictionary(request.changes))
        } catch {
            return SecItemResult(failure: error)
        }
        if let key = query.keys.first(where: Self.refusedKeys.contains) ?? request.changes.first(where: { Self.refusedKeys.contains($0.key) })?.key {
            return SecItemResult(failure: .invalidParameter("the keychain service picks the keychain and takes no \(key)"))
        }
        do throws(KeychainStoreError) {
            let ownGrants: [ApplicationGrant]
            do { ownGrants = try userGrants.grants(of: peer.uid) } catch {
                throw KeychainStoreError(.io("your grants cannot be read: \(error.description)"))
            }
            let entitlements = CallerEntitlements(peer: peer, grants: grants + ownGrants)
            let groups = provider != nil ? AccessGroups([ServiceRequest.secretServiceAccessGroup])
                : try entitlements.accessGroups(claimedApplicationIdentifier: request.claimedApplicationIdentifier,
                                                claimedGroups: request.claimedAccessGroups)
            // The log's key item would let its reader forge entries: no program may be given its group.
            if groups.groups.contains(AccessLog.keyAccessGroup) {
                return SecItemResult(failure: KeychainStoreError(.notAvailable("the access group \(AccessLog.keyAccessGroup) holds the access "
                                                                               + "log's key and is granted to no program"), status: .missingEntitlement))
            }
            let creating = request.operation == .add || request.operation == .createTokenKey
            let keychain = try keychains.keychain(of: peer.uid, creating: creating)
            let engine = try keychain.engine(accessGroups: groups, creatingKeychain: creating)
            let outcome: SecItemResult
            // The Secret Service changes and deletes items by persistent reference: the log names
            // them by what they were called before the call, read first.
            var changedItems: [[String: Any]]?
            if provider != nil, request.operation == .update || request.operation == .delete, query["v_PersistentRef"] != nil {
                var names = query
                names["r_Attributes"] = true
                names["m_Limit"] = "m_LimitAll"
                changedItems = engine.copyMatching(names).value as? [[String: Any]]
            }
            let engineQuery = authentication.engineQuery(query)
            switch request.operation {
            case .add: outcome = engine.add(engineQuery)
            case .copyMatching:
                outcome = engine.copyMatching(engineQuery)
                // Nothing found in the caller's groups: another application's item may need consent
                // (a challenge or a refusal; nothing is read, so nothing is logged).
                if provider == nil, outcome.status == KeychainStatus.itemNotFound.rawValue, request.claimedAccessGroups.isEmpty,
                   request.claimedApplicationIdentifier == nil, query["agrp"] == nil,
                   let asked = try consent(for: query, request: request, from: peer, groups: groups, canPrompt: canPrompt, session: session) {
                    return asked
                }
            case .update: outcome = engine.updateOutcome(engineQuery, changes)
            case .delete: outcome = engine.deleteOutcome(query)
            case .createTokenKey: outcome = TokenKeyCalls.create(query, engine: engine)
            case .useTokenKey:
                let used = TokenKeyCalls.use(query, engine: engine)
                if used.outcome.status == KeychainStatus.itemNotFound.rawValue, let refusal = tokenKeyOfAnotherApplication(query, keychain, groups) {
                    return refusal
                }
                outcome = used.outcome
                changedItems = used.item.map { [$0] }
            case .tokenPublicKey: outcome = TokenKeyCalls.publicKey(handle: query[TokenKeyRequest.handleKey] as? Data ?? Data(), engine: engine)
            case .unlockKeychain, .lockKeychain, .createKeychain, .keychainStatus, .changePassword, .setSettings,
                 .grantApplication, .revokeApplication, .listApplicationGrants, .answerConsent, .importItems, .exportItems, .readAccessLog,
                 .forwardedAdd, .forwardedCopyMatching, .forwardedUpdate, .forwardedDelete, .readSecretServiceAccess, .changeSecretServiceAccess, .readSecretServicePolicy, .answerAuthentication:
                return SecItemResult(failure: .invalidParameter("not a SecItem call"))
            }
            // A read or update whose items ask for a password the caller can be asked for: a challenge.
            if provider == nil, let challenge = authenticationChallenge(
                after: outcome, request: request, query: query, changes: changes, fields: authentication, engine: engine,
                groups: groups, application: entitlements.applicationIdentifier, session: session) {
                return challenge
            }
            return record(outcome, of: request, from: peer, as: entitlements.applicationIdentifier, in: keychain, forwardedBy: provider,
                          changedItems: changedItems, decision: decision, decodedQuery: query)
        } catch {
            return SecItemResult(failure: error)
        }
    }

    /// The refusal of a use of a token key that is another application's (its handle names an
    /// item outside the caller's groups): `errSecInteractionNotAllowed`, as a read of it without
    /// consent; nil when no item has that handle (the use stays "not found"). Nothing is used.
    private func tokenKeyOfAnotherApplication(_ query: [String: Any], _ keychain: ServedKeychain, _ groups: AccessGroups) -> SecItemResult? {
        guard let handle = query[TokenKeyRequest.handleKey] as? Data,
              let match = ConsentPrompt.match(TokenKeyCalls.itemQuery(handle: handle, withData: false), in: keychain, outside: groups) else {
            return nil
        }
        return SecItemResult(failure: KeychainStoreError(.notAvailable(
            "that key belongs to \(match.group): using another application's key needs a grant of its group (keychainctl app grant)"),
            status: .interactionNotAllowed))
    }

    /// When a read that found nothing in the caller's groups matches an item of another group:
    /// a challenge for a client that can ask its user (the outcome's value is the
    /// ``ConsentChallenge`` without its nonce, which `session` keeps), else
    /// `errSecInteractionNotAllowed`; nil when nothing outside matches (the read stays "not found").
    private func consent(for query: [String: Any], request: ServiceRequest, from peer: PeerIdentity, groups: AccessGroups, canPrompt: Bool,
                         session: ConsentSession) throws(KeychainStoreError) -> SecItemResult? {
        let keychain = try keychains.keychain(of: peer.uid, creating: false)
        guard let match = ConsentPrompt.match(query, in: keychain, outside: groups) else { return nil }
        let uiFails = (query["u_AuthUI"] as? String) == "u_AuthUIF"
        guard canPrompt, !uiFails else {
            return SecItemResult(failure: KeychainStoreError(.notAvailable(
                "an item of \(match.group) matches, and reading another application's item needs your consent with the keychain "
                + "password, which cannot be asked here: run keychainctl on a terminal to be asked, or grant it with "
                + "keychainctl app grant"), status: .interactionNotAllowed))
        }
        let pending = ConsentPrompt.Pending(nonce: ConsentPrompt.nonce(), query: query, request: request, group: match.group,
                                            expires: .now + .seconds(ConsentPrompt.answerSeconds))
        session.pending = pending
        let text = ConsentPrompt.text(peer: peer, chain: ConsentPrompt.parentChain(of: peer.pid), match: match)
        return SecItemResult(status: UserGrantRequest.interactionRequiredStatus,
                             value: ConsentChallenge(nonce: Data(), prompt: text, canAlwaysAllow: peer.isVerified))
    }
}
