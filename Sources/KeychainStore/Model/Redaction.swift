#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary
import KeychainItemCodec

// `dump()`, `Mirror(reflecting:)` and the default `String(describing:)` of types without a
// description all walk a value's mirror, which for `Data` lists every byte and for a `String`
// shows the text. These mirrors show kinds and sizes only, as the descriptions already do.

/// The size of a secret, for mirrors.
private func redacted(_ data: Data?) -> String {
    data.map { "<redacted, \($0.count) bytes>" } ?? "none"
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
