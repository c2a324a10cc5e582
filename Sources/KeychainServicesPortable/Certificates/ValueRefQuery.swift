// `kSecValueRef` in queries (SecItemCopyMatching, SecItemUpdate, SecItemDelete). Apple's client
// library replaces the object by the attributes of the item it denotes before the query reaches
// securityd (SecItem.m, SecItemAttributesPrepare / SecItemCopyAttributeDictionary); attributes
// the caller passed win. Here a SecKey stands for the key item with its application label, key
// class and key type; a SecCertificate for the certificate item with its issuer and serial
// number (Apple's primary key of certificates). Identities are split into their halves by
// `IdentityItems`, as Apple's client library does.

import Foundation
import KeychainKeyItems

enum ValueRefQuery {
    /// Replaces a `kSecValueRef` SecKey or SecCertificate in a query by the attributes that
    /// identify its item. `errSecParam` for another object, or for an explicit class that is not
    /// the object's. A SecIdentity is left to the caller (`IdentityItems`).
    static func expand(_ dictionary: inout [String: Any]) -> OSStatus {
        guard let reference = dictionary[kSecValueRef as String] else { return errSecSuccess }
        let expanded: [String: Any]
        switch reference {
        case let key as SecKey:
            expanded = attributes(of: key)
        case let certificate as SecCertificate:
            expanded = attributes(of: certificate)
        default:
            return errSecParam
        }
        if let itemClass = dictionary[kSecClass as String] {
            guard (itemClass as? String) == expanded[kSecClass as String] as? String else { return errSecParam }
        }
        dictionary[kSecValueRef as String] = nil
        dictionary.merge(expanded) { callers, _ in callers }
        return errSecSuccess
    }

    /// The attributes that find the item of `key`: its application label (the SHA-1 of its
    /// public key), class and type.
    static func attributes(of key: SecKey) -> [String: Any] {
        [
            kSecClass as String: kSecClassKey as String,
            kSecAttrKeyClass as String: key.isPrivate ? 1 : 0,
            kSecAttrKeyType as String: key.isEllipticCurve ? 73 : 42,
            kSecAttrApplicationLabel as String: key.applicationLabel,
        ]
    }

    /// The attributes that find the item of `certificate`: issuer and serial number, as stored.
    static func attributes(of certificate: SecCertificate) -> [String: Any] {
        certificate.item.identifyingAttributes
    }
}
