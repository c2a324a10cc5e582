#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The exchange that reads the secret of an item whose access control asks for the user
/// (`.devicePasscode`, `.userPresence`, `.applicationPassword`) through the keychain service.
///
/// The client marks a SecItem read or update with ``canAuthenticateKey`` when it can show the
/// embedded mode's pinentry prompt, and may send an application password it already holds
/// (``applicationPasswordKey``, from `LAContext.setCredential(_:type:)`). When the service finds
/// that the call needs a password it was not given, it answers `errSecInteractionRequired` with
/// an ``AuthenticationChallenge``; the client asks its user and answers with
/// ``ServiceRequest/Operation/answerAuthentication`` on the same connection. The service keeps
/// the call itself with the connection: the answer carries only the challenge's nonce and the
/// passwords, and the service verifies them itself.
package enum AuthenticationRequest {
    /// The request flag (a boolean, true) saying the client can ask its user for a password.
    package static let canAuthenticateKey = "kk_CanAuthenticate"
    /// The request entry holding an application password the client already has (data).
    package static let applicationPasswordKey = "kk_ApplicationPassword"
    /// The request flag (a boolean, true) saying the call's `LAContext` was invalidated.
    package static let contextInvalidatedKey = "kk_ContextInvalidated"
    /// The request entry holding a context's proof (data): the token of an earlier challenge
    /// whose keychain password the service verified for this same process (see ``AuthenticationChallenge/proof``).
    package static let proofKey = "kk_AuthenticationProof"
    /// The answer's nonce (data), the challenge's.
    package static let nonceKey = "nonce"
    /// The answer's keychain password (data), when the challenge asked for it.
    package static let passwordKey = ServiceRequest.passwordKey
    /// The answer's application password (data), when the challenge asked for it.
    package static let answerApplicationPasswordKey = "applicationPassword"
    /// The answer's cancel flag (a boolean, true): the user cancelled the prompt.
    package static let cancelKey = "cancel"

    /// Refuses an answer's entries of the wrong kind, and an answer without its nonce.
    static func check(_ query: [WireEntry]) throws(WireFailure) {
        var seen: Set<String> = []
        for entry in query {
            guard seen.insert(entry.key).inserted else { throw .malformed("answerAuthentication repeats \(entry.key)") }
            switch (entry.key, entry.value) {
            case (nonceKey, .data), (passwordKey, .data), (answerApplicationPasswordKey, .data), (cancelKey, .bool): break
            default: throw .malformed("answerAuthentication takes no \(entry.key) of that type")
            }
        }
        guard seen.contains(nonceKey) else { throw .malformed("answerAuthentication needs nonce") }
    }
}

/// What the service asks a client to collect from its user before it releases a constrained
/// item's secret: the keychain password, an application password, or both, with a single-use
/// nonce bound to this connection and this call.
package struct AuthenticationChallenge: Equatable, Sendable {
    /// The nonce the answer must carry.
    package var nonce: Data
    /// Whether the keychain password is needed (`.devicePasscode`, `.userPresence`).
    package var needsKeychainPassword: Bool
    /// Whether an application password is needed (`.applicationPassword`).
    package var needsApplicationPassword: Bool
    /// The text to show again after a wrong password ("Wrong password, try again."), or nil.
    package var retryMessage: String?
    /// A token the service makes valid, for this process only, once it verifies the keychain
    /// password answered: the client keeps it in the call's `LAContext` and sends it with the
    /// context's later calls, which then need no prompt (empty: none).
    package var proof: Data = Data()

    /// A challenge.
    package init(nonce: Data, needsKeychainPassword: Bool, needsApplicationPassword: Bool, retryMessage: String? = nil) {
        self.nonce = nonce
        self.needsKeychainPassword = needsKeychainPassword
        self.needsApplicationPassword = needsApplicationPassword
        self.retryMessage = retryMessage
    }

    /// Its wire form, the result of an `errSecInteractionRequired` reply.
    package var wireValue: WireValue {
        var entries = [WireEntry(key: "authenticate", value: .bool(true)), WireEntry(key: "nonce", value: .data(nonce)),
                       WireEntry(key: "keychainPassword", value: .bool(needsKeychainPassword)),
                       WireEntry(key: "applicationPassword", value: .bool(needsApplicationPassword))]
        if let retryMessage { entries.append(WireEntry(key: "retry", value: .string(retryMessage))) }
        if !proof.isEmpty { entries.append(WireEntry(key: "proof", value: .data(proof))) }
        return .dictionary(entries)
    }

    /// The challenge in a reply's result, or nil when it holds none (a consent challenge, say).
    package init?(_ value: WireValue?) {
        guard case .dictionary(let entries)? = value, entries.contains(where: { $0.key == "authenticate" && $0.value == .bool(true) })
        else { return nil }
        var nonce: Data?, keychain = false, application = false, retry: String?, proof = Data()
        for entry in entries {
            switch (entry.key, entry.value) {
            case ("authenticate", .bool): break
            case ("nonce", .data(let bytes)): nonce = bytes
            case ("keychainPassword", .bool(let flag)): keychain = flag
            case ("applicationPassword", .bool(let flag)): application = flag
            case ("retry", .string(let text)): retry = text
            case ("proof", .data(let bytes)): proof = bytes
            default: return nil
            }
        }
        guard let nonce else { return nil }
        self.init(nonce: nonce, needsKeychainPassword: keychain, needsApplicationPassword: application, retryMessage: retry)
        self.proof = proof
    }
}
