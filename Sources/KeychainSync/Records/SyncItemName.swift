import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

// The name a record has on the transport: a keyed digest of the item's identity (class and
// primary key, ``ItemClass/primaryKeyMessage(of:)``) under the circle's naming key, the same on
// every member and meaningless without the key.

extension KeychainItem {
    /// The name this item's record has under the circle's naming key `key`.
    package func primaryKeyName(using key: SymmetricKey) -> Data {
        itemClass.primaryKeyName(of: attributes, using: key)
    }
}

extension ItemClass {
    /// The name the record of an item of this class with `attributes` has under `key`
    /// (``KeychainItem/primaryKeyName(using:)`` without an item): checks a received item's name
    /// against the attributes inside it.
    package func primaryKeyName(of attributes: [String: AttributeValue], using key: SymmetricKey) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: primaryKeyMessage(of: attributes), using: key))
    }
}
