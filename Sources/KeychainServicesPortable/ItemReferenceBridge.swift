// Key and certificate items at the Apple edge. The engine stores a key as a `keys` item whose
// secret data is the key's external representation (so private key bytes exist only inside the
// item's encrypted payload), and a certificate as a `cert` item whose data is its DER; their
// attributes say what they are. Here a `kSecValueRef` SecKey or SecCertificate is expanded into
// those attributes and data before an add, and `kSecReturnRef` results are turned back into
// objects, as Apple's client library does around securityd.

import Foundation
import KeychainEngine
import KeychainKeyItems

enum ItemReferenceBridge {
    /// What the caller asked to get back, remembered while the engine is asked for more.
    struct ReturnRequest {
        /// `keys` or `cert`.
        let itemClass: String
        let ref: Bool
        let data: Bool
        let attributes: Bool
        let persistentRef: Bool
        /// For a key reference without its data: the engine and the caller's
        /// `kSecUseAuthenticationContext`, with which a `.privateKeyUsage` key checks its access
        /// control at each operation (set by the caller).
        var keyUse: (engine: SecItemEngine, context: AuthenticationContextConvertible?)?

        /// Whether `.privateKeyUsage` constraints are left to the operations on the returned keys.
        var defersPrivateKeyUsage: Bool { keyUse != nil && itemClass == kSecClassKey as String && ref && !data }
    }

    /// Replaces a `kSecValueRef` SecKey by the key's attributes (its usage flags included, as
    /// `SecKeyCopyAttributes` reports them) and data; the caller's own attributes win. Returns `errSecParam` for a `kSecValueRef` that is no SecKey or an
    /// explicit class other than `kSecClassKey`.
    static func expandValueRef(_ dictionary: inout [String: Any]) -> OSStatus {
        guard let reference = dictionary.removeValue(forKey: kSecValueRef as String) else { return errSecSuccess }
        if let certificate = reference as? SecCertificate { return expand(certificate, into: &dictionary) }
        guard let key = reference as? SecKey else { return errSecParam }
        if let itemClass = dictionary[kSecClass as String] {
            guard (itemClass as? String) == kSecClassKey as String else { return errSecParam }
        }
        // The attributes keychainctl stores an imported key with too (KeychainKeyItems).
        var expanded = AsymmetricKey.itemAttributes(isPrivate: key.isPrivate, isEllipticCurve: key.isEllipticCurve,
                                                    sizeInBits: key.sizeInBits, applicationLabel: key.applicationLabel,
                                                    externalRepresentation: key.externalRepresentation)
        if let tag = key.applicationTag { expanded[kSecAttrApplicationTag as String] = tag }
        if let label = key.label { expanded[kSecAttrLabel as String] = label }
        if key.isTokenBound { expanded[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave as String }
        dictionary.merge(expanded) { callers, _ in callers }
        return errSecSuccess
    }

    /// The attributes Apple gives a certificate item: type X.509 v3 (3), encoding DER (3),
    /// subject and issuer DER, serial number, the SHA-1 of the public key (`pkhh`, equal to the
    /// matching private key's `klbl`), the subject summary as label, and the DER as data.
    private static func expand(_ certificate: SecCertificate, into dictionary: inout [String: Any]) -> OSStatus {
        if let itemClass = dictionary[kSecClass as String] {
            guard (itemClass as? String) == kSecClassCertificate as String else { return errSecParam }
        }
        // The attributes keychainctl stores an imported certificate with too (KeychainKeyItems).
        dictionary.merge(certificate.item.itemAttributes) { callers, _ in callers }
        return errSecSuccess
    }

    /// For a key or certificate request returning a reference or data: asks the engine for data and
    /// attributes instead (what a SecKey is rebuilt from, and what tells a token-bound key) and
    /// returns what the caller asked for; nil for every other request, which passes through.
    /// The class is `kSecClass`, or for a query by persistent reference alone the class the
    /// reference names (Apple's securityd reads it from the reference the same way).
    static func prepareReturnRef(_ dictionary: inout [String: Any]) -> ReturnRequest? {
        guard let itemClass = dictionary[kSecClass as String] as? String ?? classNamed(by: dictionary[kSecValuePersistentRef as String]),
              itemClass == kSecClassKey as String || itemClass == kSecClassCertificate as String else { return nil }
        let request = ReturnRequest(itemClass: itemClass, ref: isTrue(dictionary[kSecReturnRef as String]),
                                    data: isTrue(dictionary[kSecReturnData as String]),
                                    attributes: isTrue(dictionary[kSecReturnAttributes as String]),
                                    persistentRef: isTrue(dictionary[kSecReturnPersistentRef as String]))
        guard request.ref || request.data else { return nil }
        dictionary[kSecReturnRef as String] = nil
        dictionary[kSecReturnData as String] = true
        dictionary[kSecReturnAttributes as String] = true
        // A key reference may need its item's persistent reference for per-operation checks.
        if request.ref && itemClass == kSecClassKey as String { dictionary[kSecReturnPersistentRef as String] = true }
        return request
    }

    /// Rebuilds the engine's result (one dictionary or an array of them) into Apple's shape: the
    /// single thing asked for alone (a SecKey, or the key's data), else a dictionary. The data of
    /// a `kSecAttrTokenIDSecureEnclave` private key is never returned: it reads as empty, as the
    /// opaque token reference Apple returns would be useless outside the token.
    static func rebuild(_ value: Any?, for request: ReturnRequest) -> (Any?, OSStatus) {
        if let items = value as? [Any] {
            var rebuilt: [Any] = []
            for item in items {
                let (one, status) = rebuild(item, for: request)
                guard status == errSecSuccess, let one else { return (nil, status) }
                rebuilt.append(one)
            }
            return (rebuilt, errSecSuccess)
        }
        guard let item = value as? [String: Any] else { return (nil, errSecInternalComponent) }
        let object: AnyObject
        var data = item[kSecValueData as String]
        if request.itemClass == kSecClassCertificate as String {
            guard let der = data as? Data, let certificate = SecCertificateCreateWithData(nil, der as NSData) else {
                return (nil, errSecDecode)
            }
            object = certificate
        } else if !request.ref, ServiceHeldKeys.isServiceHeld(item) {
            // A key the keychain service holds: its data reads as empty, and no reference is asked.
            data = Data()
            object = NSNull()
        } else {
            guard let key = key(from: item, keyUse: request.defersPrivateKeyUsage ? request.keyUse : nil) else {
                return (nil, errSecDecode)
            }
            if key.isTokenBound { data = Data() }
            object = key
        }
        switch (request.ref, request.data, request.attributes, request.persistentRef) {
        case (true, false, false, false): return (object, errSecSuccess)
        case (false, true, false, false): return (data, errSecSuccess)
        default: break
        }
        var result: [String: Any] = request.attributes || request.ref ? item : [:]
        result[kSecValueData as String] = request.data ? data : nil
        result[kSecValuePersistentRef as String] = request.persistentRef ? item[kSecValuePersistentRef as String] : nil
        if request.ref {
            result[kSecValueRef as String] = object
            result[kSecClass as String] = request.itemClass
        }
        return (result, errSecSuccess)
    }

    /// The SecKey a stored key item holds; nil when its data or attributes are not a key. With
    /// `keyUse`, a private key whose access control has `.privateKeyUsage` checks it at each
    /// operation (the engine returned it without authentication).
    static func key(from item: [String: Any],
                    keyUse: (engine: SecItemEngine, context: AuthenticationContextConvertible?)? = nil) -> SecKey? {
        if ServiceHeldKeys.isServiceHeld(item) {
            let tag = item[kSecAttrApplicationTag as String] as? Data ?? (item[kSecAttrApplicationTag as String] as? String).map { Data($0.utf8) }
            return ServiceHeldKeys.reference(to: item, applicationTag: tag, label: item[kSecAttrLabel as String] as? String)
        }
        guard let data = item[kSecValueData as String] as? Data,
              let keyClass = integer(item[kSecAttrKeyClass as String]),
              let keyType = integer(item[kSecAttrKeyType as String]),
              keyType == 73 || keyType == 42, keyClass == 0 || keyClass == 1
        else { return nil }
        let tag = item[kSecAttrApplicationTag as String] as? Data
            ?? (item[kSecAttrApplicationTag as String] as? String).map { Data($0.utf8) }
        let label = item[kSecAttrLabel as String] as? String
        let isTokenBound = (item[kSecAttrTokenID as String] as? String) == kSecAttrTokenIDSecureEnclave as String
        var usageGuard: PrivateKeyUseGuard?
        if let keyUse, let accessControl = item[kSecAttrAccessControl as String] as? SecAccessControl,
           accessControl.accessControlPolicy.defersToPrivateKeyUse {
            // Without its persistent reference the key could not be checked: not a key then.
            guard let reference = item[kSecValuePersistentRef as String] as? Data else { return nil }
            usageGuard = PrivateKeyUseGuard(engine: keyUse.engine, persistentReference: reference, context: keyUse.context)
        }
        do {
            return try SecKey(representation: data, isPrivate: keyClass == 1, isEllipticCurve: keyType == 73,
                              applicationTag: tag, label: label, isTokenBound: isTokenBound, usageGuard: usageGuard)
        } catch {
            // A stored key whose bytes do not parse is reported as undecodable by the caller.
            return nil
        }
    }

    /// The item class a persistent reference names (its first four bytes, `keys` or `cert`), or
    /// nil when the value is not a reference of the 20-byte form this keychain returns; the
    /// engine then reports what is wrong with it.
    private static func classNamed(by reference: Any?) -> String? {
        guard let bytes = reference as? Data, bytes.count == 20 else { return nil }
        return String(bytes: bytes.prefix(4), encoding: .ascii)
    }

    private static func isTrue(_ value: Any?) -> Bool {
        guard let value else { return false }
        if let flag = value as? Bool { return flag }
        return (value as? NSNumber)?.boolValue ?? false
    }

    private static func integer(_ value: Any?) -> Int? {
        if let number = value as? NSNumber { return number.intValue }
        if let number = value as? Int { return number }
        if let text = value as? String { return Int(text) }
        return nil
    }
}
