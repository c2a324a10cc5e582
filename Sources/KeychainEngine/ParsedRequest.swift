#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainStore
import KeychainVocabulary

/// A query or attribute dictionary after parsing: every key classified and every value typed.
/// Nothing below the engine's edge sees the original dictionary.
struct ParsedRequest {
    /// `kSecAttrSynchronizable` as given.
    enum Synchronizable: Equatable {
        case absent
        case value(Bool)
        /// `kSecAttrSynchronizableAny`.
        case any
    }

    /// `kSecMatchLimit`.
    enum Limit: Equatable {
        case one
        case all
        case count(Int)
    }

    /// `kSecUseAuthenticationUI`.
    enum AuthenticationUI: Equatable {
        case allow
        case fail
        case skip
    }

    var itemClass: ItemClass
    /// Class attributes given (short names), `agrp`, `sync`, `pdmn` and `accc` excluded.
    var attributes: [String: AttributeValue] = [:]
    var accessGroup: String?
    var synchronizable: Synchronizable = .absent
    var protection: ProtectionClass?
    var accessControl: AccessControlPolicy?
    var data: Data?
    var hasDataKey = false
    var persistentID: UUID?

    var returnData = false
    var returnAttributes = false
    var returnRef = false
    var returnPersistentRef = false
    /// Any `kSecReturn…` key present, true or false.
    var hasReturnKeyTrue: Bool { returnData || returnAttributes || returnRef || returnPersistentRef }

    /// Whether the dictionary names any item attribute as a filter (class attributes, access
    /// group, accessibility, or a definite `kSecAttrSynchronizable`); a persistent reference
    /// must stand alone (Apple: `errSecParam`).
    var hasAttributeFilter: Bool {
        if case .value = synchronizable { return true }
        return !attributes.isEmpty || accessGroup != nil || protection != nil
    }

    var limit: Limit?
    /// Some `kSecMatch…` key was present.
    var hasMatchKey = false
    /// Whether a match key other than `kSecMatchLimit` = `kSecMatchLimitAll` was given.
    var hasMatchKeyBesidesLimitAll = false
    /// Whether the only match key is `kSecMatchLimitAll`: what macOS strips from SecItemUpdate
    /// and SecItemDelete, and what those calls do anyway (they reach every match).
    var matchKeysOnlyLimitAll: Bool { hasMatchKey && !hasMatchKeyBesidesLimitAll && limit == .all }
    var hostOrSubdomainOf: String?

    var authenticationUI: AuthenticationUI = .allow
    var authenticationContext: AuthenticationContextConvertible?
    var hasItemList = false

    init(itemClass: ItemClass) { self.itemClass = itemClass }
}
