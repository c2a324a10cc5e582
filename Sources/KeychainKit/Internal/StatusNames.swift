import KeychainServices

/// Apple's constant names for the result codes a keychain call commonly returns, shared by
/// ``KeychainError``'s descriptions and ``KeychainEvent``.
enum StatusNames {
    /// The `errSec…` name of `status`, or `nil` for a code not listed here (its number still
    /// reaches the caller).
    static func name(of status: OSStatus) -> String? {
        switch status {
        case errSecSuccess: "errSecSuccess"
        case errSecUnimplemented: "errSecUnimplemented"
        case errSecParam: "errSecParam"
        case errSecAllocate: "errSecAllocate"
        case errSecUserCanceled: "errSecUserCanceled"
        case errSecNotAvailable: "errSecNotAvailable"
        case errSecReadOnly: "errSecReadOnly"
        case errSecAuthFailed: "errSecAuthFailed"
        case errSecDuplicateItem: "errSecDuplicateItem"
        case errSecItemNotFound: "errSecItemNotFound"
        case errSecNoSuchAttr: "errSecNoSuchAttr"
        case errSecInteractionNotAllowed: "errSecInteractionNotAllowed"
        case errSecDecode: "errSecDecode"
        case errSecMissingEntitlement: "errSecMissingEntitlement"
        case errSecInternalComponent: "errSecInternalComponent"
        default: nil
        }
    }
}
