import Foundation

/// One item as the store returns it.
public struct KeychainItem: Sendable {
    /// The item's class.
    public var itemClass: ItemClass
    /// The stable identity behind persistent references; it never changes on update.
    public var persistentID: UUID
    /// The item's accessibility class.
    public var protection: ProtectionClass
    /// The access control given at creation or update, if any.
    public var accessControl: AccessControlPolicy?
    /// Every attribute the item has, primary-key attributes defaulted, dates set by the store.
    /// Empty when the item was matched without being decrypted.
    public var attributes: [String: AttributeValue]
    /// The secret, if the item has one and it was decrypted.
    public var data: Data?
    /// Whether the contents were decrypted (false for existence-only matches).
    public var isDecrypted: Bool
}

extension KeychainItem: CustomStringConvertible {
    /// Class and protection only: attributes and data never reach a description.
    public var description: String {
        "KeychainItem(\(itemClass.rawValue), \(protection.rawValue), \(attributes.count) attributes, data: \(data == nil ? "none" : "<redacted>"))"
    }
}

/// What to store in a new item.
public struct NewItem: Sendable {
    /// The class.
    public var itemClass: ItemClass
    /// Caller attributes (short names); must include `agrp`. Missing primary-key attributes get
    /// their defaults; `cdat`/`mdat` are always set by the store.
    public var attributes: [String: AttributeValue]
    /// The secret, if any.
    public var data: Data?
    /// The accessibility class.
    public var protection: ProtectionClass
    /// The access control, if any.
    public var accessControl: AccessControlPolicy?

    /// Creates a description of a new item.
    public init(itemClass: ItemClass, attributes: [String: AttributeValue], data: Data?,
                protection: ProtectionClass, accessControl: AccessControlPolicy? = nil) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.data = data
        self.protection = protection
        self.accessControl = accessControl
    }
}

/// Which access groups a query may see.
public enum AccessGroupScope: Sendable, Equatable {
    /// Every group (a caller entitled to `*`).
    case all
    /// Only these groups.
    case only([String])
}

/// A typed query: equality filters plus the store-level options of Apple's query dictionary.
public struct ItemQuery: Sendable {
    /// The class searched.
    public var itemClass: ItemClass
    /// Match one item by its persistent identity.
    public var persistentID: UUID?
    /// Attribute equality filters (short names), `agrp` and `sync` excluded.
    public var filters: [String: AttributeValue]
    /// Accessibility filter.
    public var protection: ProtectionClass?
    /// Visible access groups; an explicit `agrp` narrows this to one group.
    public var accessGroups: AccessGroupScope
    /// `sync` filter: nil means both (`kSecAttrSynchronizableAny`).
    public var synchronizable: Bool?
    /// `kSecMatchHostOrSubdomainOfHost`: the server equals this host or is a subdomain of it.
    public var hostOrSubdomainOf: String?
    /// Maximum number of items; nil for all.
    public var limit: Int?

    /// Creates a query for every item of a class in the given groups.
    public init(itemClass: ItemClass, accessGroups: AccessGroupScope) {
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
public struct ItemChanges: Sendable {
    /// Attributes to set (short names), including `agrp` and `sync`.
    public var attributes: [String: AttributeValue] = [:]
    /// New secret, if changed.
    public var data: Data?
    /// New accessibility, if changed.
    public var protection: ProtectionClass?
    /// New access control, if changed.
    public var accessControl: AccessControlPolicy?

    /// No changes (only the modification date moves).
    public init() {}
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
