// Reading the CF dictionaries that SecKeyCreateRandomKey and SecKeyCreateWithData take:
// key type, size, class and the per-key attributes, with Apple's value forms (CFString key
// types, CFNumber or numeric CFString sizes, CFBoolean flags, CFData tags).

import Foundation

/// The parameters of a key to create or read, taken from a CF dictionary.
struct KeyParameters {
    /// `kSecAttrKeyType`: true for EC (`"73"`), false for RSA (`"42"`).
    let isEllipticCurve: Bool
    /// `kSecAttrKeySizeInBits`, when given.
    let sizeInBits: Int?
    /// `kSecAttrKeyClass`: true for private, false for public, nil when not given.
    let isPrivateClass: Bool?
    /// `kSecAttrIsPermanent` at the top level or in `kSecPrivateKeyAttrs`.
    let isPermanent: Bool
    /// `kSecAttrTokenID` is `kSecAttrTokenIDSecureEnclave`.
    let isSecureEnclave: Bool
    /// `kSecAttrApplicationTag` of the private key (top level or `kSecPrivateKeyAttrs`).
    let applicationTag: Data?
    /// `kSecAttrLabel` of the private key (top level or `kSecPrivateKeyAttrs`).
    let label: String?
    /// Where and how a permanent key is stored: `kSecAttrAccessible`, `kSecAttrAccessControl`,
    /// `kSecAttrAccessGroup`, `kSecAttrSynchronizable`, `kSecUseKeychain`,
    /// `kSecUseAuthenticationContext` (top level or
    /// `kSecPrivateKeyAttrs`), passed to `SecItemAdd` as given.
    let storageAttributes: [String: Any]

    init(_ dictionary: CFDictionary) throws(SecKeyFailure) {
        let top = Self.stringKeyed(dictionary)
        let privateAttributes = (top[kSecPrivateKeyAttrs as String] as? NSDictionary).map(Self.stringKeyed) ?? [:]
        func value(_ key: CFString) -> Any? { privateAttributes[key as String] ?? top[key as String] }

        let keyType = top[kSecAttrKeyType as String].flatMap(Self.string)
        if keyType == kSecAttrKeyTypeECSECPrimeRandom as String {
            isEllipticCurve = true
        } else if keyType == kSecAttrKeyTypeRSA as String {
            isEllipticCurve = false
        } else {
            throw .parameter(keyType.map { "Unsupported key type: \($0)" } ?? "kSecAttrKeyType is missing")
        }
        if let size = top[kSecAttrKeySizeInBits as String] {
            guard let bits = Self.integer(size) else { throw .parameter("kSecAttrKeySizeInBits must be a number") }
            sizeInBits = bits
        } else {
            sizeInBits = nil
        }
        switch top[kSecAttrKeyClass as String].flatMap(Self.string) {
        case nil: isPrivateClass = nil
        case let keyClass? where keyClass == kSecAttrKeyClassPrivate as String: isPrivateClass = true
        case let keyClass? where keyClass == kSecAttrKeyClassPublic as String: isPrivateClass = false
        case let other?: throw .parameter("Unsupported key class: \(other)")
        }
        isPermanent = try Self.boolean(value(kSecAttrIsPermanent), named: "kSecAttrIsPermanent") ?? false
        switch top[kSecAttrTokenID as String].flatMap(Self.string) {
        case nil: isSecureEnclave = false
        case let token? where token == kSecAttrTokenIDSecureEnclave as String: isSecureEnclave = true
        case let other?: throw .parameter("Unsupported token: \(other)")
        }
        switch value(kSecAttrApplicationTag) {
        case nil: applicationTag = nil
        case let data as Data: applicationTag = data
        case let string as String: applicationTag = Data(string.utf8)
        default: throw .parameter("kSecAttrApplicationTag must be data")
        }
        var storage: [String: Any] = [:]
        for key in [kSecAttrAccessible, kSecAttrAccessControl, kSecAttrAccessGroup, kSecAttrSynchronizable, kSecUseKeychain,
                    kSecUseAuthenticationContext] {
            if let given = value(key) { storage[key as String] = given }
        }
        storageAttributes = storage
        if isSecureEnclave && !(isEllipticCurve && (sizeInBits ?? 256) == 256) {
            throw .parameter("kSecAttrTokenIDSecureEnclave keys are 256-bit EC keys")
        }
        switch value(kSecAttrLabel) {
        case nil: label = nil
        case let string as String: label = string
        default: throw .parameter("kSecAttrLabel must be a string")
        }
    }

    private static func stringKeyed(_ dictionary: NSDictionary) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in dictionary {
            if let key = key as? String { result[key] = value }
        }
        return result
    }

    private static func string(_ value: Any) -> String? {
        if let string = value as? String { return string }
        if let number = value as? NSNumber { return number.stringValue }
        return nil
    }

    private static func integer(_ value: Any) -> Int? {
        if let number = value as? NSNumber { return number.intValue }
        if let string = value as? String { return Int(string) }
        return nil
    }

    private static func boolean(_ value: Any?, named name: String) throws(SecKeyFailure) -> Bool? {
        guard let value else { return nil }
        guard let number = value as? NSNumber else { throw .parameter("\(name) must be a boolean") }
        return number.boolValue
    }
}
