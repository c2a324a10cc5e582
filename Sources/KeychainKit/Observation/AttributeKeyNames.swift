import KeychainServices

/// Apple's constant names for the keys of SecItem dictionaries, so that an event says
/// `kSecAttrAccount` rather than the key's raw value (`"acct"`).
///
/// Every name here is declared, not deprecated, in Apple's Security framework for iOS and macOS
/// alike. A key not listed is shown by its raw string, quoted and escaped: a key, never a value.
enum AttributeKeyNames {
    /// What an event may say about one key: its constant's name and, for the attributes that
    /// name an item, which identifying attribute it is.
    struct Entry {
        let name: String
        let identifying: KeychainEvent.IdentifyingAttribute?
        let isClass: Bool
    }

    /// The entry for `key`, or `nil` for a key Apple does not declare.
    static func entry(for key: String) -> Entry? {
        entries[key]
    }

    /// Apple gives `kSecAttrKeyType` and `kSecAttrType` the same raw value; in a key item's
    /// dictionary it is the key type.
    static let keyTypeName = "kSecAttrKeyType"
    static let typeName = "kSecAttrType"

    /// The identifying attributes by key.
    private static let identifying: [String: KeychainEvent.IdentifyingAttribute] = [
        kSecAttrService as String: .service,
        kSecAttrAccount as String: .account,
        kSecAttrServer as String: .server,
        kSecAttrLabel as String: .label,
        kSecAttrAccessGroup as String: .accessGroup,
        kSecAttrApplicationTag as String: .applicationTag,
    ]

    private static let entries: [String: Entry] = Dictionary(
        uniqueKeysWithValues: names.map { key, name in (key, Entry(name: name, identifying: identifying[key], isClass: key == kSecClass as String)) }
    )

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
