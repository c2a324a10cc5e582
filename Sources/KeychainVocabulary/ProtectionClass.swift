/// An accessibility class (`kSecAttrAccessible…`), named by Apple's short string.
///
/// It decides which class key wraps an item's key and so when the item can be read.
package enum ProtectionClass: String, Sendable, CaseIterable, Hashable {
    /// `kSecAttrAccessibleWhenUnlocked`.
    case whenUnlocked = "ak"
    /// `kSecAttrAccessibleAfterFirstUnlock`.
    case afterFirstUnlock = "ck"
    /// `kSecAttrAccessibleAlways` (deprecated by Apple).
    case always = "dk"
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`.
    case whenUnlockedThisDeviceOnly = "aku"
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// `kSecAttrAccessibleAlwaysThisDeviceOnly` (deprecated by Apple).
    case alwaysThisDeviceOnly = "dku"
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`.
    case whenPasscodeSetThisDeviceOnly = "akpu"

    /// When the class key is available.
    package enum Availability: Sendable {
        /// Only while the keychain is unlocked.
        case whenUnlocked
        /// From the first unlock until the process (the "session") ends.
        case afterFirstUnlock
        /// Always, even while locked.
        case always
    }

    /// When items of this class can be read.
    package var availability: Availability {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: return .whenUnlocked
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: return .afterFirstUnlock
        case .always, .alwaysThisDeviceOnly: return .always
        }
    }

    /// Whether the class key is also bound to this device's key, so a copied file cannot open it.
    package var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly,
             .whenPasscodeSetThisDeviceOnly:
            return true
        case .whenUnlocked, .afterFirstUnlock, .always:
            return false
        }
    }

    /// Whether the class key exists only while the keychain has a password.
    package var requiresPassword: Bool { self == .whenPasscodeSetThisDeviceOnly }
}
