// Changing a keychain file's password. Apple keeps this call private (macOS SPI in
// SecKeychainPriv.h, not under `import Security`), so it lives here with its macOS signature:
// keychainctl and other Linux tools need it, code meant for Apple platforms cannot use it.

import KeychainClient  // KeychainFileCalls: the one implementation of the keychain lifecycle
import KeychainEngine
import KeychainServicesPortable

/// Linux only (Apple: private `SecKeychainChangePassword`, macOS SPI): changes the password of
/// `keychainRef`.
///
/// Replaces the class keys and re-wraps every item key under them; payloads are not
/// re-encrypted. A zero-length new password removes the password. The unlock shared with the
/// user's other processes is replaced with the new keys (the old ones no longer open anything),
/// or withdrawn when the password is removed. A wrong old password is `errSecAuthFailed`, a
/// missing keychain `errSecNoSuchKeychain`. In service mode the login keychain's password is
/// changed in the service, which re-wraps its keys there (and delays further attempts after
/// repeated wrong passwords).
@discardableResult
public func SecKeychainChangePassword(
    _ keychainRef: SecKeychain, _ oldPasswordLength: UInt32, _ oldPassword: UnsafeRawPointer,
    _ newPasswordLength: UInt32, _ newPassword: UnsafeRawPointer
) -> OSStatus {
    var old = passwordData(oldPasswordLength, oldPassword)
    var new = passwordData(newPasswordLength, newPassword)
    defer {
        wipe(&old)
        wipe(&new)
    }
    return keychainCallStatus { () throws(KeychainCallFailure) in try KeychainFileCalls.changePassword(keychainRef.path, from: old, to: new) }
}

/// Overwrites a password's bytes once the call is done with them.
private func wipe(_ secret: inout Data?) {
    guard let count = secret?.count else { return }
    secret?.resetBytes(in: 0..<count)
}
