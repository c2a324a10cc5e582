#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the conditions on the KeychainVocabulary and KeychainServices dependencies
import KeychainVocabulary
#else
import KeychainServices
#endif

/// The statuses keychainctl tests for, with Apple's values: the keychain's own table where
/// KeychainKit implements it (no CF layer), Apple's `errSec…` constants on macOS.
enum StatusCode {
    #if KEYCHAINKIT_REIMPLEMENTED
    static let success = KeychainStatus.success.rawValue
    static let unimplemented = KeychainStatus.unimplemented.rawValue
    static let notAvailable = KeychainStatus.notAvailable.rawValue
    static let authFailed = KeychainStatus.authFailed.rawValue
    static let invalidKeychain = KeychainStatus.invalidKeychain.rawValue
    static let duplicateKeychain = KeychainStatus.duplicateKeychain.rawValue
    static let interactionNotAllowed = KeychainStatus.interactionNotAllowed.rawValue
    static let itemNotFound = KeychainStatus.itemNotFound.rawValue
    static let duplicateItem = KeychainStatus.duplicateItem.rawValue
    static let decode = KeychainStatus.decode.rawValue
    /// `errSecInternalError` (Apple's SecBase.h), which the keychain itself never returns.
    static let internalError: Int32 = -67671
    #else
    static let success = errSecSuccess
    static let unimplemented = errSecUnimplemented
    static let notAvailable = errSecNotAvailable
    static let authFailed = errSecAuthFailed
    static let invalidKeychain = errSecInvalidKeychain
    static let duplicateKeychain = errSecDuplicateKeychain
    static let interactionNotAllowed = errSecInteractionNotAllowed
    static let itemNotFound = errSecItemNotFound
    static let duplicateItem = errSecDuplicateItem
    static let decode = errSecDecode
    static let internalError = errSecInternalError
    #endif
}
