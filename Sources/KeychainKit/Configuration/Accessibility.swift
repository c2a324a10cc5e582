import KeychainServices

/// When an item's secret can be read, and whether it may leave the device: Apple's five
/// accessibility classes (`kSecAttrAccessible`).
///
/// | Class | Readable | Leaves the device (backup, iCloud) |
/// |---|---|---|
/// | ``whenUnlocked`` | while unlocked | yes |
/// | ``afterFirstUnlock`` | after the first unlock since boot | yes |
/// | ``whenUnlockedThisDeviceOnly`` | while unlocked | no |
/// | ``afterFirstUnlockThisDeviceOnly`` (KeychainKit's default) | after the first unlock since boot | no |
/// | ``whenPasscodeSetThisDeviceOnly`` | while unlocked, and only if a passcode is set | no |
///
/// The deprecated `kSecAttrAccessibleAlways…` classes are deliberately absent.
public enum Accessibility: Sendable, Hashable, CaseIterable {
    /// Readable only while the device is unlocked; migrates to a new device through an encrypted
    /// backup (`kSecAttrAccessibleWhenUnlocked`).
    case whenUnlocked

    /// Readable from the first unlock after a restart until the next restart, also in the
    /// background; migrates through an encrypted backup (`kSecAttrAccessibleAfterFirstUnlock`).
    case afterFirstUnlock

    /// Readable only while unlocked; never leaves this device
    /// (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly`).
    case whenUnlockedThisDeviceOnly

    /// Readable from the first unlock after a restart, also in the background; never leaves this
    /// device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`). KeychainKit's default.
    case afterFirstUnlockThisDeviceOnly

    /// Readable only while unlocked and only while the device has a passcode; never leaves this
    /// device, and removing the passcode destroys the item
    /// (`kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`).
    case whenPasscodeSetThisDeviceOnly

    /// Whether items of this class stay on this device (never backed up, never synchronized).
    public var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlocked, .afterFirstUnlock: false
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: true
        }
    }

    /// The `kSecAttrAccessible` value for this class.
    public var attributeValue: CFString {
        switch self {
        case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
        case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
        }
    }

    /// The class whose `kSecAttrAccessible` value is `attributeValue`, or `nil` for any other
    /// string (including the deprecated "always" classes).
    ///
    /// - Parameter attributeValue: A value read from `kSecAttrAccessible`.
    public init?(attributeValue: String) {
        guard let match = Self.allCases.first(where: { ($0.attributeValue as String) == attributeValue }) else {
            return nil
        }
        self = match
    }
}

extension Accessibility: CustomStringConvertible {
    /// The case name, for example `afterFirstUnlockThisDeviceOnly`.
    public var description: String {
        switch self {
        case .whenUnlocked: "whenUnlocked"
        case .afterFirstUnlock: "afterFirstUnlock"
        case .whenUnlockedThisDeviceOnly: "whenUnlockedThisDeviceOnly"
        case .afterFirstUnlockThisDeviceOnly: "afterFirstUnlockThisDeviceOnly"
        case .whenPasscodeSetThisDeviceOnly: "whenPasscodeSetThisDeviceOnly"
        }
    }
}
