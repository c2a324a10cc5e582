import Foundation

/// An item's access control (`kSecAttrAccessControl` in an attributes result) as it crosses the
/// service's socket: its protection class and Apple's `SecAccessControlCreateFlags` bits. The
/// biometric domain state stays in the service: a result only shows what the item requires.
package struct ServiceAccessControl: Equatable, Sendable {
    /// The attribute's key in SecItem dictionaries (`kSecAttrAccessControl`).
    package static let attributeKey = "accc"
    private static let protectionKey = "pdmn"
    private static let flagsKey = "flags"

    /// The protection class's raw value (`ak`, `cku`, …).
    package var protection: String
    /// The `SecAccessControlCreateFlags` bits.
    package var flags: UInt64

    package init(protection: String, flags: UInt64) {
        self.protection = protection
        self.flags = flags
    }

    /// The form sent: a dictionary of two plain values.
    package var dictionary: [String: Any] {
        [Self.protectionKey: protection, Self.flagsKey: NSNumber(value: flags)]
    }

    /// The access control `value` carries, or nil when it is not this form.
    package init?(_ value: Any) {
        guard let dictionary = value as? [String: Any], dictionary.count == 2,
              let protection = dictionary[Self.protectionKey] as? String,
              let flags = (dictionary[Self.flagsKey] as? NSNumber)?.int64Value, flags >= 0 else { return nil }
        self.init(protection: protection, flags: UInt64(flags))
    }
}
