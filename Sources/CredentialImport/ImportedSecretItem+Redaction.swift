#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `dump()`, `Mirror(reflecting:)` and the default `String(describing:)` walk a value's mirror,
// which for `Data` lists every byte: an imported item's secret, or the password that opened its
// file, would reach any log or test failure that shows the value. These mirrors show sizes only.

extension ImportedSecretItem: CustomReflectable {
    /// The label, attributes and dates; the secret as its size.
    package var customMirror: Mirror {
        Mirror(self, children: ["label": label, "attributes": attributes, "secret": "<redacted, \(secret.count) bytes>",
                                "created": created as Any, "modified": modified as Any], displayStyle: .struct)
    }
}

extension ImportedCollection: CustomReflectable {
    /// The collection's names and items; the password as its size.
    package var customMirror: Mirror {
        Mirror(self, children: ["identifier": identifier, "label": label, "items": items, "isEncrypted": isEncrypted,
                               "password": "<redacted, \(password.count) bytes>"], displayStyle: .struct)
    }
}
