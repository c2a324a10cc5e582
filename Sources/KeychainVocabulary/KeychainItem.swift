#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One item as the store returns it.
package struct KeychainItem: Sendable {
    /// The item's class.
    package var itemClass: ItemClass
    /// The stable identity behind persistent references; it never changes on update.
    package var persistentID: UUID
    /// The item's accessibility class.
    package var protection: ProtectionClass
    /// The access control given at creation or update, if any.
    package var accessControl: AccessControlPolicy?
    /// Every attribute the item has, primary-key attributes defaulted, dates set by the store.
    /// Empty when the item was matched without being decrypted.
    package var attributes: [String: AttributeValue]
    /// The secret, if the item has one and it was decrypted.
    package var data: Data?
    /// Whether the contents were decrypted (false for existence-only matches).
    package var isDecrypted: Bool

    /// An item of `itemClass` with identity `persistentID`, as the store read it.
    package init(itemClass: ItemClass, persistentID: UUID, protection: ProtectionClass, accessControl: AccessControlPolicy?,
                 attributes: [String: AttributeValue], data: Data?, isDecrypted: Bool) {
        self.itemClass = itemClass
        self.persistentID = persistentID
        self.protection = protection
        self.accessControl = accessControl
        self.attributes = attributes
        self.data = data
        self.isDecrypted = isDecrypted
    }
}

extension KeychainItem: CustomStringConvertible {
    /// Class and protection only: attributes and data never reach a description.
    package var description: String {
        "KeychainItem(\(itemClass.rawValue), \(protection.rawValue), \(attributes.count) attributes, data: \(data == nil ? "none" : "<redacted>"))"
    }
}

/// What to store in a new item.
package struct NewItem: Sendable {
    /// The class.
    package var itemClass: ItemClass
    /// Caller attributes (short names); must include `agrp`. Missing primary-key attributes get
    /// their defaults; `cdat`/`mdat` are always set by the store.
    package var attributes: [String: AttributeValue]
    /// The secret, if any.
    package var data: Data?
    /// The accessibility class.
    package var protection: ProtectionClass
    /// The access control, if any.
    package var accessControl: AccessControlPolicy?

    /// Creates a description of a new item.
    package init(itemClass: ItemClass, attributes: [String: AttributeValue], data: Data?,
                protection: ProtectionClass, accessControl: AccessControlPolicy? = nil) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.data = data
        self.protection = protection
        self.accessControl = accessControl
    }
}

// `dump()` and `Mirror(reflecting:)` walk a value's mirror, which for `Data` lists every byte:
// these show names, kinds and sizes only, as the descriptions do.

/// The size of a secret, for mirrors.
private func redacted(_ data: Data?) -> String {
    data.map { "<redacted, \($0.count) bytes>" } ?? "none"
}

extension KeychainItem: CustomReflectable {
    /// Class, protection, attribute names and the secret's size; attribute values and data redacted.
    package var customMirror: Mirror {
        Mirror(self, children: ["itemClass": itemClass, "persistentID": persistentID, "protection": protection,
                                "accessControl": accessControl as Any, "attributes": attributes, "data": redacted(data),
                                "isDecrypted": isDecrypted], displayStyle: .struct)
    }
}

extension NewItem: CustomReflectable {
    /// Class, protection, attribute names and the secret's size; attribute values and data redacted.
    package var customMirror: Mirror {
        Mirror(self, children: ["itemClass": itemClass, "attributes": attributes, "data": redacted(data),
                                "protection": protection, "accessControl": accessControl as Any], displayStyle: .struct)
    }
}
