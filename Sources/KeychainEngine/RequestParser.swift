#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainStore
import KeychainVocabulary

/// Turns a SecItem dictionary into a `ParsedRequest`, classifying each key by its shape as
/// Apple's `securityd` does: 4 characters = attribute, `class`, `m_…` match, `r_…` return,
/// `u_…` use, `v_…` value. The first problem found decides the status.
enum RequestParser {
    /// How the dictionary is used; some keys are legal in one call and not another.
    enum Mode {
        case add, copyMatching, update, delete
    }

    /// Classes Apple has that this keychain does not store (answered with `errSecUnimplemented`).
    static let otherAppleClasses: Set<String> = ["idnt"]

    /// Internal attributes callers must never pass (Apple: `errSecParam`).
    private static func isForbiddenInternalAttribute(_ key: String) -> Bool {
        switch key {
        case "clip", "musr", "sha1", "tomb", "UUID": return true
        default: return false
        }
    }

    /// Apple's limit on the number of keys in one query.
    private static let maximumKeyCount = 128

    static func parse(_ dictionary: [String: Any], mode: Mode) throws(KeychainStoreError) -> ParsedRequest {
        guard dictionary.count <= maximumKeyCount else {
            throw ParameterRefusal.request("the dictionary has \(dictionary.count) keys; Apple's limit is \(maximumKeyCount)")
        }
        let itemClass = try resolveClass(dictionary)
        do {
            // In the dictionary's own order: whether some key is refused does not depend on the
            // order (each key is judged against the class alone), only which refusal is reported.
            var request = ParsedRequest(itemClass: itemClass)
            request.attributes.reserveCapacity(dictionary.count)  // one allocation, not one per doubling
            for (key, value) in dictionary {
                try apply(key: key, value: value, to: &request, mode: mode)
            }
            return request
        } catch {
            // The first problem in key order decides the status, so that the same bad dictionary
            // always gives the same one. Sorting only here keeps it off every successful call.
            var request = ParsedRequest(itemClass: itemClass)
            for key in dictionary.keys.sorted() {
                guard let value = dictionary[key] else { continue }
                try apply(key: key, value: value, to: &request, mode: mode)
            }
            return request
        }
    }

    private static func resolveClass(_ dictionary: [String: Any]) throws(KeychainStoreError) -> ItemClass {
        if let value = dictionary["class"] {
            guard let name = ValueCoercion.string(value) else { throw ParameterRefusal.value(of: "class", mustBe: "a kSecClass constant") }
            if let itemClass = ItemClass(rawValue: name) { return itemClass }
            throw KeychainStoreError(status: otherAppleClasses.contains(name) ? .unimplemented : .noSuchClass)
        }
        if let reference = dictionary["v_PersistentRef"] { return try PersistentReference.parse(reference).itemClass }
        throw ParameterRefusal.request("the dictionary names no item class: give kSecClass (or kSecValuePersistentRef)")
    }

    private static func apply(key: String, value: Any, to request: inout ParsedRequest, mode: Mode) throws(KeychainStoreError) {
        if ValueCoercion.isNull(value) { throw ParameterRefusal.value(of: key, mustBe: "a value, not null") }
        if key == "class" { return }
        let isPlainASCII = isPrintableASCII(key)
        let characterCount = isPlainASCII ? key.utf8.count : key.count
        if characterCount == 4 {
            try applyAttribute(key, value, to: &request)
            return
        }
        guard characterCount > 1 else { throw ParameterRefusal.request("\(ParameterRefusal.name(of: key)) is not a SecItem key") }
        let first: Character? = isPlainASCII ? key.utf8.first.map { Character(Unicode.Scalar($0)) } : key.first
        switch first {
        case "m": try applyMatch(key, value, to: &request)
        case "r": try applyReturn(key, value, to: &request)
        case "u": try applyUse(key, value, to: &request, mode: mode)
        case "v": try applyValue(key, value, to: &request)
        case "f": return  // callbacks: ignored, as by Apple
        default: throw ParameterRefusal.request("\(ParameterRefusal.name(of: key)) is not a SecItem key")
        }
    }

    /// Whether `key` is printable ASCII, one character per byte, as all of Apple's keys are:
    /// its bytes are then counted and its first byte read instead of segmenting the text into
    /// characters, which costs more than the rest of a key's parsing.
    private static func isPrintableASCII(_ key: String) -> Bool {
        key.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// Whether `key` has four characters, the shape of an attribute name.
    private static func hasAttributeShape(_ key: String) -> Bool {
        (isPrintableASCII(key) ? key.utf8.count : key.count) == 4
    }

    private static func applyAttribute(_ key: String, _ value: Any, to request: inout ParsedRequest) throws(KeychainStoreError) {
        switch key {
        case "nleg":
            return  // kSecUseDataProtectionKeychain: this keychain is always the data-protection kind
        case "pdmn":
            guard let name = ValueCoercion.string(value), let protection = ProtectionClass(rawValue: name) else {
                throw ParameterRefusal.value(of: key, mustBe: "one of the kSecAttrAccessible… constants")
            }
            request.protection = protection
        case "accc":
            guard let convertible = value as? AccessControlConvertible else {
                throw ParameterRefusal.value(of: key, mustBe: "a SecAccessControl (SecAccessControlCreateWithFlags)")
            }
            request.accessControl = convertible.accessControlPolicy
        case "agrp":
            let coerced: AttributeValue
            do {
                coerced = try ValueCoercion.attribute(value, kind: .string)
            } catch {
                throw ParameterRefusal.value(of: key, mustBe: "a string")
            }
            guard case .string(let group) = coerced else { throw ParameterRefusal.value(of: key, mustBe: "a string") }
            request.accessGroup = group
        case "sync":
            if let text = ValueCoercion.string(value), text == "syna" {
                request.synchronizable = .any
            } else if let flag = ValueCoercion.boolean(value) {
                request.synchronizable = .value(flag)
            } else if let number = ValueCoercion.integer(value) {
                request.synchronizable = .value(number != 0)
            } else if let text = ValueCoercion.string(value), let number = Int(text) {
                request.synchronizable = .value(number != 0)
            } else {
                throw ParameterRefusal.value(of: key, mustBe: "a Boolean, a number or kSecAttrSynchronizableAny")
            }
        default:
            if isForbiddenInternalAttribute(key) { throw ParameterRefusal.request("\(ParameterRefusal.name(of: key)) is kept by the keychain itself and cannot be given") }
            guard let kind = request.itemClass.attributes[key] else { throw KeychainStoreError(status: .noSuchAttribute) }
            do {
                request.attributes[key] = try ValueCoercion.attribute(value, kind: kind)
            } catch where error.reason == .statusOnly {
                throw ParameterRefusal.value(of: key, mustBe: ParameterRefusal.expectation(for: kind))
            }
        }
    }

    private static func applyMatch(_ key: String, _ value: Any, to request: inout ParsedRequest) throws(KeychainStoreError) {
        request.hasMatchKey = true
        if key != "m_Limit" || ValueCoercion.string(value) != "m_LimitAll" { request.hasMatchKeyBesidesLimitAll = true }
        switch key {
        case "m_Limit":
            if let text = ValueCoercion.string(value) {
                switch text {
                case "m_LimitOne": request.limit = .one
                case "m_LimitAll": request.limit = .all
                default: throw ParameterRefusal.value(of: key, mustBe: "kSecMatchLimitOne, kSecMatchLimitAll or a count")
                }
            } else if ValueCoercion.boolean(value) == nil, let number = ValueCoercion.integer(value) {
                // -1 is Apple's internal "unlimited"; 1 behaves exactly like kSecMatchLimitOne.
                switch number {
                case 1: request.limit = .one
                case -1: request.limit = .all
                case 0...: request.limit = .count(Int(number))
                default: throw ParameterRefusal.value(of: key, mustBe: "kSecMatchLimitOne, kSecMatchLimitAll or a count of 0 or more")
                }
            } else {
                throw ParameterRefusal.value(of: key, mustBe: "kSecMatchLimitOne, kSecMatchLimitAll or a count")
            }
        case "m_HostOrSubdomainOfHost":
            guard let host = ValueCoercion.string(value) else { throw ParameterRefusal.value(of: key, mustBe: "a host name string") }
            request.hostOrSubdomainOf = host
        case "m_Issuers", "m_Policy", "m_EmailAddressIfPresent", "m_TrustedOnly", "m_ValidOnDate":
            // Certificate-only matches.
            throw KeychainStoreError(status: .unimplemented)
        default:
            return  // other match keys (case-insensitive, subject, item/search list) are ignored on iOS
        }
    }

    private static func applyReturn(_ key: String, _ value: Any, to request: inout ParsedRequest) throws(KeychainStoreError) {
        guard let flag = ValueCoercion.boolean(value) else { throw ParameterRefusal.value(of: key, mustBe: "a Boolean") }
        switch key {
        case "r_Data": request.returnData = flag
        case "r_Attributes": request.returnAttributes = flag
        case "r_Ref": request.returnRef = flag
        case "r_PersistentRef": request.returnPersistentRef = flag
        default: throw ParameterRefusal.request("\(ParameterRefusal.name(of: key)) is not a SecItem key")
        }
    }

    private static func applyUse(_ key: String, _ value: Any, to request: inout ParsedRequest, mode: Mode) throws(KeychainStoreError) {
        switch key {
        case "u_AuthUI":
            guard let text = ValueCoercion.string(value) else { throw ParameterRefusal.value(of: key, mustBe: "a kSecUseAuthenticationUI… constant") }
            switch text {
            case "u_AuthUIA": request.authenticationUI = .allow
            case "u_AuthUIF": request.authenticationUI = .fail
            case "u_AuthUIS": request.authenticationUI = .skip
            default: throw ParameterRefusal.value(of: key, mustBe: "a kSecUseAuthenticationUI… constant")
            }
        case "u_NoAuthUI":
            guard let flag = ValueCoercion.boolean(value) else { throw ParameterRefusal.value(of: key, mustBe: "a Boolean") }
            if flag { request.authenticationUI = .fail }
        case "u_AuthCtx":
            guard let context = value as? AuthenticationContextConvertible else {
                throw ParameterRefusal.value(of: key, mustBe: "an LAContext")
            }
            request.authenticationContext = context
        case "u_OpPrompt", "u_CallerName":
            guard ValueCoercion.string(value) != nil else { throw ParameterRefusal.value(of: key, mustBe: "a string") }
        case "u_ItemList":
            request.hasItemList = true
        case "u_Tomb":
            return
        default:
            throw ParameterRefusal.request("\(ParameterRefusal.name(of: key)) is not a SecItem key this keychain takes")
        }
    }

    /// A value over the item size limit is refused here, before any encryption or I/O, with its size.
    private static func refuseOversized(_ bytes: Data) throws(KeychainStoreError) {
        guard bytes.count <= KeychainStoreError.maximumItemSize else { throw KeychainStoreError.valueTooLarge(bytes.count) }
    }

    private static func applyValue(_ key: String, _ value: Any, to request: inout ParsedRequest) throws(KeychainStoreError) {
        switch key {
        case "v_Data":
            guard let bytes = ValueCoercion.data(value) else { throw ParameterRefusal.value(of: key, mustBe: "data (Data or NSData)") }
            try refuseOversized(bytes)
            request.data = bytes
            request.hasDataKey = true
        case "v_PersistentRef":
            let reference = try PersistentReference.parse(value)
            guard reference.itemClass == request.itemClass else {
                throw ParameterRefusal.request("kSecValuePersistentRef names an item of another class than kSecClass")
            }
            request.persistentID = reference.id
        default:
            // kSecValueRef: the Apple edge expands SecKey / SecCertificate / SecIdentity objects
            // into attributes (ItemReferenceBridge, ValueRefQuery); the engine itself takes none.
            throw ParameterRefusal.request("\(ParameterRefusal.name(of: key)) is not a value this keychain takes")
        }
    }

    /// Parses `attributesToUpdate`: every key except `kSecValueData` must be an attribute of the
    /// class (so `class`, `r_…`, `m_…`, `u_…` are `errSecNoSuchAttr`).
    static func parseChanges(_ dictionary: [String: Any], itemClass: ItemClass) throws(KeychainStoreError) -> ParsedRequest {
        var request = ParsedRequest(itemClass: itemClass)
        for key in dictionary.keys.sorted() {
            guard let value = dictionary[key] else { continue }
            if key == "v_Data" {
                guard !ValueCoercion.isNull(value), let bytes = ValueCoercion.data(value) else {
                    throw ParameterRefusal.value(of: key, mustBe: "data (Data or NSData)")
                }
                try refuseOversized(bytes)
                request.data = bytes
                request.hasDataKey = true
                continue
            }
            let isAttribute = hasAttributeShape(key)
                && (itemClass.attributes[key] != nil || ["pdmn", "accc", "agrp", "sync", "nleg"].contains(key)
                    || isForbiddenInternalAttribute(key))
            guard isAttribute else { throw KeychainStoreError(status: .noSuchAttribute) }
            if ValueCoercion.isNull(value) { throw ParameterRefusal.value(of: key, mustBe: "a value, not null") }
            // kSecAttrTokenID is taken here and checked against the matched items by the update: a
            // read-modify-write sends it back unchanged (SecItemEngine.updateOutcome).
            try applyAttribute(key, value, to: &request)
        }
        return request
    }
}
