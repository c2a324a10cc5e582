/// An item's access control (`kSecAttrAccessControl` in an attributes result) as it crosses the
/// service's socket: its protection class and Apple's `SecAccessControlCreateFlags` bits. The
/// biometric domain state stays in the service: a result only shows what the item requires.
package struct ServiceAccessControl: Equatable, Sendable {
    /// The attribute's key in SecItem dictionaries (`kSecAttrAccessControl`).
    package static let attributeKey = "accc"
    /// The key of the protection class in the form sent.
    package static let protectionKey = "pdmn"
    /// The key of the flags in the form sent.
    package static let flagsKey = "flags"

    /// The protection class's raw value (`ak`, `cku`, …).
    package var protection: String
    /// The `SecAccessControlCreateFlags` bits.
    package var flags: UInt64

    package init(protection: String, flags: UInt64) {
        self.protection = protection
        self.flags = flags
    }
}

extension ServiceAccessControl {
    /// The refusal of `flags` the keychain service cannot honour yet (nil: all served): biometry
    /// (`.biometryAny`, `.biometryCurrentSet`: the service has no fingerprint reader of the
    /// user's session) and `.privateKeyUsage` (the service would have to use the key itself).
    /// `.devicePasscode`, `.userPresence` (the keychain password), `.applicationPassword`,
    /// `.companion`, `.or` and `.and` are served.
    package static func unservedFlagsReason(_ flags: UInt64) -> String? {
        let unserved: [(bit: UInt64, name: String, workaround: String)] = [
            (1 << 1, ".biometryAny", "use .userPresence or .devicePasscode (the keychain password)"),
            (1 << 3, ".biometryCurrentSet", "use .userPresence or .devicePasscode (the keychain password)"),
            (1 << 30, ".privateKeyUsage", "the service would have to use the key itself"),
        ]
        guard let refused = unserved.first(where: { flags & $0.bit != 0 }) else { return nil }
        return "access control with \(refused.name) is not served by the keychain service yet (\(refused.workaround)); "
            + "unset KEYCHAINKIT_SERVICE_SOCKET to keep the item in the embedded keychain"
    }
}
