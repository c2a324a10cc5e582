#if !KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainServices dependency; elsewhere KeychainClient's
import KeychainServices

/// Apple's `kSec…` constants as Swift strings, under the names KeychainClient gives them where
/// KeychainKit implements the keychain (`SecItemKey` there), so that keychainctl spells one set of keys.
enum SecItemKey {
    static let itemClass = kSecClass as String
    static let genericPassword = kSecClassGenericPassword as String
    static let internetPassword = kSecClassInternetPassword as String
    static let accessible = kSecAttrAccessible as String
    static let accessibleAfterFirstUnlockThisDeviceOnly = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String
    static let accessibleWhenUnlocked = kSecAttrAccessibleWhenUnlocked as String
    static let accessibleAfterFirstUnlock = kSecAttrAccessibleAfterFirstUnlock as String
    static let accessibleWhenUnlockedThisDeviceOnly = kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String
    static let accessibleWhenPasscodeSetThisDeviceOnly = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String
    static let accessGroup = kSecAttrAccessGroup as String
    static let account = kSecAttrAccount as String
    static let service = kSecAttrService as String
    static let server = kSecAttrServer as String
    static let `protocol` = kSecAttrProtocol as String
    static let port = kSecAttrPort as String
    static let path = kSecAttrPath as String
    static let label = kSecAttrLabel as String
    static let comment = kSecAttrComment as String
    static let isInvisible = kSecAttrIsInvisible as String
    static let description = kSecAttrDescription as String
    static let securityDomain = kSecAttrSecurityDomain as String
    static let authenticationType = kSecAttrAuthenticationType as String
    static let creationDate = kSecAttrCreationDate as String
    static let modificationDate = kSecAttrModificationDate as String
    static let synchronizable = kSecAttrSynchronizable as String
    static let synchronizableAny = kSecAttrSynchronizableAny as String
    static let matchLimitOne = kSecMatchLimitOne as String
    static let matchLimit = kSecMatchLimit as String
    static let matchLimitAll = kSecMatchLimitAll as String
    static let returnAttributes = kSecReturnAttributes as String
    static let returnData = kSecReturnData as String
    static let returnPersistentRef = kSecReturnPersistentRef as String
    static let valueData = kSecValueData as String
    static let valuePersistentRef = kSecValuePersistentRef as String
}
#endif
