#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// The service's half of sending `kSecAttrAccessControl` in results: the engine puts an
/// ``AccessControlPolicy`` under `accc` in every attributes dictionary (Apple synthesises one for
/// items stored without access control), which has no wire form of its own. It travels as
/// ``ServiceAccessControl`` and becomes a `SecAccessControl` again in the client. A client's
/// add or update sends one the same way; the service takes its flags too, except those it cannot
/// honour yet (``ServiceAccessControl/unservedFlagsReason(_:)``), and evaluates them when a
/// secret is read (``ServiceRequestHandler/answerAuthentication(_:to:from:session:)``).
enum AccessControlWireForm {
    /// `dictionary` with its `accc` wire dictionary made a policy again; a form that is not
    /// ``ServiceAccessControl``, an unknown class or a flag the service does not serve is refused.
    static func decodingPolicy(in dictionary: [String: Any]) throws(KeychainStoreError) -> [String: Any] {
        guard let sent = dictionary[ServiceAccessControl.attributeKey] else { return dictionary }
        guard let wire = ServiceAccessControl(sent), let protection = ProtectionClass(rawValue: wire.protection) else {
            throw .invalidParameter("kSecAttrAccessControl (accc) must be a protection class and flags")
        }
        // Checked here too: a client of its own could skip the library's refusal.
        if let refusal = ServiceAccessControl.unservedFlagsReason(wire.flags) {
            throw KeychainStoreError(.notAvailable(refusal), status: .unimplemented)
        }
        var decoded = dictionary
        do {
            decoded[ServiceAccessControl.attributeKey] = try AccessControlPolicy(protection: protection, flags: wire.flags)
        } catch {
            throw .invalidParameter("kSecAttrAccessControl (accc): \(error)")
        }
        return decoded
    }

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
