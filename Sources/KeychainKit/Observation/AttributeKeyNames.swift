import KeychainServices

/// Apple's constant names for the keys of SecItem dictionaries, so that an event says
/// `kSecAttrAccount` rather than the key's raw value (`"acct"`).
///
/// Every name here is declared, not deprecated, in Apple's Security framework for iOS and macOS
/// alike. A key not listed is shown by its raw string, which is a key and never a value.
enum AttributeKeyNames {
    /// The constant name of `key`; `itemClass` tells apart `kSecAttrKeyType` and `kSecAttrType`,
    /// which Apple gives the same raw value.
    static func name(of key: String, itemClass: KeychainEvent.ItemClass?) -> String {
        if key == kSecAttrKeyType as String, itemClass == .key {
            return "kSecAttrKeyType"
        }
        return names[key] ?? key
    }

    /// Raw key → constant name. On a raw-value collision the first entry wins (`kSecAttrType`
    /// before `kSecAttrKeyType`, `kSecAttrPersistentReference` before its misspelled alias).
    private static let names: [String: String] = Dictionary(
        [
            (kSecClass, "kSecClass"),
            // Attributes.
            (kSecAttrAccessControl, "kSecAttrAccessControl"),
            (kSecAttrAccessGroup, "kSecAttrAccessGroup"),
            (kSecAttrAccessible, "kSecAttrAccessible"),
            (kSecAttrAccount, "kSecAttrAccount"),
            (kSecAttrApplicationLabel, "kSecAttrApplicationLabel"),
            (kSecAttrApplicationTag, "kSecAttrApplicationTag"),
            (kSecAttrAuthenticationType, "kSecAttrAuthenticationType"),
            (kSecAttrCanDecrypt, "kSecAttrCanDecrypt"),
            (kSecAttrCanDerive, "kSecAttrCanDerive"),
            (kSecAttrCanEncrypt, "kSecAttrCanEncrypt"),
            (kSecAttrCanSign, "kSecAttrCanSign"),
            (kSecAttrCanUnwrap, "kSecAttrCanUnwrap"),
            (kSecAttrCanVerify, "kSecAttrCanVerify"),
            (kSecAttrCanWrap, "kSecAttrCanWrap"),
            (kSecAttrCertificateEncoding, "kSecAttrCertificateEncoding"),
            (kSecAttrCertificateType, "kSecAttrCertificateType"),
            (kSecAttrComment, "kSecAttrComment"),
            (kSecAttrCreationDate, "kSecAttrCreationDate"),
            (kSecAttrCreator, "kSecAttrCreator"),
            (kSecAttrDescription, "kSecAttrDescription"),
            (kSecAttrEffectiveKeySize, "kSecAttrEffectiveKeySize"),
            (kSecAttrGeneric, "kSecAttrGeneric"),
            (kSecAttrIsExtractable, "kSecAttrIsExtractable"),
            (kSecAttrIsInvisible, "kSecAttrIsInvisible"),
            (kSecAttrIsNegative, "kSecAttrIsNegative"),
            (kSecAttrIsPermanent, "kSecAttrIsPermanent"),
            (kSecAttrIsSensitive, "kSecAttrIsSensitive"),
            (kSecAttrIssuer, "kSecAttrIssuer"),
            (kSecAttrKeyClass, "kSecAttrKeyClass"),
            (kSecAttrKeySizeInBits, "kSecAttrKeySizeInBits"),
            (kSecAttrType, "kSecAttrType"),
            (kSecAttrKeyType, "kSecAttrKeyType"),
            (kSecAttrLabel, "kSecAttrLabel"),
            (kSecAttrModificationDate, "kSecAttrModificationDate"),
            (kSecAttrPath, "kSecAttrPath"),
            (kSecAttrPersistentReference, "kSecAttrPersistentReference"),
            (kSecAttrPersistantReference, "kSecAttrPersistantReference"),
            (kSecAttrPort, "kSecAttrPort"),
            (kSecAttrProtocol, "kSecAttrProtocol"),
            (kSecAttrPublicKeyHash, "kSecAttrPublicKeyHash"),
            (kSecAttrSecurityDomain, "kSecAttrSecurityDomain"),
            (kSecAttrSerialNumber, "kSecAttrSerialNumber"),
            (kSecAttrServer, "kSecAttrServer"),
            (kSecAttrService, "kSecAttrService"),
            (kSecAttrSubject, "kSecAttrSubject"),
            (kSecAttrSubjectKeyID, "kSecAttrSubjectKeyID"),
            (kSecAttrSyncViewHint, "kSecAttrSyncViewHint"),
            (kSecAttrSynchronizable, "kSecAttrSynchronizable"),
            (kSecAttrTokenID, "kSecAttrTokenID"),
            // Search.
            (kSecMatchCaseInsensitive, "kSecMatchCaseInsensitive"),
            (kSecMatchEmailAddressIfPresent, "kSecMatchEmailAddressIfPresent"),
            (kSecMatchHostOrSubdomainOfHost, "kSecMatchHostOrSubdomainOfHost"),
            (kSecMatchIssuers, "kSecMatchIssuers"),
            (kSecMatchItemList, "kSecMatchItemList"),
            (kSecMatchLimit, "kSecMatchLimit"),
            (kSecMatchPolicy, "kSecMatchPolicy"),
            (kSecMatchSearchList, "kSecMatchSearchList"),
            (kSecMatchSubjectContains, "kSecMatchSubjectContains"),
            (kSecMatchTrustedOnly, "kSecMatchTrustedOnly"),
            (kSecMatchValidOnDate, "kSecMatchValidOnDate"),
            // Results, values and options.
            (kSecReturnAttributes, "kSecReturnAttributes"),
            (kSecReturnData, "kSecReturnData"),
            (kSecReturnPersistentRef, "kSecReturnPersistentRef"),
            (kSecReturnRef, "kSecReturnRef"),
            (kSecValueData, "kSecValueData"),
            (kSecValuePersistentRef, "kSecValuePersistentRef"),
            (kSecValueRef, "kSecValueRef"),
            (kSecUseAuthenticationContext, "kSecUseAuthenticationContext"),
            (kSecUseAuthenticationUI, "kSecUseAuthenticationUI"),
            (kSecUseDataProtectionKeychain, "kSecUseDataProtectionKeychain"),
        ].map { (key: CFString, name: String) in (key as String, name) },
        uniquingKeysWith: { first, _ in first }
    )
}
