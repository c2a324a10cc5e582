#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// The client's half of sending `kSecAttrAccessControl` to the keychain service: a
/// `SecAccessControl` that only sets a protection class travels as ``ServiceAccessControl`` and
/// the service makes it a policy again, flags included: the service evaluates them when the
/// secret is read (``ServiceAuthentication``). Flags it does not serve yet (biometry, private key
/// usage) are refused with `errSecUnimplemented` and the reason.
package enum AccessControlRequest {
    /// Replaces the access control in `dictionary` by its wire form; the refusal when it cannot go.
    package static func encode(_ dictionary: inout [String: Any]) -> KeychainStoreError? {
        guard let value = dictionary[ServiceAccessControl.attributeKey] else { return nil }
        guard let policy = (value as? AccessControlConvertible)?.accessControlPolicy else {
            return .invalidParameter("kSecAttrAccessControl must be a SecAccessControl")
        }
        if let refusal = ServiceAccessControl.unservedFlagsReason(policy.flags) {
            return KeychainStoreError(.notAvailable(refusal), status: .unimplemented)
        }
        dictionary[ServiceAccessControl.attributeKey] = ServiceAccessControl(protection: policy.protection.rawValue, flags: policy.flags).dictionary
        return nil
    }
}
