#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The entries of the calls on a token-bound (`kSecAttrTokenIDSecureEnclave`) key that the
/// keychain service holds: ``ServiceRequest/Operation/createTokenKey``,
/// ``ServiceRequest/Operation/useTokenKey`` and ``ServiceRequest/Operation/tokenPublicKey``.
///
/// As Apple's Secure Enclave, the service generates the key, keeps its private half and performs
/// only the two primitives every algorithm of such a key is made of: an ECDSA signature of a
/// digest and an ECDH shared secret. The client hashes, encodes and derives around them, so the
/// service parses no algorithm name and the private bytes never travel.
package enum TokenKeyRequest {
    /// The key's handle: the persistent reference of its item (data, 20 bytes as the keychain makes them).
    package static let handleKey = "handle"
    /// The primitive of a ``ServiceRequest/Operation/useTokenKey`` call: ``signDigest`` or ``keyExchange``.
    package static let primitiveKey = "primitive"
    /// Its input (data): the digest to sign, or the peer's public key (X9.63 `04 ‖ X ‖ Y`).
    package static let inputKey = "input"
    /// In the reply of ``ServiceRequest/Operation/createTokenKey``: the public key (X9.63), as data.
    package static let publicKeyKey = "publicKey"

    /// ECDSA over a digest; the reply is the signature's raw `r ‖ s`.
    package static let signDigest = "sign-digest"
    /// ECDH with the peer public key in ``inputKey``; the reply is the raw shared secret.
    package static let keyExchange = "key-exchange"

    /// The most bytes an input may have: a SHA-512 digest is 64 and a P-256 public key 65, so a
    /// longer input is no key operation (it is refused before anything is read).
    package static let maximumInputBytes = 1024
    /// The most bytes a handle may have (persistent references are 20).
    package static let maximumHandleBytes = 64

    /// A token-key call holds exactly the entries its operation names, each with its type; a
    /// creation holds the new item's attributes, which the service checks as an add's.
    static func check(_ operation: ServiceRequest.Operation, _ query: [WireEntry]) throws(WireFailure) {
        let required: Set<String>
        switch operation {
        case .createTokenKey:
            if query.contains(where: { $0.key == handleKey || $0.key == primitiveKey || $0.key == inputKey || $0.key == "v_Data" }) {
                throw .malformed("\(operation): the service makes the key; the request gives only its attributes")
            }
            return
        case .useTokenKey: required = [handleKey, primitiveKey, inputKey]
        case .tokenPublicKey: required = [handleKey]
        default: return
        }
        for entry in query {
            switch (entry.key, entry.value) {
            case (handleKey, .data(let handle)) where !handle.isEmpty && handle.count <= maximumHandleBytes:
                break
            case (primitiveKey, .string(let primitive)) where primitive == signDigest || primitive == keyExchange:
                break
            case (inputKey, .data(let input)) where !input.isEmpty && input.count <= maximumInputBytes:
                break
            default:
                throw .malformed("\(operation): a token-key call holds only a handle (at most \(maximumHandleBytes) bytes), "
                                 + "\(signDigest) or \(keyExchange), and an input of 1 to \(maximumInputBytes) bytes")
            }
            guard required.contains(entry.key) else { throw .malformed("\(operation): \(entry.key) is not one of its entries") }
        }
        guard Set(query.map(\.key)) == required, query.count == required.count else {
            throw .malformed("\(operation): a token-key call names each of its entries once")
        }
    }
}
