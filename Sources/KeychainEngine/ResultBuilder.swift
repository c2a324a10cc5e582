#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainStore
import KeychainVocabulary

/// Shapes matched items into what `SecItemCopyMatching` / `SecItemAdd` return: one value per
/// item, a single object for limit one and an array otherwise.
struct ResultBuilder {
    let request: ParsedRequest
    /// Turns a stored policy into the object callers get under `kSecAttrAccessControl`.
    let accessControlObject: @Sendable (AccessControlPolicy) -> Any
    /// Whether the private bytes of token-bound (Secure Enclave) keys may be returned: only to
    /// the KeychainServices edge, which turns them into a `SecKey` that never exports them.
    var releasesTokenKeyMaterial = false

    /// The Secure Enclave token (`kSecAttrTokenIDSecureEnclave`): on Apple platforms such a
    /// key's private half never leaves the enclave, so here its bytes never leave the engine.
    static let secureEnclaveToken = "com.apple.setoken"

    /// The data a caller may see: none for a token-bound key (empty, as securityd returns for
    /// one), unless the caller is the edge building a reference.
    private func releasableData(of item: KeychainItem) -> Data? {
        if !releasesTokenKeyMaterial, item.itemClass == .key, case .string(Self.secureEnclaveToken)? = item.attributes["tkid"] {
            return Data()
        }
        return item.data
    }

    /// How many of the four kSecReturn… keys are true. Counted without an array: a literal and
    /// its `filter` were two allocations on every read.
    private var requestedCount: Int {
        (request.returnData ? 1 : 0) + (request.returnAttributes ? 1 : 0) + (request.returnRef ? 1 : 0)
            + (request.returnPersistentRef ? 1 : 0)
    }

    /// The value for one item; nil when nothing (or only an unsupported ref) was requested.
    func value(for item: KeychainItem) -> Any? {
        switch requestedCount {
        case 0:
            return nil
        case 1:
            if request.returnData { return releasableData(of: item) ?? Data() }
            if request.returnPersistentRef { return PersistentReference.make(item.itemClass, item.persistentID) }
            if request.returnAttributes { return attributes(of: item) }
            return nil  // kSecReturnRef: passwords have no SecKeychainItem ref on iOS
        default:
            var dictionary: [String: Any] = [:]
            if request.returnAttributes || request.returnRef { dictionary = attributes(of: item) }
            if request.returnData, let data = releasableData(of: item) { dictionary["v_Data"] = data }
            if request.returnPersistentRef {
                dictionary["v_PersistentRef"] = PersistentReference.make(item.itemClass, item.persistentID)
            }
            if request.returnRef { dictionary["class"] = item.itemClass.rawValue }
            return dictionary
        }
    }

    /// The result for all matched items.
    func result(for items: [KeychainItem], limitOne: Bool) -> Any? {
        if limitOne { return items.first.flatMap(value(for:)) }
        return items.compactMap(value(for:))
    }

    /// Attributes as Apple returns them: every stored attribute with its type preserved, plus
    /// `pdmn` and a synthesised `accc`; no `class`, data or persistent reference.
    func attributes(of item: KeychainItem) -> [String: Any] {
        var dictionary: [String: Any] = [:]
        for (name, value) in item.attributes {
            switch value {
            case .string(let text): dictionary[name] = text
            case .data(let data): dictionary[name] = data
            // `as AnyObject` is Foundation's bridge when Foundation is linked: the same
            // `NSNumber(value:)` Apple's callers read (`as? Int`, `as? NSNumber`), made without
            // this module importing Foundation (see ``BridgedNumber``). An `Int`, so that a
            // process without Foundation reads it with the same `as? Int`.
            case .number(let number): dictionary[name] = Int(truncatingIfNeeded: number) as AnyObject
            case .date(let date): dictionary[name] = date
            }
        }
        dictionary["pdmn"] = item.protection.rawValue
        dictionary["accc"] = accessControlObject(item.accessControl ?? .unconstrained(item.protection))
        return dictionary
    }
}
