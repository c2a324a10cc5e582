// Changing a keychain file's password. Apple keeps this call private (macOS SPI in
// SecKeychainPriv.h, not under `import Security`), so it lives here with its macOS signature:
// keychainctl and other Linux tools need it, code meant for Apple platforms cannot use it.

import KeychainEngine
import KeychainServicesPortable

/// Linux only (Apple: private `SecKeychainChangePassword`, macOS SPI): changes the password of
/// `keychainRef`.
///
/// Replaces the class keys and re-wraps every item key under them; payloads are not
/// re-encrypted. A zero-length new password removes the password. The unlock shared with the
/// user's other processes is replaced with the new keys (the old ones no longer open anything),
/// or withdrawn when the password is removed. A wrong old password is `errSecAuthFailed`, a
/// missing keychain `errSecNoSuchKeychain`.
@discardableResult
public func SecKeychainChangePassword(
    _ keychainRef: SecKeychain, _ oldPasswordLength: UInt32, _ oldPassword: UnsafeRawPointer,
    _ newPasswordLength: UInt32, _ newPassword: UnsafeRawPointer
) -> OSStatus {
    keychainCallStatus { () throws(KeychainCallFailure) in
        try KeychainLifecycle.apple.changePassword(keychainRef.path, from: passwordData(oldPasswordLength, oldPassword),
                                                   to: passwordData(newPasswordLength, newPassword))
    }
}
