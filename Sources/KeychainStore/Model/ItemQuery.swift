#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// Which access groups a query may see.
package enum AccessGroupScope: Sendable, Equatable {
    /// Every group (a caller entitled to `*`).
    case all
    /// Only these groups.
    case only([String])
}

/// A typed query: equality filters plus the store-level options of Apple's query dictionary.
package struct ItemQuery: Sendable {
    /// The class searched.
    package var itemClass: ItemClass
    /// Match one item by its persistent identity.
    package var persistentID: UUID?
    /// Attribute equality filters (short names), `agrp` and `sync` excluded.
    package var filters: [String: AttributeValue]
    /// Accessibility filter.
    package var protection: ProtectionClass?
    /// Visible access groups; an explicit `agrp` narrows this to one group.
    package var accessGroups: AccessGroupScope
    /// `sync` filter: nil means both (`kSecAttrSynchronizableAny`).
    package var synchronizable: Bool?
    /// `kSecMatchHostOrSubdomainOfHost`: the server equals this host or is a subdomain of it.
    package var hostOrSubdomainOf: String?
    /// Maximum number of items; nil for all.
    package var limit: Int?

    /// Creates a query for every item of a class in the given groups.
    package init(itemClass: ItemClass, accessGroups: AccessGroupScope) {
        self.itemClass = itemClass
        self.persistentID = nil
        self.filters = [:]
        self.protection = nil
        self.accessGroups = accessGroups
        self.synchronizable = false
        self.hostOrSubdomainOf = nil
        self.limit = nil
    }

    /// Whether matching needs the items' decrypted attributes (filters with no blind index).
    var needsDecryptionToMatch: Bool {
        hostOrSubdomainOf != nil || filters.keys.contains { !ItemClass.indexedAttributes.contains($0) || !itemClass.primaryKey.contains($0) }
    }
}

/// The changes `SecItemUpdate` applies to every matched item.
package struct ItemChanges: Sendable {
    /// Attributes to set (short names), including `agrp` and `sync`.
    package var attributes: [String: AttributeValue] = [:]
    /// New secret, if changed.
    package var data: Data?
    /// New accessibility, if changed.
    package var protection: ProtectionClass?
    /// New access control, if changed.
    package var accessControl: AccessControlPolicy?

    /// No changes (only the modification date moves).
    package init() {}
}

extension ItemQuery {
    /// The item as its owner names it, from the query's label, service (or server) and account:
    /// `'label'`, `'service/account'`; nil when the query names none of them.
    package var itemName: String? {
        func text(_ key: String) -> String? {
            if case .string(let value)? = filters[key], !value.isEmpty { return value }
            return nil
        }
        if let label = text("labl") { return "'\(label)'" }
        let place = text("svce") ?? text("srvr")
        let account = text("acct")
        switch (place, account) {
        case let (place?, account?): return "'\(place)/\(account)'"
        case let (place?, nil): return "'\(place)'"
        case let (nil, account?): return "'\(account)'"
        case (nil, nil): return nil
        }
    }
}
