import KeychainServices

// Named errors to match on. Each one means exactly one thing; an unlisted code still reaches the
// caller unchanged in `status`.
extension KeychainError {
    /// No item matched (`errSecItemNotFound`, -25300).
    ///
    /// KeychainKit's reads return `nil` instead of throwing this; you see it from operations that
    /// need an existing item.
    public static let itemNotFound = KeychainError(status: errSecItemNotFound)

    /// An item with the same primary key already exists (`errSecDuplicateItem`, -25299).
    public static let duplicateItem = KeychainError(status: errSecDuplicateItem)

    /// The keychain is locked or a prompt would be needed where none is allowed
    /// (`errSecInteractionNotAllowed`, -25308).
    ///
    /// Typical in background launches before the first unlock, or for `whenUnlocked` items
    /// while the device is locked. Not a missing item: retry later, do not overwrite.
    public static let interactionNotAllowed = KeychainError(status: errSecInteractionNotAllowed)

    /// Authentication failed, the item's access control forbids the operation, or an item with
    /// ``AccessControl/biometryCurrentSet`` was written while no biometry is enrolled to bind it to
    /// (`errSecAuthFailed`, -25293). On Linux ``reason`` says which.
    public static let authFailed = KeychainError(status: errSecAuthFailed)

    /// The user dismissed the authentication prompt (`errSecUserCanceled`, -128).
    public static let userCanceled = KeychainError(status: errSecUserCanceled)

    /// The process is not entitled to the access group, or has no keychain entitlement at all
    /// (`errSecMissingEntitlement`, -34018).
    ///
    /// On Apple platforms: add the Keychain Sharing capability or fix the group name. In tests,
    /// use `KeychainKitTesting`, which never needs an entitlement.
    public static let missingEntitlement = KeychainError(status: errSecMissingEntitlement)

    /// The keychain could not decode the stored item (`errSecDecode`, -26275), for example a
    /// corrupt or foreign item.
    public static let decode = KeychainError(status: errSecDecode)

    /// The keychain rejected a parameter (`errSecParam`, -50).
    public static let param = KeychainError(status: errSecParam)

    /// No keychain is available, or a needed capability is missing (`errSecNotAvailable`,
    /// -25291), for example a `whenPasscodeSetThisDeviceOnly` item on a device without a
    /// passcode.
    public static let notAvailable = KeychainError(status: errSecNotAvailable)

    /// The stored bytes could not be decoded as the requested type (UTF-8 text, JSON, a key
    /// representation). Its status is `errSecDecode`; its kind is
    /// ``Kind-swift.struct/decodingFailed``, which tells it apart from ``decode``.
    public static let decodingFailed = KeychainError(status: errSecDecode, kind: .decodingFailed)

    /// A value could not be encoded for storage. Its status is `errSecParam`.
    public static let encodingFailed = KeychainError(status: errSecParam, kind: .encodingFailed)

    /// KeychainKit refused the request before calling the keychain: an empty service or key, a
    /// synchronizable keychain with a ThisDeviceOnly class, access control on a synchronizable
    /// keychain. Its status is `errSecParam`.
    public static let invalidArgument = KeychainError(status: errSecParam, kind: .invalidArgument)

    /// The keychain reported success but returned a result of an unexpected shape. Its status is
    /// `errSecInternalComponent`.
    public static let unexpectedResult = KeychainError(status: errSecInternalComponent, kind: .unexpectedResult)
}

extension KeychainError {
    /// The name of a well-known result code, for descriptions, or `nil`.
    var statusName: String? {
        StatusNames.name(of: status)
    }
}
