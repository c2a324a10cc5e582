#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// The client's half of access control that asks for the user, through the keychain service.
/// The call's `LAContext` stays in this process; what the service can use of it travels as
/// request flags (``AuthenticationRequest``): its application password, whether it forbids
/// interaction or was invalidated. When the service answers with an ``AuthenticationChallenge``,
/// the embedded mode's pinentry prompt asks for what it names and the answer goes back on the
/// same connection; the service verifies the keychain password itself.
package struct ServiceAuthentication {
    /// The prompts of this process.
    private let authenticator: OwnerAuthenticator
    /// The text the prompts show (the context's `localizedReason`).
    private let reason: String
    /// Why the last prompt could not be answered (no prompt, UI refused, a broken prompt), if it could not.
    private(set) var promptFailure: OwnerAuthenticationFailure?
    /// The call's context and the service it goes to, for the service's proof (``ServiceContextProofs``).
    private let context: AuthenticationContextConvertible?
    private let socketPath: String
    /// The proof of the last challenge answered with a keychain password.
    private var offeredProof: Data?

    /// Adds the request flags for `operation` to `query`, taking the call's `LAContext` out of it;
    /// for an add that seals its secret under an application password the context has not set,
    /// asks for that password first. Returns the failure of that prompt, if any. A call forwarded
    /// for a D-Bus client (`forwarded`) carries no flags: the service never challenges such a call,
    /// and its forwarded form takes item attributes only.
    package init(_ operation: ServiceRequest.Operation, forwarded: Bool = false, query: inout [String: Any], socketPath: String,
                 authenticator: OwnerAuthenticator) throws(KeychainStoreError) {
        self.authenticator = authenticator
        self.socketPath = socketPath
        var context: AuthenticationContextConvertible?
        if let sent = query["u_AuthCtx"] as? AuthenticationContextConvertible {
            context = sent
            query.removeValue(forKey: "u_AuthCtx")
        }
        self.context = context
        reason = context?.authenticationReason ?? ""
        guard !forwarded else { return }
        if let context {
            if context.forbidsInteraction, query["u_AuthUI"] == nil { query["u_AuthUI"] = "u_AuthUIF" }
            if context.isInvalidated { query[AuthenticationRequest.contextInvalidatedKey] = true }
            else if let proof = ServiceContextProofs.proof(for: context, socketPath: socketPath) { query[AuthenticationRequest.proofKey] = proof }
            if let credential = context.applicationPasswordCredential { query[AuthenticationRequest.applicationPasswordKey] = credential }
        }
        let uiAllowed = (query["u_AuthUI"] as? String ?? "u_AuthUIA") == "u_AuthUIA" && query["u_NoAuthUI"] as? Bool != true
        if operation == .copyMatching || operation == .update, uiAllowed, authenticator.pinentry != nil {
            query[AuthenticationRequest.canAuthenticateKey] = true
        }
        let flags = (query[ServiceAccessControl.attributeKey] as? AccessControlConvertible)?.accessControlPolicy.flags ?? 0
        if operation == .add, flags & AccessControlPolicy.applicationPassword != 0, query[AuthenticationRequest.applicationPasswordKey] == nil,
           ServiceAccessControl.unservedFlagsReason(flags) == nil {
            do {
                query[AuthenticationRequest.applicationPasswordKey] = try authenticator.applicationPassword(reason: reason,
                                                                                                         interactionAllowed: uiAllowed)
            } catch {
                throw KeychainStoreError(status: error.status)
            }
        }
    }

    /// The answer to the challenge in `reply`, asked of the user; nil when `reply` holds none, or
    /// when no answer can be given (``promptFailure`` then says why).
    package mutating func answer(to reply: ServiceReply) -> ServiceRequest? {
        guard reply.status == UserGrantRequest.interactionRequiredStatus, let challenge = AuthenticationChallenge(reply.result) else { return nil }
        var entries = [WireEntry(key: AuthenticationRequest.nonceKey, value: .data(challenge.nonce))]
        do throws(OwnerAuthenticationFailure) {
            if challenge.needsKeychainPassword {
                var password = try authenticator.askKeychainPasswordForService(reason: reason, retryMessage: challenge.retryMessage)
                defer { password.resetBytes(in: 0..<password.count) }
                entries.append(WireEntry(key: AuthenticationRequest.passwordKey, value: .data(password)))
                offeredProof = challenge.proof.isEmpty ? nil : challenge.proof
            }
            if challenge.needsApplicationPassword {
                var password = try authenticator.applicationPassword(reason: reason, interactionAllowed: true)
                defer { password.resetBytes(in: 0..<password.count) }
                entries.append(WireEntry(key: AuthenticationRequest.answerApplicationPasswordKey, value: .data(password)))
            }
        } catch {
            guard error.status == .userCanceled else {
                promptFailure = error
                return nil
            }
            // Cancelled: the service is told, and answers errSecUserCanceled.
            entries = [WireEntry(key: AuthenticationRequest.nonceKey, value: .data(challenge.nonce)),
                       WireEntry(key: AuthenticationRequest.cancelKey, value: .bool(true))]
        }
        return ServiceRequest(operation: .answerAuthentication, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: entries)
    }

    /// After the call: when it succeeded on a keychain password answered through the call's
    /// context, the context keeps the service's proof for its later calls (as an `LAContext` that
    /// authenticated keeps that in the embedded mode), unless it was invalidated meanwhile.
    package func keepProof(after reply: ServiceReply) {
        guard reply.status == 0, let offeredProof, let context, !context.isInvalidated else { return }
        ServiceContextProofs.record(offeredProof, for: context, socketPath: socketPath)
    }
}
