import Foundation
import KeychainClient
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// Apple's SecItem calls that name Apple objects, through the keychain service: KeychainClient
/// (``ItemCallRoute``) decides that a call goes to the service and sends it; this is what only
/// Apple's API has to do first.
///
/// Keys and certificates go as the embedded edge hands them to its engine: a `SecKey` or
/// `SecCertificate` becomes attributes and data here, and returned references are rebuilt here.
/// An identity call is made of calls on its certificate and its private key
/// (``ServiceIdentityItemStore``), as the embedded edge makes it of engine calls. A token-bound
/// (Secure Enclave) key found through the service comes back as a key the service holds
/// (``ServiceHeldKeys``); storing one made in this process is refused with `errSecUnimplemented`,
/// as is access control that asks for user presence: the service would have to ask the user.
enum SecItemServiceRoute {
    /// One call naming Apple objects (an item reference, or a class other than the password
    /// classes), sent to the service at `socketPath`.
    static func objectCall(_ operation: ItemOperation, _ dictionary: [String: Any], changes: [String: Any],
                           in keychain: KeychainLifecycle.ItemKeychain, result: UnsafeMutablePointer<CFTypeRef?>?,
                           socketPath: String) -> OSStatus {
        if let refusal = ServiceItemCall.keychainRefusal(keychain) { return refuse(refusal) }
        var dictionary = dictionary
        if IdentityItems.isIdentityRequest(dictionary),
           let status = identityCall(operation, dictionary, changes: changes, result: result, socketPath: socketPath) {
            return status
        }
        if operation == .add, let refusal = unservedKeyRequest(dictionary) { return refuse(refusal) }
        // Keys and certificates travel as the embedded edge hands them to its engine: a SecKey or
        // SecCertificate becomes its attributes and data here, and a returned reference is rebuilt
        // here from the item's data; the service never sees an object.
        let expansion = operation == .add ? ItemReferenceBridge.expandValueRef(&dictionary) : ValueRefQuery.expand(&dictionary)
        guard expansion == errSecSuccess else { return expansion }
        var keyReturn: ItemReferenceBridge.ReturnRequest?
        if operation == .add || operation == .copyMatching { keyReturn = ItemReferenceBridge.prepareReturnRef(&dictionary) }
        let outcome = send(operation.serviceOperation, dictionary, changes: changes, socketPath: socketPath)
        return SecItemCall.deliver(outcome, keyReturn: keyReturn, into: result)
    }

    /// An identity call made of calls on its two halves, answered as the embedded edge answers
    /// it; nil when it is no identity call after all (an add without a `SecIdentity`, which the
    /// service refuses as the embedded engine does).
    private static func identityCall(_ operation: ItemOperation, _ dictionary: [String: Any], changes: [String: Any],
                                     result: UnsafeMutablePointer<CFTypeRef?>?, socketPath: String) -> OSStatus? {
        let store = ServiceIdentityItemStore(socketPath: socketPath)
        switch operation {
        case .add:
            guard let identity = dictionary[kSecValueRef as String] as? SecIdentity else { return nil }
            if identity.privateKey.isTokenBound { return refuse(ServiceItemCall.tokenBoundRefusal) }
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
        }
    }

    /// One SecItem call on plain dictionaries (no Apple objects left) sent to the service, and
    /// its reply as the engine's outcome (access control rebuilt as `SecAccessControl`).
    static func send(_ operation: ServiceRequest.Operation, _ query: [String: Any], changes: [String: Any] = [:],
                     socketPath: String) -> SecItemResult {
        ServiceItemCall.send(operation, query, changes: changes, socketPath: socketPath, accessControlObject: ItemEdge.apple.accessControlObject)
    }

    /// The refusal of an add the service cannot serve: storing a token-bound key made elsewhere.
    private static func unservedKeyRequest(_ dictionary: [String: Any]) -> KeychainStoreError? {
        if let refusal = ServiceItemCall.unservedRequest(dictionary) { return refusal }
        if let key = dictionary[kSecValueRef as String] as? SecKey, key.isTokenBound { return ServiceItemCall.tokenBoundRefusal }
        return nil
    }

    private static func refuse(_ failure: KeychainStoreError) -> OSStatus {
        FailureReport.fail(failure)
        return failure.osStatus
    }
}
