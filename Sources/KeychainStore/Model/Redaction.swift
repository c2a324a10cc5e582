import Foundation

// `dump()`, `Mirror(reflecting:)` and the default `String(describing:)` of types without a
// description all walk a value's mirror, which for `Data` lists every byte and for a `String`
// shows the text. These mirrors show kinds and sizes only, as the descriptions already do.

extension AttributeValue: CustomReflectable {
    /// The kind of value and, for bytes, their count; never the value.
    package var customMirror: Mirror {
        let kind: String
        switch self {
        case .string: kind = "string"
        case .data(let data): kind = "data (\(data.count) bytes)"
        case .number: kind = "number"
        case .date: kind = "date"
        }
        return Mirror(self, children: ["redacted": kind], displayStyle: .enum)
    }
}

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

extension ItemChanges: CustomReflectable {
    /// Attribute names and the new secret's size; values redacted.
    package var customMirror: Mirror {
        Mirror(self, children: ["attributes": attributes, "data": redacted(data), "protection": protection as Any,
                                "accessControl": accessControl as Any], displayStyle: .struct)
    }
}

extension ItemPayload: CustomReflectable {
    /// Attribute names and the secret's size; values redacted.
    package var customMirror: Mirror {
        Mirror(self, children: ["attributes": attributes, "data": redacted(data),
                                "accessControlFlags": accessControlFlags as Any], displayStyle: .struct)
    }
}

extension BlindIndexCache: CustomReflectable {
    /// How many indexes are kept; never the access groups and services they belong to (attribute
    /// values), nor the indexes.
    var customMirror: Mirror {
        Mirror(self, children: ["entries": count], displayStyle: .struct)
    }
}
