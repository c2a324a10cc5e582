#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import KeychainEngine
import KeychainKeyItems
import KeychainServiceWire
import KeychainVocabulary

/// Token-bound (`kSecAttrTokenIDSecureEnclave`) keys held by the service, as Apple's Secure
/// Enclave holds them: the service generates the P-256 key, stores it as the embedded mode stores
/// such a key (a `keys` item with `tkid` `com.apple.setoken`, in the caller's group), and uses it
/// for the caller: an ECDSA signature of a digest or an ECDH shared secret. Its private bytes
/// leave the service never; the caller holds its public key and its handle (the item's
/// persistent reference). Each use is a read of the item in the caller's groups (so the same
/// entitlements decide), through an engine that the caller cannot reach.
enum TokenKeyCalls {
    /// `kSecAttrTokenIDSecureEnclave`.
    static let secureEnclaveToken = "com.apple.setoken"

    /// The attributes the service fixes on a new token key, whatever the request says: what the
    /// key is, its bytes and its token (a caller-chosen `v_Data` is refused by the wire format).
    private static let fixedAttributes: Set<String> = [
        KeyItemAttributeName.itemClass, KeyItemAttributeName.keyClassAttribute, KeyItemAttributeName.keyType,
        KeyItemAttributeName.keySizeInBits, KeyItemAttributeName.effectiveKeySize, KeyItemAttributeName.applicationLabel,
        KeyItemAttributeName.valueData, KeyItemAttributeName.tokenID,
    ]

    /// Generates a P-256 key and adds it with `attributes` (label, tag, group, accessibility…)
    /// through `engine`; the outcome's value is the public key and the handle.
    static func create(_ attributes: [String: Any], engine: SecItemEngine) -> SecItemResult {
        let key = P256.Signing.PrivateKey(compactRepresentable: false)
        let publicKey = key.publicKey.x963Representation
        var privateBytes = key.x963Representation
        defer { privateBytes.resetBytes(in: 0..<privateBytes.count) }
        // The caller asks for nothing back: the service returns the handle and the public key only.
        var item = attributes.filter { !$0.key.hasPrefix("r_") && !fixedAttributes.contains($0.key) }
        let stored = AsymmetricKey.itemAttributes(isPrivate: true, isEllipticCurve: true, sizeInBits: 256,
                                                  applicationLabel: AsymmetricKey.applicationLabel(publicKeyData: publicKey),
                                                  externalRepresentation: privateBytes)
        // The usage flags may be the caller's, as an embedded add of the key takes them.
        item.merge(stored) { callers, _ in callers }
        item[KeyItemAttributeName.tokenID] = secureEnclaveToken
        item["r_PersistentRef"] = true
        let added = engine.add(item)
        guard added.status == KeychainStatus.success.rawValue else { return added }
        guard let handle = added.value as? Data else {
            return SecItemResult(failure: KeychainStoreError(.notAvailable("the new key was stored but its handle was not returned"),
                                                             status: .internalComponent))
        }
        return SecItemResult(status: KeychainStatus.success.rawValue,
                             value: [TokenKeyRequest.publicKeyKey: publicKey, TokenKeyRequest.handleKey: handle])
    }

    /// The query that finds the item `handle` names, in the caller's groups, with its attributes
    /// (and, for a use, its data, which only the service sees). A persistent reference names one
    /// item and takes no attribute beside it: whether it is a token key is checked on the item.
    static func itemQuery(handle: Data, withData: Bool) -> [String: Any] {
        var query: [String: Any] = ["v_PersistentRef": handle, "r_Attributes": true]
        if withData { query["r_Data"] = true }
        return query
    }

    /// Whether `item` (attributes as a search returns them) is the private half of a token key.
    private static func isPrivateTokenKey(_ item: [String: Any]) -> Bool {
        (item[KeyItemAttributeName.tokenID] as? String) == secureEnclaveToken
            && (item[KeyItemAttributeName.keyClassAttribute] as? Int) == KeyItemAttributeName.privateKeyClass
    }

    /// The signature or shared secret of the request's primitive with the key its handle names,
    /// and the key item's attributes (which name it in the access log); "not found" when no
    /// token key of the caller's groups has that handle.
    static func use(_ request: [String: Any], engine: SecItemEngine) -> (outcome: SecItemResult, item: [String: Any]?) {
        guard let handle = request[TokenKeyRequest.handleKey] as? Data, let primitive = request[TokenKeyRequest.primitiveKey] as? String,
              let input = request[TokenKeyRequest.inputKey] as? Data else {
            return (SecItemResult(failure: .invalidParameter("a key use names a handle, a primitive and an input")), nil)
        }
        let key: P256.Signing.PrivateKey, item: [String: Any]
        switch privateKey(handle: handle, engine: engine) {
        case .failure(let failure): return (failure.outcome, nil)
        case .success(let found):
            key = found.key
            item = found.item
        }
        switch primitive {
        case TokenKeyRequest.signDigest:
            do {
                let signature = try key.signature(for: DigestBytes(bytes: Array(input)))
                return (SecItemResult(status: KeychainStatus.success.rawValue, value: signature.rawRepresentation), item)
            } catch {
                return (SecItemResult(failure: KeychainStoreError(.notAvailable("ECDSA signing failed"), status: .internalComponent)), item)
            }
        case TokenKeyRequest.keyExchange:
            do {
                let peer = try P256.KeyAgreement.PublicKey(x963Representation: input)
                let secret = try P256.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation).sharedSecretFromKeyAgreement(with: peer)
                return (SecItemResult(status: KeychainStatus.success.rawValue, value: secret.withUnsafeBytes { Data($0) }), item)
            } catch {
                return (SecItemResult(failure: .invalidParameter("key exchange needs a P-256 public key (X9.63, 65 bytes)")), item)
            }
        default:
            return (SecItemResult(failure: .invalidParameter("unknown key primitive \(primitive)")), item)
        }
    }

    /// The public key (X9.63) of the token key `handle` names, in the caller's groups.
    static func publicKey(handle: Data, engine: SecItemEngine) -> SecItemResult {
        switch privateKey(handle: handle, engine: engine) {
        case .failure(let failure): return failure.outcome
        case .success(let found): return SecItemResult(status: KeychainStatus.success.rawValue, value: found.key.publicKey.x963Representation)
        }
    }

    /// The private key of the token key `handle` names in the engine's groups, with its item's
    /// attributes (never its data).
    private static func privateKey(handle: Data, engine: SecItemEngine) -> Result<(key: P256.Signing.PrivateKey, item: [String: Any]), SecItemResultFailure> {
        let found = engine.copyMatching(itemQuery(handle: handle, withData: true), deferringPrivateKeyUsage: false,
                                        releasingTokenKeyMaterial: true)
        guard found.status == KeychainStatus.success.rawValue else { return .failure(SecItemResultFailure(found)) }
        guard var item = found.value as? [String: Any], var privateBytes = item.removeValue(forKey: KeyItemAttributeName.valueData) as? Data else {
            return .failure(SecItemResultFailure(SecItemResult(failure: KeychainStoreError(.notAvailable("the key item could not be read"),
                                                                                           status: .internalComponent))))
        }
        guard isPrivateTokenKey(item) else {
            privateBytes.resetBytes(in: 0..<privateBytes.count)
            return .failure(SecItemResultFailure(SecItemResult(failure: .invalidParameter(
                "that handle names an item that is not a token-bound private key: the service uses only keys it generated"))))
        }
        defer { privateBytes.resetBytes(in: 0..<privateBytes.count) }
        do {
            return .success((try P256.Signing.PrivateKey(x963Representation: privateBytes), item))
        } catch {
            return .failure(SecItemResultFailure(SecItemResult(failure: KeychainStoreError(
                .notAvailable("the stored token key is not a P-256 private key"), status: .decode))))
        }
    }
}

/// A failed call's outcome, as a `Result`'s failure.
struct SecItemResultFailure: Error {
    let outcome: SecItemResult
    init(_ outcome: SecItemResult) { self.outcome = outcome }
}

/// A digest the caller computed, signed as it is (ECDSA signs the digest's bytes).
private struct DigestBytes: Digest {
    /// Not used by ECDSA; the real length is that of `bytes`.
    static var byteCount: Int { 64 }

    let bytes: [UInt8]

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

    /// Digests are not secrets, but there is no need to print them either.
    var description: String { "DigestBytes(\(bytes.count) bytes)" }
}
