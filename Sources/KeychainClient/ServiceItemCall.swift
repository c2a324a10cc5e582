#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// A SecItem call sent to the keychain service, on plain dictionaries (keys as Apple's strings):
/// the request (the program's claims, or the Secret Service client it forwards for; whether this
/// process can ask its user), the consent exchange on the same connection, and the reply as the
/// engine's outcome. Apple objects (keys, certificates, identities) never travel: the edge that
/// has them turns them into attributes and data first.
package enum ServiceItemCall {
    /// The refusal of a call on a keychain the service does not serve (it serves the caller's
    /// login keychain, the default one, only).
    package static func keychainRefusal(_ keychain: KeychainLifecycle.ItemKeychain) -> KeychainStoreError? {
        switch keychain {
        case .defaultKeychain:
            return nil
        case .invalid(let problem):
            return .invalidParameter(problem)
        case .named(let path):
            let path = KeychainLocation.absolute(path)
            guard path != ProcessKeychains.registry.defaultKeychainPath else { return nil }
            return .invalidParameter("the keychain service serves your login keychain only; \(path) is not it "
                                     + "(unset \(KeychainVariable.serviceSocket) to use it)")
        }
    }

    /// The refusal of storing or generating a token-bound (Secure Enclave) key, which the service
    /// would have to use itself.
    package static let tokenBoundRefusal = KeychainStoreError(
        .notAvailable("token-bound (kSecAttrTokenIDSecureEnclave) keys are not served by the keychain service yet: it would have to "
                      + "perform their operations itself; unset \(KeychainVariable.serviceSocket) to keep them in the embedded keychain"),
        status: .unimplemented)

    /// `kSecAttrTokenID` and `kSecAttrTokenIDSecureEnclave` as Apple's strings.
    private static let tokenIDKey = "tkid"
    private static let secureEnclaveToken = "com.apple.setoken"

    /// The refusal of a request the service cannot serve: one naming the Secure Enclave token.
    package static func unservedRequest(_ dictionary: [String: Any]) -> KeychainStoreError? {
        (dictionary[tokenIDKey] as? String) == secureEnclaveToken ? tokenBoundRefusal : nil
    }

    /// Whether a result holds a token-bound key, whose bytes the service does not send.
    package static func containsTokenBoundKey(_ value: Any?) -> Bool {
        if let array = value as? [Any] { return array.contains(where: containsTokenBoundKey) }
        guard let item = value as? [String: Any] else { return false }
        return (item[tokenIDKey] as? String) == secureEnclaveToken
    }

    /// One SecItem call on plain dictionaries (no Apple objects left) sent to the service, and
    /// its reply as the engine's outcome (access control rebuilt by `accessControlObject`).
    package static func send(_ operation: ServiceRequest.Operation, _ query: [String: Any], changes: [String: Any] = [:],
                             socketPath: String, accessControlObject: (AccessControlPolicy) -> Any) -> SecItemResult {
        var query = query, changes = changes
        let configuration = ProcessKeychains.registry.configuration
        var authentication: ServiceAuthentication
        do {
            authentication = try ServiceAuthentication(operation, query: &query, socketPath: socketPath, authenticator: configuration.authenticator)
        } catch {
            return SecItemResult(failure: error)
        }
        if let refusal = AccessControlRequest.encode(&query) ?? AccessControlRequest.encode(&changes) { return SecItemResult(failure: refusal) }
        guard let queryEntries = WireEntry.entries(query), let changeEntries = WireEntry.entries(changes) else {
            let key = WireEntry.firstUnsendableKey(query) ?? WireEntry.firstUnsendableKey(changes) ?? "?"
            return SecItemResult(failure: KeychainStoreError(.notAvailable("the value of \(key) is an object the keychain service does not "
                                                                           + "take"), status: .unimplemented))
        }
        let request: ServiceRequest
        // A read outside the program's groups needs the user's consent: say whether this process can ask.
        // For the Secret Service provider's D-Bus client, the service identifies the client and runs
        // the call in the Secret Service's group, claiming nothing; what the service cannot decide
        // without the user (a client an item does not trust) is asked through the provider's prompter.
        let forwarding = ServiceForwarding.client.flatMap { client in operation.forwarded.map { (client, $0) } }
        let prompter = forwarding != nil ? ServiceForwarding.prompter : operation == .copyMatching ? ServiceConsent.prompter : nil
        if let (client, forwarded) = forwarding {
            let entries = [WireEntry(key: ServiceRequest.forwardedProcessKey, value: .integer(Int64(client.pid))),
                           WireEntry(key: ServiceRequest.forwardedStartTimeKey, value: .integer(Int64(clamping: client.startTime)))]
                + (prompter == nil ? [] : [WireEntry(key: UserGrantRequest.canPromptKey, value: .bool(true))])
            request = ServiceRequest(operation: forwarded, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                     query: queryEntries + entries, changes: changeEntries)
        } else {
            let sentEntries = queryEntries + (prompter == nil ? [] : [WireEntry(key: UserGrantRequest.canPromptKey, value: .bool(true))])
            request = ServiceRequest(operation: operation, claimedApplicationIdentifier: configuration.applicationIdentifier,
                                     claimedAccessGroups: configuration.listedAccessGroups, query: sentEntries, changes: changeEntries)
        }
        var reply: ServiceReply
        do {
            // A password an item's access control asks for, then again after a wrong one (three in all).
            reply = try ServiceClient.send(request, to: socketPath, rounds: 4) { first in
                if let answer = authentication.answer(to: first) { return answer }
                guard let prompter, first.status == UserGrantRequest.interactionRequiredStatus,
                      let challenge = ConsentChallenge(first.result) else { return nil }
                guard var answer = prompter(challenge) else {
                    // The user denied a D-Bus client's access at the provider's prompt: the service
                    // is told at once, and logs the denial under the client then.
                    guard forwarding != nil else { return nil }
                    return ServiceRequest(operation: .answerConsent, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                          query: [WireEntry(key: UserGrantRequest.nonceKey, value: .data(challenge.nonce)),
                                                  WireEntry(key: UserGrantRequest.denyKey, value: .bool(true))])
                }
                defer { answer.password.resetBytes(in: 0..<answer.password.count) }
                return ServiceRequest(operation: .answerConsent, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                      query: [WireEntry(key: UserGrantRequest.nonceKey, value: .data(challenge.nonce)),
                                              WireEntry(key: UserGrantRequest.passwordKey, value: .data(answer.password)),
                                              WireEntry(key: UserGrantRequest.alwaysKey, value: .bool(answer.always))])
            }
            authentication.keepProof(after: reply)
            if let failure = authentication.promptFailure, AuthenticationChallenge(reply.result) != nil {
                reply = ServiceReply(status: failure.osStatus, failureReason: failure == .notInteractive
                                     ? "this item's access control asks for a password, and no prompt can be shown (set KEYCHAINKIT_PINENTRY or run on a terminal)"
                                     : "the password prompt failed")
            } else if reply.status == UserGrantRequest.interactionRequiredStatus {
                // The user was asked and denied it (the challenge was not answered).
                reply = ServiceReply(status: KeychainStatus.userCanceled.rawValue, failureReason: "you denied the program access to that item")
            }
        } catch {
            return SecItemResult(failure: .notAvailable("the keychain service at \(socketPath) did not answer (\(error)); start it "
                                                        + "(keychainctl service run) or unset \(KeychainVariable.serviceSocket)"))
        }
        var outcome = SecItemResult(status: reply.status,
                                    value: reply.result.map { accessControlObjects(in: $0.swiftValue, accessControlObject) })
        if reply.status != KeychainStatus.success.rawValue {
            outcome.failure = KeychainStoreError(.notAvailable(reply.failureReason ?? "the keychain service refused the call"),
                                                 status: KeychainStatus(rawValue: reply.status))
        }
        outcome.unreadableItems = Int(reply.unreadableItems)
        return outcome
    }

    /// `result` with each access control the service sent (``ServiceAccessControl``) made the
    /// object an embedded call returns under `kSecAttrAccessControl`.
    private static func accessControlObjects(in result: Any, _ accessControlObject: (AccessControlPolicy) -> Any) -> Any {
        if let array = result as? [Any] { return array.map { accessControlObjects(in: $0, accessControlObject) } }
        guard var dictionary = result as? [String: Any], let sent = dictionary[ServiceAccessControl.attributeKey],
              let wire = ServiceAccessControl(sent) else { return result }
        // A policy this client cannot rebuild (a newer service's flags) is left out of the
        // result rather than shown wrong; the call itself succeeded and its other values stand.
        dictionary.removeValue(forKey: ServiceAccessControl.attributeKey)
        guard let protection = ProtectionClass(rawValue: wire.protection) else { return dictionary }
        do {
            dictionary[ServiceAccessControl.attributeKey] = accessControlObject(try AccessControlPolicy(protection: protection, flags: wire.flags))
        } catch {
            return dictionary
        }
        return dictionary
    }
}
