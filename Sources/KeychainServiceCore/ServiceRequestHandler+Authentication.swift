#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// A SecItem read or update whose items' access control needs a password the caller did not
/// give, kept with the connection it came on until the caller answers the challenge.
struct PendingAuthentication {
    let nonce: Data
    /// The request as sent, for the access log.
    let request: ServiceRequest
    /// The call's query and changes as decoded (without the request's own flags).
    let query: [String: Any]
    let changes: [String: Any]
    /// The caller's access groups and application identifier when it sent the call.
    let groups: AccessGroups
    let application: String
    let needsKeychainPassword: Bool
    let needsApplicationPassword: Bool
    /// Whether the call's context proof already proved the keychain password.
    let ownerProved: Bool
    /// The application password the call itself carried (from its `LAContext`), if any.
    let sentApplicationPassword: Data?
    let contextInvalidated: Bool
    /// The token the challenge offered, activated for the caller once its password is verified.
    let proof: Data
    /// Wrong keychain passwords answered so far (three end the call).
    let failedAttempts: Int
    let expires: ContinuousClock.Instant
}

/// What a SecItem call's request says about authentication (flags the client adds, never item
/// attributes): removed from the query before the engine sees it.
struct AuthenticationFields {
    var canAuthenticate = false
    var applicationPassword: Data?
    var contextInvalidated = false
    /// The context's proof token, if it sent one.
    var proof: Data?
    /// Whether that token proves the keychain password for this caller (checked by the service).
    var ownerProved = false

    /// The fields of `query`, removed from it.
    init(removingFrom query: inout [String: Any]) {
        canAuthenticate = query.removeValue(forKey: AuthenticationRequest.canAuthenticateKey) as? Bool == true
        applicationPassword = query.removeValue(forKey: AuthenticationRequest.applicationPasswordKey) as? Data
        contextInvalidated = query.removeValue(forKey: AuthenticationRequest.contextInvalidatedKey) as? Bool == true
        proof = query.removeValue(forKey: AuthenticationRequest.proofKey) as? Data
    }

    /// `query` with the context the engine evaluates access control against: the keychain
    /// password proved only by a context's proof the service checked (else it is asked through a
    /// challenge), the application password sent.
    func engineQuery(_ query: [String: Any]) -> [String: Any] {
        guard applicationPassword != nil || contextInvalidated || ownerProved else { return query }
        var withContext = query
        withContext["u_AuthCtx"] = ServiceAuthenticationContext(ownerVerified: ownerProved, applicationPassword: applicationPassword,
                                                                invalidated: contextInvalidated)
        return withContext
    }
}

extension ServiceRequestHandler {
    /// How many wrong keychain passwords one call takes, as the embedded prompt's attempts.
    static let authenticationAttempts = 3

    /// After a read or update came back `errSecInteractionNotAllowed`: when its matched items'
    /// access control asks for a password the caller can be asked for, the challenge (kept in
    /// `session`); nil otherwise (the outcome stands: no prompt possible, UI Fail, a locked keychain).
    func authenticationChallenge(after outcome: SecItemResult, request: ServiceRequest, query: [String: Any],
                                 changes: [String: Any], fields: AuthenticationFields, engine: SecItemEngine, groups: AccessGroups,
                                 application: String, session: ConsentSession) -> SecItemResult? {
        guard outcome.status == KeychainStatus.interactionNotAllowed.rawValue,
              request.operation == .copyMatching || request.operation == .update else { return nil }
        guard fields.canAuthenticate, (query["u_AuthUI"] as? String) != "u_AuthUIF" else { return nil }
        var probe = query.filter { !$0.key.hasPrefix("r_") && $0.key != "m_Limit" }
        probe["r_Attributes"] = true
        probe["m_Limit"] = "m_LimitAll"
        let found = engine.copyMatching(probe)
        guard found.status == KeychainStatus.success.rawValue, let items = found.value as? [[String: Any]] else { return nil }
        var flags = items.compactMap { ($0[ServiceAccessControl.attributeKey] as? AccessControlPolicy)?.flags }
        if let changed = changes[ServiceAccessControl.attributeKey] as? AccessControlPolicy { flags.append(changed.flags) }
        let needsKeychain = !fields.ownerProved && flags.contains { $0 & (AccessControlPolicy.devicePasscode | AccessControlPolicy.userPresence) != 0 }
        let needsApplication = fields.applicationPassword == nil && flags.contains { $0 & AccessControlPolicy.applicationPassword != 0 }
        guard needsKeychain || needsApplication else { return nil }
        let pending = PendingAuthentication(nonce: ConsentPrompt.nonce(), request: request, query: query, changes: changes, groups: groups,
                                            application: application, needsKeychainPassword: needsKeychain,
                                            needsApplicationPassword: needsApplication, ownerProved: fields.ownerProved,
                                            sentApplicationPassword: fields.applicationPassword,
                                            contextInvalidated: fields.contextInvalidated, proof: ContextProofs.token(), failedAttempts: 0,
                                            expires: .now + .seconds(ConsentPrompt.answerSeconds))
        session.pendingAuthentication = pending
        return SecItemResult(status: UserGrantRequest.interactionRequiredStatus,
                             value: Self.challenge(for: pending, retryMessage: nil))
    }

    /// The challenge that stands for `pending`.
    static func challenge(for pending: PendingAuthentication, retryMessage: String?) -> AuthenticationChallenge {
        var challenge = AuthenticationChallenge(nonce: pending.nonce, needsKeychainPassword: pending.needsKeychainPassword,
                                                needsApplicationPassword: pending.needsApplicationPassword, retryMessage: retryMessage)
        if pending.needsKeychainPassword { challenge.proof = pending.proof }
        return challenge
    }

    /// The reply carrying `challenge`.
    static func challengeReply(_ challenge: AuthenticationChallenge, reason: String) -> ServiceReply {
        ServiceReply(status: UserGrantRequest.interactionRequiredStatus, failureReason: reason, result: challenge.wireValue)
    }

    /// The answer to the challenge `pending` (nil: none is pending on this connection): the
    /// keychain password verified here (with the uid's wait after wrong ones), then the call run
    /// with what was proved. A wrong password gets a new challenge until the third.
    func answerAuthentication(_ request: ServiceRequest, to pending: PendingAuthentication?, from peer: PeerIdentity,
                              session: ConsentSession) -> ServiceReply {
        let fields = WireEntry.dictionary(request.query)
        guard let pending, let nonce = fields[AuthenticationRequest.nonceKey] as? Data, ConsentPrompt.sameNonce(nonce, pending.nonce),
              ContinuousClock.now < pending.expires else {
            return ServiceReply(status: KeychainStatus.authFailed.rawValue,
                                failureReason: "no such password request on this connection (answered, expired or never asked): nothing was read")
        }
        if fields[AuthenticationRequest.cancelKey] as? Bool == true {
            return ServiceReply(status: KeychainStatus.userCanceled.rawValue, failureReason: "the password prompt was cancelled: nothing was read")
        }
        var password = fields[AuthenticationRequest.passwordKey] as? Data ?? Data()
        var applicationPassword = fields[AuthenticationRequest.answerApplicationPasswordKey] as? Data ?? pending.sentApplicationPassword
        defer {
            password.resetBytes(in: 0..<password.count)
            if let count = applicationPassword?.count { applicationPassword?.resetBytes(in: 0..<count) }
        }
        if pending.needsKeychainPassword {
            let proved = Result { () throws(KeychainStoreError) in try proofs.verify(password, uid: peer.uid) }
            if case .failure(let failure) = proved {
                let attempts = pending.failedAttempts + 1
                guard failure.osStatus == KeychainStatus.authFailed.rawValue, attempts < Self.authenticationAttempts else {
                    return ServiceReply(status: failure.osStatus, failureReason: Self.reason(failure) + ": nothing was read")
                }
                let retry = PendingAuthentication(nonce: ConsentPrompt.nonce(), request: pending.request, query: pending.query,
                                                  changes: pending.changes, groups: pending.groups, application: pending.application,
                                                  needsKeychainPassword: true, needsApplicationPassword: pending.needsApplicationPassword,
                                                  ownerProved: false,
                                                  sentApplicationPassword: pending.sentApplicationPassword,
                                                  contextInvalidated: pending.contextInvalidated, proof: pending.proof, failedAttempts: attempts,
                                                  expires: .now + .seconds(ConsentPrompt.answerSeconds))
                session.pendingAuthentication = retry
                return Self.challengeReply(Self.challenge(for: retry, retryMessage: "Wrong password, try again."), reason: Self.reason(failure))
            }
            contextProofs.activate(pending.proof, for: peer)
        }
        if pending.needsApplicationPassword, applicationPassword == nil {
            return ServiceReply(status: KeychainStatus.authFailed.rawValue, failureReason: "the answer carries no application password: nothing was read")
        }
        var query = pending.query
        query["u_AuthCtx"] = ServiceAuthenticationContext(ownerVerified: pending.needsKeychainPassword || pending.ownerProved, applicationPassword: applicationPassword,
                                                          invalidated: pending.contextInvalidated)
        do {
            let keychain = try keychains.keychain(of: peer.uid, creating: false)
            let engine = try keychain.engine(accessGroups: pending.groups, creatingKeychain: false)
            let outcome = pending.request.operation == .update ? engine.updateOutcome(query, pending.changes) : engine.copyMatching(query)
            return Self.reply(record(outcome, of: pending.request, from: peer, as: pending.application, in: keychain,
                                     decodedQuery: pending.query), consent: nil)
        } catch {
            return ServiceReply(status: error.osStatus, failureReason: Self.reason(error))
        }
    }
}
