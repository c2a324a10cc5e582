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
