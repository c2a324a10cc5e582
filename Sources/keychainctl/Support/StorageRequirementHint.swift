import Foundation
import KeychainServices

/// Why a keychain may be unavailable when `KEYCHAINKIT_REQUIRE` is set: the status alone
/// ("No keychain is available.") does not say that the process's own rule refused it.
enum StorageRequirementHint {
    /// A sentence to add to the message of `status`, or "".
    static func hint(for status: OSStatus) -> String {
        guard status == errSecNotAvailable, let value = getenv("KEYCHAINKIT_REQUIRE"), value.pointee != 0 else { return "" }
        return " (KEYCHAINKIT_REQUIRE=\(String(cString: value)) refuses a keychain below that level; "
            + "keychainctl show-keychain-info --security shows how it is protected)"
    }
}
