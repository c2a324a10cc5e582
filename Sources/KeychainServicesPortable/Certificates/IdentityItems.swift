// Identities in the keychain, as Apple's client library makes them: there is no identity table.
// Adding a SecIdentity adds its certificate and its private key (a duplicate of either half is
// fine); a `kSecClassIdentity` query finds certificates and pairs each with the stored private
// key whose application label (`klbl`) equals the certificate's public key hash (`pkhh`).

import Foundation
import KeychainEngine

enum IdentityItems {
    /// Adds both halves of `identity` with the other attributes of `dictionary`.
    static func add(_ identity: SecIdentity, _ dictionary: [String: Any], engine: SecItemEngine) -> OSStatus {
        var common = dictionary
        for key in [kSecValueRef, kSecClass, kSecReturnRef, kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef] {
            common[key as String] = nil
        }
        for half in [identity.certificate as AnyObject, identity.privateKey as AnyObject] {
            var item = common
            item[kSecValueRef as String] = half
            let expansion = ItemReferenceBridge.expandValueRef(&item)
            guard expansion == errSecSuccess else { return expansion }
            let status = engine.add(item).status
            guard status == errSecSuccess || status == errSecDuplicateItem else { return status }
        }
        return errSecSuccess
    }

    /// Answers a `kSecClassIdentity` query: certificate attributes filter the certificates; the
    /// result is a SecIdentity (`kSecReturnRef`), or a dictionary of the certificate's attributes
    /// with `v_Ref` (`kSecReturnAttributes`), one or all as `kSecMatchLimit` says.
    static func copyMatching(_ dictionary: [String: Any], engine: SecItemEngine) -> (OSStatus, Any?) {
        let wantsRef = isTrue(dictionary[kSecReturnRef as String])
        let wantsAttributes = isTrue(dictionary[kSecReturnAttributes as String])
        if isTrue(dictionary[kSecReturnData as String]) || isTrue(dictionary[kSecReturnPersistentRef as String]) {
            return (errSecUnimplemented, nil)  // identity data and persistent references are not offered
        }
        let limitAll = (dictionary[kSecMatchLimit as String] as? String) == kSecMatchLimitAll as String
        var certificateQuery = dictionary
        for key in [kSecReturnRef, kSecReturnAttributes, kSecMatchLimit] { certificateQuery[key as String] = nil }
        certificateQuery[kSecClass as String] = kSecClassCertificate as String
        certificateQuery[kSecReturnData as String] = true
        certificateQuery[kSecReturnAttributes as String] = true
        certificateQuery[kSecMatchLimit as String] = kSecMatchLimitAll as String
        let certificates = engine.copyMatching(certificateQuery)
        guard certificates.status == errSecSuccess else { return (certificates.status, nil) }

        var results: [Any] = []
        for case let attributes as [String: Any] in certificates.value as? [Any] ?? [] {
            guard let der = attributes[kSecValueData as String] as? Data,
                  let certificate = SecCertificateCreateWithData(nil, der as NSData),
                  let hash = attributes[kSecAttrPublicKeyHash as String] as? Data else { continue }
            let (status, privateKey) = privateKey(withLabel: hash, engine: engine)
            if status != errSecSuccess && status != errSecItemNotFound { return (status, nil) }
            guard let privateKey, let identity = SecIdentity(certificate: certificate, privateKey: privateKey) else { continue }
            if wantsAttributes {
                var entry = attributes
                entry[kSecValueData as String] = nil
                entry[kSecClass as String] = kSecClassIdentity as String
                if wantsRef { entry[kSecValueRef as String] = identity }
                results.append(entry)
            } else {
                results.append(identity)
            }
            if !limitAll { break }
        }
        guard !results.isEmpty else { return (errSecItemNotFound, nil) }
        guard wantsRef || wantsAttributes else { return (errSecSuccess, nil) }
        return (errSecSuccess, limitAll ? results : results[0])
    }

    /// The stored private key whose application label is `label`.
    private static func privateKey(withLabel label: Data, engine: SecItemEngine) -> (OSStatus, SecKey?) {
        let found = engine.copyMatching([
            kSecClass as String: kSecClassKey as String, kSecAttrKeyClass as String: 1, kSecAttrApplicationLabel as String: label,
            kSecReturnData as String: true, kSecReturnAttributes as String: true,
        ])
        guard found.status == errSecSuccess, let item = found.value as? [String: Any] else { return (found.status, nil) }
        guard let key = ItemReferenceBridge.key(from: item) else { return (errSecDecode, nil) }
        return (errSecSuccess, key)
    }

    private static func isTrue(_ value: Any?) -> Bool {
        guard let value else { return false }
        if let flag = value as? Bool { return flag }
        return (value as? NSNumber)?.boolValue ?? false
    }
}
