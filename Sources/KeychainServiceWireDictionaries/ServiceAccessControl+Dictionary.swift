#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainServiceWire
// BridgedNumber: Foundation's NSNumber, read without importing Foundation.
import KeychainVocabulary

/// The SecItem dictionary form of an item's access control (`kSecAttrAccessControl` in a result).
extension ServiceAccessControl {
    /// The form sent: a dictionary of two plain values. The flags are the `UInt64` `as AnyObject`
    /// makes: Foundation's `NSNumber(value:)` wherever Foundation is linked.
    package var dictionary: [String: Any] {
        [Self.protectionKey: protection, Self.flagsKey: flags as AnyObject]
    }

    /// The access control `value` carries, or nil when it is not this form. The flags are read as
    /// `NSNumber.int64Value` reads them, and must not be negative.
    package init?(_ value: Any) {
        guard let dictionary = value as? [String: Any], dictionary.count == 2,
              let protection = dictionary[Self.protectionKey] as? String,
              let number = dictionary[Self.flagsKey], let flags = Self.int64Value(of: number), flags >= 0 else { return nil }
        self.init(protection: protection, flags: UInt64(flags))
    }

    /// A number's `int64Value` (a floating-point number truncated toward zero), or nil when
    /// `value` is no number or a floating-point one outside `Int64`.
    private static func int64Value(of value: Any) -> Int64? {
        if let number = value as? any BridgedNumber { return number.int64Value }
        if let number = WireValue.integerReading(value) { return number }
        if let number = WireValue.doubleReading(value) { return Int64(exactly: number.rounded(.towardZero)) }
        return nil
    }
}
