// Token-bound (`kSecAttrTokenIDSecureEnclave`) keys through the keychain service: the service
// generates and keeps the private key, as Apple's Secure Enclave does; this process holds its
// public key and a handle, and asks the service for each private-key primitive.

import Crypto
import Foundation
import KeychainClient
import KeychainServiceWire
import KeychainVocabulary

/// Where the private half of a service-held key is: the keychain service's socket and the key
/// item's persistent reference. Not a secret: the service checks the caller at every use.
struct ServiceKeyHandle: Sendable {
    /// The key item's persistent reference.
    let handle: Data
    /// The keychain service's socket.
    let socketPath: String

    /// The raw ECDSA signature `r ‖ s` of `digest`, made by the service.
    func signature(ofDigest digest: [UInt8]) throws(SecKeyFailure) -> Data {
        try ServiceHeldKeys.value(ServiceTokenKeyCall.use(handle: handle, primitive: TokenKeyRequest.signDigest, input: Data(digest),
                                                          socketPath: socketPath), doing: "signing with the key")
    }

    /// The raw ECDH shared secret with `peer`, made by the service.
    func sharedSecret(with peer: ECPublicKey) throws(SecKeyFailure) -> Data {
        try ServiceHeldKeys.value(ServiceTokenKeyCall.use(handle: handle, primitive: TokenKeyRequest.keyExchange,
                                                          input: peer.x963Representation, socketPath: socketPath),
                                  doing: "key exchange with the key")
    }
}

/// Making and rebuilding `SecKey`s whose private half the keychain service holds.
enum ServiceHeldKeys {
    /// A new permanent P-256 key generated and stored by the service with the request's
    /// attributes. A key that is not permanent is refused: the service keeps only keys it stores
    /// (Apple's Secure Enclave keys are found again only when they are permanent, too).
    static func create(_ request: KeyParameters, socketPath: String) throws(SecKeyFailure) -> SecKey {
        guard request.isPermanent else {
            throw SecKeyFailure(status: errSecUnimplemented, message: "through the keychain service a kSecAttrTokenIDSecureEnclave key "
                                + "is held by the service, which keeps only stored keys: set kSecAttrIsPermanent")
        }
        var attributes = request.storageAttributes
        if let tag = request.applicationTag { attributes[kSecAttrApplicationTag as String] = tag }
        if let label = request.label { attributes[kSecAttrLabel as String] = label }
        let created = try value(ServiceTokenKeyCall.create(attributes, socketPath: socketPath), doing: "storing the new key")
        let publicKey: ECPublicKey
        do {
            publicKey = try ECPublicKey(x963Representation: created.publicKey)
        } catch {
            throw SecKeyFailure(status: errSecDecode, message: "the keychain service sent a public key that does not parse")
        }
        return SecKey(.ecPublic(publicKey), applicationTag: request.applicationTag, label: request.label,
                      serviceHandle: ServiceKeyHandle(handle: created.handle, socketPath: socketPath))
    }

    /// Whether `item` (a key item as the service returns it) is a token-bound key whose private
    /// bytes the service keeps: its data reads as empty.
    static func isServiceHeld(_ item: [String: Any]) -> Bool {
        (item[kSecAttrTokenID as String] as? String) == kSecAttrTokenIDSecureEnclave as String
            && (item[kSecValueData as String] as? Data)?.isEmpty ?? true
    }

    /// The `SecKey` of a service-held key item, its public key asked of the service by the item's
    /// persistent reference; nil when it cannot be had (no reference, no service, no such key).
    static func reference(to item: [String: Any], applicationTag: Data?, label: String?) -> SecKey? {
        guard let handle = item[kSecValuePersistentRef as String] as? Data, let socketPath = ItemCallRoute.socketPath,
              case .success(let publicKeyData) = ServiceTokenKeyCall.publicKey(handle: handle, socketPath: socketPath) else { return nil }
        do {
            return SecKey(.ecPublic(try ECPublicKey(x963Representation: publicKeyData)), applicationTag: applicationTag, label: label,
                          serviceHandle: ServiceKeyHandle(handle: handle, socketPath: socketPath))
        } catch {
            // A public key that does not parse is no key: the caller reports the item as undecodable.
            return nil
        }
    }

    /// The success of `result`, or a `SecKeyFailure` with the service's status and reason.
    static func value<T>(_ result: Result<T, KeychainStoreError>, doing what: String) throws(SecKeyFailure) -> T {
        switch result {
        case .success(let value):
            return value
        case .failure(let failure):
            var reason = failure.description
            if case .notAvailable(let text) = failure.reason { reason = text }
            throw SecKeyFailure(status: failure.osStatus, message: "\(what) failed: \(reason)")
        }
    }
}

extension KeyHash {
    /// The ANSI X9.63 KDF over a raw shared secret — what `SharedSecret.x963DerivedSymmetricKey`
    /// computes, for a secret the keychain service made: `H(Z ‖ counter ‖ sharedInfo)` for
    /// counters 1, 2, … (32-bit big-endian), concatenated and cut to `outputByteCount`.
    func x963Derive(rawSecret: Data, sharedInfo: Data, outputByteCount: Int) -> Data {
        var output = Data()
        var counter: UInt32 = 1
        while output.count < outputByteCount {
            var block = rawSecret
            withUnsafeBytes(of: counter.bigEndian) { block.append(contentsOf: $0) }
            block.append(sharedInfo)
            output.append(contentsOf: hash(block))
            counter += 1
        }
        return output.prefix(outputByteCount)
    }
}
