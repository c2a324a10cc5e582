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
/// the service makes it a policy again. One whose flags ask for the user (presence, biometry,
/// passcode, an application password, private key usage) is refused with
/// `errSecUnimplemented` and the reason: the service cannot ask the user at each use yet.
package enum AccessControlRequest {
    /// Replaces the access control in `dictionary` by its wire form; the refusal when it cannot go.
    package static func encode(_ dictionary: inout [String: Any]) -> KeychainStoreError? {
        guard let value = dictionary[ServiceAccessControl.attributeKey] else { return nil }
        guard let policy = (value as? AccessControlConvertible)?.accessControlPolicy else {
            return .invalidParameter("kSecAttrAccessControl must be a SecAccessControl")
        }
        guard policy.flags == 0 else {
            return KeychainStoreError(.notAvailable("access control that asks for the user (SecAccessControlCreateFlags "
                                                    + "0x\(String(policy.flags, radix: 16))) is not served by the keychain service yet; "
                                                    + "use kSecAttrAccessible, or unset \(KeychainVariable.serviceSocket) to keep the item "
                                                    + "in the embedded keychain"), status: .unimplemented)
        }
        dictionary[ServiceAccessControl.attributeKey] = ServiceAccessControl(protection: policy.protection.rawValue, flags: 0).dictionary
        return nil
    }
}
