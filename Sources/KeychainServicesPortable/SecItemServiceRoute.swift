import Foundation
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// The seam between Apple's four SecItem functions and the keychain service: when
/// `KEYCHAINKIT_SERVICE_SOCKET` is set, a call is sent to the service there (which picks the
/// keychain and the caller's access groups from the caller's kernel-verified identity) and is
/// never run in this process; when it is unset, nothing here runs (the embedded mode).
///
/// Keys and certificates go as the embedded edge hands them to its engine: a `SecKey` or
/// `SecCertificate` becomes attributes and data here, and returned references are rebuilt here.
/// An identity call is made of calls on its certificate and its private key
/// (``ServiceIdentityItemStore``), as the embedded edge makes it of engine calls. Token-bound
/// (Secure Enclave) keys and access control that asks for user presence are refused with
/// `errSecUnimplemented` and the reason: the service would have to use the key and ask the user
/// itself.
///
/// A service that cannot be reached is `errSecNotAvailable` with the reason: the call never falls
/// back to a keychain file of this process, which the user's other programs could read.
enum SecItemServiceRoute {
    /// The service's socket, or nil for the embedded mode (read once per process, with the
    /// rest of the configuration).
    static var socketPath: String? { KeychainLifecycle.apple.registry.configuration.serviceSocketPath }

    /// `SecItemAdd` through the service, or nil in the embedded mode.
    static func add(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus? {
        guard let socketPath else { return nil }
        return call(.add, attributes, changes: nil, result: result, socketPath: socketPath)
    }

    /// `SecItemCopyMatching` through the service, or nil in the embedded mode.
    static func copyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus? {
        guard let socketPath else { return nil }
        return call(.copyMatching, query, changes: nil, result: result, socketPath: socketPath)
    }

    /// `SecItemUpdate` through the service, or nil in the embedded mode.
    static func update(_ query: CFDictionary, _ changes: CFDictionary) -> OSStatus? {
        guard let socketPath else { return nil }
        return call(.update, query, changes: changes, result: nil, socketPath: socketPath)
    }

    /// `SecItemDelete` through the service, or nil in the embedded mode.
    static func delete(_ query: CFDictionary) -> OSStatus? {
        guard let socketPath else { return nil }
        return call(.delete, query, changes: nil, result: nil, socketPath: socketPath)
    }

    private static func call(_ operation: ServiceRequest.Operation, _ cfQuery: CFDictionary, changes cfChanges: CFDictionary?,
                             result: UnsafeMutablePointer<CFTypeRef?>?, socketPath: String) -> OSStatus {
        FailureReport.beginCall()
        let changesQuery = cfChanges.map(SecItemCall.dictionary)
        guard var query = SecItemCall.dictionary(cfQuery), changesQuery.map({ $0 != nil }) ?? true else {
            return refuse(.invalidParameter("the dictionary's keys must be strings"))
        }
        if let problem = dropDefaultKeychainSelection(&query.dictionary) { return refuse(.invalidParameter(problem)) }
        if IdentityItems.isIdentityRequest(query.dictionary),
           let status = identityCall(operation, query.dictionary, changes: changesQuery??.dictionary ?? [:], result: result, socketPath: socketPath) {
            return status
        }
        if let refusal = unservedKeyRequest(query.dictionary) { return refuse(refusal) }
        // Keys and certificates travel as the embedded edge hands them to its engine: a SecKey or
        // SecCertificate becomes its attributes and data here, and a returned reference is rebuilt
        // here from the item's data; the service never sees an object.
        var keyReturn: ItemReferenceBridge.ReturnRequest?
        if query.namesAppleObjects {
            let expansion = operation == .add ? ItemReferenceBridge.expandValueRef(&query.dictionary) : ValueRefQuery.expand(&query.dictionary)
            guard expansion == errSecSuccess else { return expansion }
            if operation == .add || operation == .copyMatching { keyReturn = ItemReferenceBridge.prepareReturnRef(&query.dictionary) }
        }
        let outcome = send(operation, query.dictionary, changes: changesQuery??.dictionary ?? [:], socketPath: socketPath)
        if keyReturn != nil, outcome.status == errSecSuccess, containsTokenBoundKey(outcome.value) {
            return refuse(tokenBoundRefusal)
        }
        return SecItemCall.deliver(outcome, keyReturn: keyReturn, into: result)
    }

    /// An identity call made of calls on its two halves, answered as the embedded edge answers
    /// it; nil when it is no identity call after all (an add without a `SecIdentity`, which the
    /// service refuses as the embedded engine does).
    private static func identityCall(_ operation: ServiceRequest.Operation, _ dictionary: [String: Any], changes: [String: Any],
                                     result: UnsafeMutablePointer<CFTypeRef?>?, socketPath: String) -> OSStatus? {
        let store = ServiceIdentityItemStore(socketPath: socketPath)
        switch operation {
        case .add:
            guard let identity = dictionary[kSecValueRef as String] as? SecIdentity else { return nil }
            if identity.privateKey.isTokenBound { return refuse(tokenBoundRefusal) }
            let (status, value) = IdentityItems.add(identity, dictionary, engine: store)
            if status == errSecSuccess, let value { result?.pointee = SecItemCall.bridge(value) }
            return status
        case .copyMatching:
            let (status, value) = IdentityItems.copyMatching(dictionary, engine: store)
            if status == errSecSuccess { result?.pointee = SecItemCall.bridge(value) }
            return status
        case .update:
            return IdentityItems.update(dictionary, changes, engine: store)
        case .delete:
            return IdentityItems.delete(dictionary, engine: store)
        default:
            return nil
        }
    }

    /// One SecItem call on plain dictionaries (no Apple objects left) sent to the service, and
    /// its reply as the engine's outcome (access control rebuilt as `SecAccessControl`).
    static func send(_ operation: ServiceRequest.Operation, _ query: [String: Any], changes: [String: Any] = [:],
                     socketPath: String) -> SecItemResult {
        var query = query, changes = changes
        if let refusal = AccessControlRequest.encode(&query) ?? AccessControlRequest.encode(&changes) { return SecItemResult(failure: refusal) }
        guard let queryEntries = WireEntry.entries(query), let changeEntries = WireEntry.entries(changes) else {
            let key = WireEntry.firstUnsendableKey(query) ?? WireEntry.firstUnsendableKey(changes) ?? "?"
            return SecItemResult(failure: KeychainStoreError(.notAvailable("the value of \(key) is an object the keychain service does not "
                                                                           + "take yet (authentication contexts)"), status: .unimplemented))
        }
        let configuration = KeychainLifecycle.apple.registry.configuration
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
            reply = try ServiceClient.send(request, to: socketPath) { first in
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
            if reply.status == UserGrantRequest.interactionRequiredStatus {
                // The user was asked and denied it (the challenge was not answered).
                reply = ServiceReply(status: KeychainStatus.userCanceled.rawValue, failureReason: "you denied the program access to that item")
            }
        } catch {
            return SecItemResult(failure: .notAvailable("the keychain service at \(socketPath) did not answer (\(error)); start it "
                                                        + "(keychainctl service run) or unset \(KeychainVariable.serviceSocket)"))
        }
        var outcome = SecItemResult(status: reply.status, value: reply.result.map { accessControlObjects(in: $0.swiftValue) })
        if reply.status != KeychainStatus.success.rawValue {
            outcome.failure = KeychainStoreError(.notAvailable(reply.failureReason ?? "the keychain service refused the call"),
                                                 status: KeychainStatus(rawValue: reply.status))
        }
        outcome.unreadableItems = Int(reply.unreadableItems)
        return outcome
    }

    private static let tokenBoundRefusal = KeychainStoreError(
        .notAvailable("token-bound (kSecAttrTokenIDSecureEnclave) keys are not served by the keychain service yet: it would have to "
                      + "perform their operations itself; unset \(KeychainVariable.serviceSocket) to keep them in the embedded keychain"),
        status: .unimplemented)

    /// The refusal of a call the service cannot serve: storing or generating a token-bound key.
    private static func unservedKeyRequest(_ dictionary: [String: Any]) -> KeychainStoreError? {
        if (dictionary[kSecAttrTokenID as String] as? String) == kSecAttrTokenIDSecureEnclave as String { return tokenBoundRefusal }
        if let key = dictionary[kSecValueRef as String] as? SecKey, key.isTokenBound { return tokenBoundRefusal }
        return nil
    }

    /// Whether a result holds a token-bound key, whose bytes the service does not send.
    private static func containsTokenBoundKey(_ value: Any?) -> Bool {
        if let array = value as? [Any] { return array.contains(where: containsTokenBoundKey) }
        guard let item = value as? [String: Any] else { return false }
        return (item[kSecAttrTokenID as String] as? String) == kSecAttrTokenIDSecureEnclave as String
    }

    /// Removes `kSecUseKeychain`/`kSecMatchSearchList` when they name the default keychain (the
    /// one the service serves this user); the reason for a refusal when they name another.
    private static func dropDefaultKeychainSelection(_ dictionary: inout [String: Any]) -> String? {
        let named = [dictionary.removeValue(forKey: "u_Keychain"), dictionary.removeValue(forKey: "m_SearchList")].compactMap { $0 }
        let defaultPath = KeychainLifecycle.apple.defaultKeychainPath
        for selection in named {
            let keychains = (selection as? [SecKeychain]) ?? (selection as? NSArray)?.compactMap { $0 as? SecKeychain }
                ?? (selection as? SecKeychain).map { [$0] } ?? []
            guard let first = keychains.first else { return "kSecUseKeychain must be a SecKeychain" }
            if first.path != defaultPath {
                return "the keychain service serves your login keychain only; \(first.path) is not it (unset \(KeychainVariable.serviceSocket) to use it)"
            }
        }
        return nil
    }

    /// `result` with each access control the service sent (``ServiceAccessControl``) made the
    /// `SecAccessControl` an embedded call returns under `kSecAttrAccessControl`.
    private static func accessControlObjects(in result: Any) -> Any {
        if let array = result as? [Any] { return array.map(accessControlObjects(in:)) }
        guard var dictionary = result as? [String: Any], let sent = dictionary[ServiceAccessControl.attributeKey],
              let wire = ServiceAccessControl(sent) else { return result }
        // A policy this client cannot rebuild (a newer service's flags) is left out of the
        // result rather than shown wrong; the call itself succeeded and its other values stand.
        dictionary.removeValue(forKey: ServiceAccessControl.attributeKey)
        guard let protection = ProtectionClass(rawValue: wire.protection) else { return dictionary }
        do {
            dictionary[ServiceAccessControl.attributeKey] = SecAccessControl(try AccessControlPolicy(protection: protection, flags: wire.flags))
        } catch {
            return dictionary
        }
        return dictionary
    }

    private static func refuse(_ failure: KeychainStoreError) -> OSStatus {
        FailureReport.fail(failure)
        return failure.osStatus
    }
}
