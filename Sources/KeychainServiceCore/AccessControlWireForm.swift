import Foundation
import KeychainServiceWire
import KeychainVocabulary

/// The service's half of sending `kSecAttrAccessControl` in results: the engine puts an
/// ``AccessControlPolicy`` under `accc` in every attributes dictionary (Apple synthesises one for
/// items stored without access control), which has no wire form of its own. It travels as
/// ``ServiceAccessControl`` and becomes a `SecAccessControl` again in the client.
enum AccessControlWireForm {
    /// `result` (a dictionary, an array of them, or anything else) with each `accc` policy
    /// replaced by its wire dictionary.
    static func encodingPolicies(in result: Any) -> Any {
        if let dictionary = result as? [String: Any] { return encodingPolicy(in: dictionary) }
        if let array = result as? [Any] { return array.map(encodingPolicies(in:)) }
        return result
    }

    private static func encodingPolicy(in dictionary: [String: Any]) -> [String: Any] {
        guard let policy = dictionary[ServiceAccessControl.attributeKey] as? AccessControlPolicy else { return dictionary }
        var encoded = dictionary
        encoded[ServiceAccessControl.attributeKey] = ServiceAccessControl(protection: policy.protection.rawValue, flags: policy.flags)
            .dictionary
        return encoded
    }
}
