#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// The calls on a token-bound (`kSecAttrTokenIDSecureEnclave`) key that the keychain service
/// holds (``TokenKeyRequest``): create it, use it, read its public key. They carry the program's
/// claims as every item call does; the service decides with the same entitlements. No private
/// key byte is sent or received: a creation gets the public key and a handle, a use a signature
/// or a shared secret.
package enum ServiceTokenKeyCall {
    /// The outcome of a call; a failure names the service's reason.
    private enum Outcome {
        case success(WireValue?)
        case failure(KeychainStoreError)
    }

    /// Generates the key in the service with `attributes` (label, tag, group, accessibility…;
    /// access control as a `SecAccessControl`); its public key (X9.63) and handle.
    package static func create(_ attributes: [String: Any], socketPath: String) -> Result<(publicKey: Data, handle: Data), KeychainStoreError> {
        var attributes = attributes
        if let refusal = AccessControlRequest.encode(&attributes) { return .failure(refusal) }
        guard let entries = WireEntry.entries(attributes) else {
            return .failure(.invalidParameter("the value of \(WireEntry.firstUnsendableKey(attributes) ?? "?") cannot be sent to the keychain service"))
        }
        switch send(.createTokenKey, entries, socketPath: socketPath) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let value):
            let reply = value?.swiftValue as? [String: Any] ?? [:]
            guard let publicKey = reply[TokenKeyRequest.publicKeyKey] as? Data, let handle = reply[TokenKeyRequest.handleKey] as? Data else {
                return .failure(KeychainStoreError(.notAvailable("the keychain service's reply has no public key and handle"), status: .decode))
            }
            return .success((publicKey, handle))
        }
    }

    /// The primitive (``TokenKeyRequest/signDigest`` or ``TokenKeyRequest/keyExchange``) of the
    /// key `handle` names on `input`: the raw signature `r ‖ s` or the shared secret.
    package static func use(handle: Data, primitive: String, input: Data, socketPath: String) -> Result<Data, KeychainStoreError> {
        data(of: send(.useTokenKey, [WireEntry(key: TokenKeyRequest.handleKey, value: .data(handle)),
                                     WireEntry(key: TokenKeyRequest.primitiveKey, value: .string(primitive)),
                                     WireEntry(key: TokenKeyRequest.inputKey, value: .data(input))], socketPath: socketPath))
    }

    /// The public key (X9.63) of the key `handle` names.
    package static func publicKey(handle: Data, socketPath: String) -> Result<Data, KeychainStoreError> {
        data(of: send(.tokenPublicKey, [WireEntry(key: TokenKeyRequest.handleKey, value: .data(handle))], socketPath: socketPath))
    }

    private static func data(of outcome: Outcome) -> Result<Data, KeychainStoreError> {
        switch outcome {
        case .failure(let failure): return .failure(failure)
        case .success(.data(let data)?): return .success(data)
        case .success: return .failure(KeychainStoreError(.notAvailable("the keychain service's reply holds no data"), status: .decode))
        }
    }

    /// One call with the program's claims; the reply's result, or its status and reason.
    private static func send(_ operation: ServiceRequest.Operation, _ entries: [WireEntry], socketPath: String) -> Outcome {
        let configuration = ProcessKeychains.registry.configuration
        let request = ServiceRequest(operation: operation, claimedApplicationIdentifier: configuration.applicationIdentifier,
                                     claimedAccessGroups: configuration.listedAccessGroups, query: entries)
        let reply: ServiceReply
        do {
            reply = try ServiceClient.send(request, to: socketPath)
        } catch {
            return .failure(.notAvailable("the keychain service at \(socketPath) did not answer (\(error)); start it "
                                          + "(keychainctl service run) or unset \(KeychainVariable.serviceSocket)"))
        }
        guard reply.status == KeychainStatus.success.rawValue else {
            return .failure(KeychainStoreError(.notAvailable(reply.failureReason ?? "the keychain service refused the call"),
                                               status: KeychainStatus(rawValue: reply.status)))
        }
        return .success(reply.result)
    }
}
