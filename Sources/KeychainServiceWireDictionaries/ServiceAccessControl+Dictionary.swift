// Foundation: NSNumber, the number type of SecItem dictionaries, which FoundationEssentials lacks.
import Foundation
import KeychainServiceWire

/// The SecItem dictionary form of an item's access control (`kSecAttrAccessControl` in a result).
extension ServiceAccessControl {
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
