import Foundation
import KeychainServices
#if KEYCHAINKIT_REIMPLEMENTED
import KeychainServicesExtras
#endif

/// Changing a keychain's password: `SecKeychainChangePassword` is private on macOS (SPI, not in
/// the SDK headers), so this is the one call keychainctl cannot make there.
enum KeychainPasswordChange {
    #if !KEYCHAINKIT_REIMPLEMENTED
    /// macOS: not available through the public SDK (`errSecUnimplemented`); use `security set-keychain-password`.
    static func change(_ keychain: SecKeychain, from old: Data, to new: Data) -> OSStatus { errSecUnimplemented }
    #else
    /// Replaces the keychain's class keys and re-wraps its item keys under the new password
    /// (`SecKeychainChangePassword`).
    static func change(_ keychain: SecKeychain, from old: Data, to new: Data) -> OSStatus {
        old.withUnsafeBytes { oldBytes in
            new.withUnsafeBytes { newBytes in
                let empty: [UInt8] = [0]
                return empty.withUnsafeBytes { placeholder in
                    SecKeychainChangePassword(keychain, UInt32(oldBytes.count), oldBytes.baseAddress ?? placeholder.baseAddress!,
                                              UInt32(newBytes.count), newBytes.baseAddress ?? placeholder.baseAddress!)
                }
            }
        }
    }
    #endif
}
