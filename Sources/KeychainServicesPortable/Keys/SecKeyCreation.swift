// Making SecKey objects: new random keys, keys read from Apple's external representations,
// the public half of a key, and the way back to bytes and attributes.

import Crypto
import CryptoExtras
import Foundation
import KeychainClient
import KeychainKeyItems
import KeychainVocabulary

/// Apple: `SecKeyCreateRandomKey(_:_:)`. Generates a new private key: EC on P-256, P-384 or
/// P-521 (`kSecAttrKeyTypeECSECPrimeRandom` with `kSecAttrKeySizeInBits` 256/384/521) or RSA
/// (`kSecAttrKeyTypeRSA`, 2048 to 4096 bits in steps of 8).
///
/// With `kSecAttrIsPermanent` true (top level or in `kSecPrivateKeyAttrs`) the private key is
/// also added to the keychain as a `kSecClassKey` item, with the tag, label, accessibility,
/// access control and access group given there; its bytes are stored only inside the item's
/// encrypted data.
///
/// Returns nil and sets `error` (OSStatus domain) on failure: `errSecParam` for a missing or
/// unsupported type or size, the `SecItemAdd` status when storing fails (`errSecDuplicateItem`
/// for a key with the same primary key).
///
/// `kSecAttrTokenIDSecureEnclave` gives a P-256 key whose private half cannot be exported
/// (`SecKeyCopyExternalRepresentation` fails), only used. Linux has no Secure Enclave: in the
/// embedded mode the key is software-bound — kept inside the keychain's encryption, refused for
/// export by this library. Through the keychain service the service generates and keeps it
/// (it must be permanent there): its private bytes never enter this process, which asks the
/// service for each signature, decryption or key exchange.
@discardableResult
public func SecKeyCreateRandomKey(
    _ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    reportingSecKeyFailure(error) { () throws(SecKeyFailure) -> SecKey in
        let request = try KeyParameters(parameters)
        // Through the keychain service, the service generates and keeps a token-bound key.
        if request.isSecureEnclave, let socketPath = ItemCallRoute.socketPath { return try ServiceHeldKeys.create(request, socketPath: socketPath) }
        guard let bits = request.sizeInBits ?? (request.isSecureEnclave ? 256 : nil) else {
            throw .parameter("kSecAttrKeySizeInBits is missing")
        }
        let material: SecKey.Material
        if request.isEllipticCurve {
            guard let curve = EllipticCurve(bits: bits) else { throw .parameter("Unsupported EC key size: \(bits)") }
            material = .ecPrivate(.generate(on: curve))
        } else {
            guard (2048...4096).contains(bits), bits % 8 == 0 else { throw .parameter("Unsupported RSA key size: \(bits)") }
            do {
                material = .rsaPrivate(try _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits)))
            } catch {
                throw SecKeyFailure(status: errSecInternalComponent, message: "RSA key generation failed")
            }
        }
        let key = SecKey(material, applicationTag: request.applicationTag, label: request.label, isTokenBound: request.isSecureEnclave)
        guard request.isPermanent else { return key }
        try store(key, with: request.storageAttributes)
        if let accessControl = request.storageAttributes[kSecAttrAccessControl as String] as? SecAccessControl,
           accessControl.accessControlPolicy.defersToPrivateKeyUse {
            return try storedReference(to: key, with: request.storageAttributes)
        }
        return key
    }
}

/// The stored key as `SecItemCopyMatching` returns it: for a `.privateKeyUsage` key, one that
/// checks the item's access control at each private-key operation, as Apple's.
private func storedReference(to key: SecKey, with storageAttributes: [String: Any]) throws(SecKeyFailure) -> SecKey {
    var query: [String: Any] = [kSecValueRef as String: key, kSecReturnRef as String: true]
    for name in [kSecUseKeychain, kSecUseAuthenticationContext, kSecAttrAccessGroup, kSecAttrSynchronizable] {
        query[name as String] = storageAttributes[name as String]
    }
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    guard status == errSecSuccess, let stored = result as? SecKey else {
        throw SecKeyFailure(status: status == errSecSuccess ? errSecInternalComponent : status,
                            message: "reading the new key back failed")
    }
    return stored
}

/// Adds a newly generated private key to the keychain, as `SecKeyCreateRandomKey` does for
/// permanent keys.
private func store(_ key: SecKey, with storageAttributes: [String: Any]) throws(SecKeyFailure) {
    var item = storageAttributes
    item[kSecClass as String] = kSecClassKey as String
    item[kSecValueRef as String] = key
    let status = SecItemAdd(item as CFDictionary, nil)
    guard status == errSecSuccess else {
        let text = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "OSStatus \(status)"
        // The keychain's reason (what was missing, what to do) when it knew more than the status.
        let reason = FailureReport.lastFailure(status: status)?.explanation.map { " \($0)" } ?? ""
        throw SecKeyFailure(status: status, message: "storing the new key failed: \(text)\(reason)")
    }
}

/// Apple: `SecKeyCreateWithData(_:_:_:)`. Reads a key from Apple's external representation:
/// X9.63 (`04 ‖ X ‖ Y` public, `04 ‖ X ‖ Y ‖ K` private) for EC keys, PKCS#1 DER
/// (`RSAPublicKey` / `RSAPrivateKey`) for RSA keys. `attributes` must give `kSecAttrKeyType`
/// and `kSecAttrKeyClass`.
///
/// Returns nil and sets `error` to `errSecParam` (OSStatus domain) when the attributes are
/// incomplete or the data is not a key of that type and class.
@discardableResult
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    reportingSecKeyFailure(error) { () throws(SecKeyFailure) -> SecKey in
        let request = try KeyParameters(attributes)
        guard let isPrivate = request.isPrivateClass else { throw .parameter("kSecAttrKeyClass is missing") }
        let data = Data(copyingBytesOf: keyData)
        let algorithm = request.isEllipticCurve ? "EC" : "RSA"
        let key: SecKey
        do {
            key = try SecKey(representation: data, isPrivate: isPrivate, isEllipticCurve: request.isEllipticCurve,
                             applicationTag: request.applicationTag, label: request.label)
        } catch {
            throw .parameter("\(algorithm) \(isPrivate ? "private" : "public") key creation from data failed")
        }
        if let bits = request.sizeInBits, bits != key.sizeInBits {
            throw .parameter("\(algorithm) key data is \(key.sizeInBits) bits, not the \(bits) kSecAttrKeySizeInBits says")
        }
        return key
    }
}

extension SecKey {
    /// Reads Apple's external representation of a key of the given type and class.
    convenience init(representation data: Data, isPrivate: Bool, isEllipticCurve: Bool,
                     applicationTag: Data?, label: String?, isTokenBound: Bool = false,
                     usageGuard: PrivateKeyUseGuard? = nil) throws {
        let material: Material = switch (isEllipticCurve, isPrivate) {
        case (true, true): .ecPrivate(try ECPrivateKey(x963Representation: data))
        case (true, false): .ecPublic(try ECPublicKey(x963Representation: data))
        case (false, true): .rsaPrivate(try _RSA.Signing.PrivateKey(derRepresentation: data))
        case (false, false): .rsaPublic(try _RSA.Signing.PublicKey(derRepresentation: data))
        }
        self.init(material, applicationTag: applicationTag, label: label, isTokenBound: isTokenBound && isPrivate,
                  usageGuard: isPrivate ? usageGuard : nil)
    }
}

/// Apple: `SecKeyCopyPublicKey(_:)`. The public half of `key` (a public key returns itself).
@discardableResult
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    key.isPrivate ? SecKey(key.publicMaterial, applicationTag: key.applicationTag, label: key.label) : key
}

/// Apple: `SecKeyCopyExternalRepresentation(_:_:)`. The key's bytes in Apple's external
/// representation (see `SecKeyCreateWithData`). The result of a private key is secret: keep it
/// out of logs and files. The private half of a `kSecAttrTokenIDSecureEnclave` key is not
/// exportable: nil, with `errSecUnimplemented` in `error`.
@discardableResult
public func SecKeyCopyExternalRepresentation(
    _ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reportingSecKeyFailure(error) { () throws(SecKeyFailure) -> CFData in
        if key.isTokenBound && key.isPrivate {
            throw SecKeyFailure(status: errSecUnimplemented, message: "the private key of a kSecAttrTokenIDSecureEnclave key is not exportable")
        }
        return key.externalRepresentation as NSData
    }
}

/// Apple: `SecKeyGetBlockSize(_:)`. Bytes of a coordinate for EC keys (32, 48, 66), of the
/// modulus for RSA keys.
@discardableResult
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { key.blockSize }

/// The `kSecAttrCan…` usage flags of `key` by attribute name: what `SecKeyCopyAttributes`
/// reports, and what a key added by reference (`kSecValueRef`) is stored with, as Apple's
/// SecItemAdd takes them from the key's attribute dictionary. As Apple's SecKey gives every key
/// it holds (its attribute dictionary, and the documented `SecKeyGeneratePair` defaults):
/// `kSecAttrCanDerive` true for public and private, EC and RSA keys alike; the others by class.
func usageAttributes(of key: SecKey) -> [String: Bool] {
    AsymmetricKey.usageAttributes(isPrivate: key.isPrivate)
}

/// Apple: `SecKeyCopyAttributes(_:)`. The key's attributes: `kSecAttrKeyType`,
/// `kSecAttrKeyClass`, `kSecAttrKeySizeInBits`, `kSecAttrEffectiveKeySize`,
/// `kSecAttrApplicationLabel` (SHA-1 of the public key), the `kSecAttrCan…` usage flags,
/// `kSecAttrIsPermanent`, the tag and label it was created with, and for public keys
/// `kSecValueData` (the external representation). Private key bytes are never included.
@discardableResult
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    let isPrivate = key.isPrivate
    var attributes: [String: Any] = [
        kSecClass as String: kSecClassKey as String,
        kSecAttrKeyType as String: (key.isEllipticCurve ? kSecAttrKeyTypeECSECPrimeRandom : kSecAttrKeyTypeRSA) as String,
        kSecAttrKeyClass as String: (isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic) as String,
        kSecAttrKeySizeInBits as String: NSNumber(value: key.sizeInBits),
        kSecAttrEffectiveKeySize as String: NSNumber(value: key.sizeInBits),
        kSecAttrApplicationLabel as String: key.applicationLabel,
        kSecAttrIsPermanent as String: NSNumber(value: false),
    ]
    for (name, allowed) in usageAttributes(of: key) { attributes[name] = NSNumber(value: allowed) }
    if let tag = key.applicationTag { attributes[kSecAttrApplicationTag as String] = tag }
    if let label = key.label { attributes[kSecAttrLabel as String] = label }
    if !isPrivate { attributes[kSecValueData as String] = key.publicKeyData }
    if key.isTokenBound {
        attributes[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave as String
        attributes[kSecAttrIsExtractable as String] = NSNumber(value: false)
    }
    return attributes as NSDictionary
}
