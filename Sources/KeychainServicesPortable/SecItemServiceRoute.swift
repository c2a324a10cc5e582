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
/// Identities are not served yet (`errSecUnimplemented`).
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
        if IdentityItems.isIdentityRequest(query.dictionary) {
            return refuse(KeychainStoreError(.notAvailable("identities are not served by the keychain service yet (add or find the "
                                                           + "certificate and the key apart); unset \(KeychainVariable.serviceSocket) "
                                                           + "to keep them in the embedded keychain"), status: .unimplemented))
        }
        // Keys and certificates travel as the embedded edge hands them to its engine: a SecKey or
        // SecCertificate becomes its attributes and data here, and a returned reference is rebuilt
        // here from the item's data; the service never sees an object.
        var keyReturn: ItemReferenceBridge.ReturnRequest?
        if query.namesAppleObjects {
            let expansion = operation == .add ? ItemReferenceBridge.expandValueRef(&query.dictionary) : ValueRefQuery.expand(&query.dictionary)
            guard expansion == errSecSuccess else { return expansion }
            if operation == .add || operation == .copyMatching { keyReturn = ItemReferenceBridge.prepareReturnRef(&query.dictionary) }
        }
        let changes = changesQuery??.dictionary ?? [:]
        guard let queryEntries = WireEntry.entries(query.dictionary), let changeEntries = WireEntry.entries(changes) else {
            let key = WireEntry.firstUnsendableKey(query.dictionary) ?? WireEntry.firstUnsendableKey(changes) ?? "?"
            return refuse(KeychainStoreError(.notAvailable("the value of \(key) is an object the keychain service does not take yet "
                                                           + "(access control, authentication contexts)"), status: .unimplemented))
        }
        let configuration = KeychainLifecycle.apple.registry.configuration
        // A read outside the program's groups needs the user's consent: say whether this process can ask.
        let prompter = operation == .copyMatching ? ServiceConsent.prompter : nil
        let sentEntries = queryEntries + (prompter == nil ? [] : [WireEntry(key: UserGrantRequest.canPromptKey, value: .bool(true))])
        let request = ServiceRequest(operation: operation, claimedApplicationIdentifier: configuration.applicationIdentifier,
                                     claimedAccessGroups: configuration.listedAccessGroups, query: sentEntries, changes: changeEntries)
        var reply: ServiceReply
        do {
            reply = try ServiceClient.send(request, to: socketPath) { first in
                guard let prompter, first.status == UserGrantRequest.interactionRequiredStatus, let challenge = ConsentChallenge(first.result),
                      var answer = prompter(challenge) else { return nil }
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
            return refuse(.notAvailable("the keychain service at \(socketPath) did not answer (\(error)); start it "
                                        + "(keychainctl service run) or unset \(KeychainVariable.serviceSocket)"))
        }
        var outcome = SecItemResult(status: reply.status, value: reply.result.map { accessControlObjects(in: $0.swiftValue) })
        if reply.status != KeychainStatus.success.rawValue {
            outcome.failure = KeychainStoreError(.notAvailable(reply.failureReason ?? "the keychain service refused the call"),
                                                 status: KeychainStatus(rawValue: reply.status))
        }
        outcome.unreadableItems = Int(reply.unreadableItems)
        return SecItemCall.deliver(outcome, keyReturn: keyReturn, into: result)
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
