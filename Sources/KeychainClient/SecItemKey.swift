/// The values of Apple's `kSec…` constants that the tools' SecItem dictionaries use, as Swift
/// strings (Apple's own values: `kSecClass as String` is `"class"` on Apple platforms too), so
/// that code on ``KeychainClient`` spells the same keys as code on Apple's CF-typed API.
package enum SecItemKey {
    /// `kSecClass`.
    package static let itemClass = "class"
    /// `kSecClassGenericPassword`.
    package static let genericPassword = "genp"
    /// `kSecClassInternetPassword`.
    package static let internetPassword = "inet"
    /// `kSecAttrAccessible`.
    package static let accessible = "pdmn"
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    package static let accessibleAfterFirstUnlockThisDeviceOnly = "cku"
    /// `kSecAttrAccessibleWhenUnlocked`.
    package static let accessibleWhenUnlocked = "ak"
    /// `kSecAttrAccessibleAfterFirstUnlock`.
    package static let accessibleAfterFirstUnlock = "ck"
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`.
    package static let accessibleWhenUnlockedThisDeviceOnly = "aku"
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`.
    package static let accessibleWhenPasscodeSetThisDeviceOnly = "akpu"
    /// `kSecAttrAccessGroup`.
    package static let accessGroup = "agrp"
    /// `kSecAttrAccount`.
    package static let account = "acct"
    /// `kSecAttrService`.
    package static let service = "svce"
    /// `kSecAttrServer`.
    package static let server = "srvr"
    /// `kSecAttrProtocol`.
    package static let `protocol` = "ptcl"
    /// `kSecAttrPort`.
    package static let port = "port"
    /// `kSecAttrPath`.
    package static let path = "path"
    /// `kSecAttrLabel`.
    package static let label = "labl"
    /// `kSecAttrGeneric`.
    package static let generic = "gena"
    /// `kSecAttrComment`.
    package static let comment = "icmt"
    /// `kSecAttrIsInvisible`.
    package static let isInvisible = "invi"
    /// `kSecAttrDescription`.
    package static let description = "desc"
    /// `kSecAttrSecurityDomain`.
    package static let securityDomain = "sdmn"
    /// `kSecAttrAuthenticationType`.
    package static let authenticationType = "atyp"
    /// `kSecAttrCreationDate`.
    package static let creationDate = "cdat"
    /// `kSecAttrModificationDate`.
    package static let modificationDate = "mdat"
    /// `kSecAttrSynchronizable`.
    package static let synchronizable = "sync"
    /// `kSecAttrSynchronizableAny`.
    package static let synchronizableAny = "syna"
    /// `kSecMatchLimitOne`.
    package static let matchLimitOne = "m_LimitOne"
    /// `kSecMatchLimit`.
    package static let matchLimit = "m_Limit"
    /// `kSecMatchLimitAll`.
    package static let matchLimitAll = "m_LimitAll"
    /// `kSecReturnAttributes`.
    package static let returnAttributes = "r_Attributes"
    /// `kSecReturnData`.
    package static let returnData = "r_Data"
    /// `kSecReturnPersistentRef`.
    package static let returnPersistentRef = "r_PersistentRef"
    /// `kSecValueData`.
    package static let valueData = "v_Data"
    /// `kSecValuePersistentRef`.
    package static let valuePersistentRef = "v_PersistentRef"
}
