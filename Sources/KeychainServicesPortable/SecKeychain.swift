import Foundation
import KeychainClient
import KeychainEngine
import KeychainVocabulary  // AccessControlPolicy: what SecAccessControl objects wrap

/// Apple (macOS): `SecKeychain`, a handle on one keychain file. Handles on the same path share
/// one open keychain, and so its lock state, within the process.
public final class SecKeychain: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// The keychain file's absolute path.
    package let path: String

    init(path: String) { self.path = KeychainLifecycle.apple.resolve(path) }

    /// Equal when they name the same file.
    public static func == (lhs: SecKeychain, rhs: SecKeychain) -> Bool { lhs.path == rhs.path }
    /// Hashes the path.
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }
    /// The path.
    public var description: String { "<SecKeychain \(path)>" }
}

extension KeychainLifecycle {
    /// The service behind Apple's C API, with `SecAccessControl` objects in item results, on the
    /// process's one registry (``ProcessKeychains``: read once from the environment,
    /// `KEYCHAINKIT_*`, checkpointed at exit), which KeychainClient's calls share.
    package static let apple = ItemEdge.apple.lifecycle
}

extension ItemEdge {
    /// The edge of Apple's C API over the process's registry (``ProcessKeychains``, shared with
    /// KeychainClient): `SecAccessControl` objects in item results.
    package static let apple = ItemEdge(accessControlObject: { SecAccessControl($0) })
}

/// Runs a lifecycle call and returns its status (`errSecSuccess`, or the refusal's), with the
/// refusal's cause recorded for this thread (`KeychainFailureDetails`): KeychainClient's.
package func keychainCallStatus(_ call: () throws(KeychainCallFailure) -> Void) -> OSStatus {
    KeychainFileCalls.status(of: call)
}

/// Records `refusal`'s cause for this thread (`KeychainFailureDetails`) and returns its status.
package func reportedStatus(_ refusal: KeychainCallFailure) -> OSStatus {
    KeychainFileCalls.reportedStatus(refusal)
}

/// The login keychain's route to the keychain service, under the name the modules above Apple's
/// API used before it moved to KeychainClient (the Secret Service provider still does).
package typealias SecKeychainServiceRoute = LoginKeychainServiceRoute

/// Apple (macOS): `SecAccess`, the legacy ACL object. Accepted and ignored (pass nil).
public final class SecAccess: Sendable {}

/// Apple (macOS): `SecKeychainStatus`, a bit mask.
public typealias SecKeychainStatus = UInt32
/// Apple: the keychain is unlocked.
public let kSecUnlockStateStatus: UInt32 = 1
/// Apple: the keychain can be read.
public let kSecReadPermStatus: UInt32 = 2
/// Apple: the keychain can be written.
public let kSecWritePermStatus: UInt32 = 4

/// Apple (macOS): `SecKeychainSettings`, the auto-lock settings.
public struct SecKeychainSettings: Sendable, Equatable {
    /// Apple: the structure's version (`SEC_KEYCHAIN_SETTINGS_VERS1` = 1).
    public var version: UInt32
    /// Apple: lock when the machine sleeps (recorded only; Linux has no hook here).
    public var lockOnSleep: DarwinBoolean
    /// Apple: lock after `lockInterval` seconds.
    public var useLockInterval: DarwinBoolean
    /// Apple: the auto-lock interval in seconds.
    public var lockInterval: UInt32

    /// Apple's memberwise initialiser.
    public init(version: UInt32, lockOnSleep: DarwinBoolean, useLockInterval: DarwinBoolean, lockInterval: UInt32) {
        self.version = version
        self.lockOnSleep = lockOnSleep
        self.useLockInterval = useLockInterval
        self.lockInterval = lockInterval
    }

    /// Apple's zero initialiser.
    public init() { self.init(version: 0, lockOnSleep: false, useLockInterval: false, lockInterval: 0) }
}

/// Apple: `SEC_KEYCHAIN_SETTINGS_VERS1`, the version of `SecKeychainSettings` (a C macro,
/// so an `Int32`: write `UInt32(SEC_KEYCHAIN_SETTINGS_VERS1)` for the structure's `version`).
public var SEC_KEYCHAIN_SETTINGS_VERS1: Int32 { 1 }

/// Overwrites a password's bytes once the call is done with them.
private func wipe(_ secret: inout Data?) {
    guard let count = secret?.count else { return }
    secret?.resetBytes(in: 0..<count)
}

package func passwordData(_ length: UInt32, _ bytes: UnsafeRawPointer?) -> Data? {
    guard let bytes else { return nil }
    return Data(bytes: bytes, count: Int(length))
}

/// Apple (macOS): `SecKeychainCreate`. Creates the keychain file with the password (none when
/// the length is 0) and leaves it unlocked, for every process of the user (`SessionKeyring`).
/// An existing file is `errSecDuplicateKeychain`.
/// With `promptUser` there is no dialog: the configured password (`KEYCHAINKIT_PASSWORD_FILE`, the
/// systemd credential `keychainkit.password`) is used, and without one `errSecUnimplemented`
/// (tools prompt, then pass the password).
@discardableResult
public func SecKeychainCreate(
    _ pathName: UnsafePointer<CChar>, _ passwordLength: UInt32, _ password: UnsafeRawPointer?,
    _ promptUser: Bool, _ initialAccess: SecAccess?, _ keychain: UnsafeMutablePointer<SecKeychain?>
) -> OSStatus {
    let path = String(cString: pathName)
    return keychainCallStatus { () throws(KeychainCallFailure) in
        if promptUser {
            // No dialog here: the configured password is what a person would have typed.
            try KeychainFileCalls.createWithConfiguredPassword(at: path)
        } else {
            var secret = passwordData(passwordLength, password)
            defer { wipe(&secret) }
            try KeychainFileCalls.create(at: path, password: secret)
        }
        keychain.pointee = SecKeychain(path: path)
    }
}

/// Apple (macOS): `SecKeychainOpen`. Always succeeds, as on macOS; a missing file is reported by
/// the first operation that uses the handle.
@discardableResult
public func SecKeychainOpen(_ pathName: UnsafePointer<CChar>, _ keychain: UnsafeMutablePointer<SecKeychain?>) -> OSStatus {
    keychain.pointee = SecKeychain(path: String(cString: pathName))
    return errSecSuccess
}

/// Apple (macOS): `SecKeychainCopyDefault`: the default keychain (`SecKeychainSetDefault`, else
/// `KEYCHAINKIT_KEYCHAIN`, else the XDG path).
@discardableResult
public func SecKeychainCopyDefault(_ keychain: UnsafeMutablePointer<SecKeychain?>) -> OSStatus {
    keychain.pointee = SecKeychain(path: KeychainFileCalls.defaultKeychainPath)
    return errSecSuccess
}

/// Apple (macOS): `SecKeychainSetDefault`, for this process; nil returns to the environment's default.
@discardableResult
public func SecKeychainSetDefault(_ keychain: SecKeychain?) -> OSStatus {
    KeychainFileCalls.setDefaultKeychain(keychain?.path)
    return errSecSuccess
}

/// Apple (macOS): `SecKeychainLock`; nil locks the default keychain. The lock also withdraws
/// the unlock shared with the user's other processes (`SessionKeyring`).
@discardableResult
public func SecKeychainLock(_ keychain: SecKeychain?) -> OSStatus {
    keychainCallStatus { () throws(KeychainCallFailure) in try KeychainFileCalls.lock(keychain?.path) }
}

/// Apple (macOS): `SecKeychainLockAll`: locks every keychain this process has open.
@discardableResult
public func SecKeychainLockAll() -> OSStatus {
    KeychainFileCalls.lockAll()
    return errSecSuccess
}

/// Apple (macOS): `SecKeychainUnlock`; nil unlocks the default keychain. With `usePassword`
/// false the password comes from `KEYCHAINKIT_PASSWORD_FILE` (there is no unlock dialog);
/// without one the call fails with `errSecInteractionNotAllowed`, unless the keychain is already
/// unlocked. A wrong password is `errSecAuthFailed`. The unlock is shared with the user's other
/// processes through the kernel keyring (`SessionKeyring`).
@discardableResult
public func SecKeychainUnlock(
    _ keychain: SecKeychain?, _ passwordLength: UInt32, _ password: UnsafeRawPointer?, _ usePassword: Bool
) -> OSStatus {
    var secret = usePassword ? passwordData(passwordLength, password) ?? Data() : nil
    defer { wipe(&secret) }
    return keychainCallStatus { () throws(KeychainCallFailure) in try KeychainFileCalls.unlock(keychain?.path, password: secret) }
}

/// Apple (macOS): `SecKeychainGetStatus`: unlocked, readable and writable bits.
@discardableResult
public func SecKeychainGetStatus(_ keychain: SecKeychain?, _ keychainStatus: UnsafeMutablePointer<SecKeychainStatus>) -> OSStatus {
    keychainCallStatus { () throws(KeychainCallFailure) in
        let unlocked = try KeychainFileCalls.isUnlocked(keychain?.path)
        keychainStatus.pointee = unlocked ? kSecUnlockStateStatus | kSecReadPermStatus | kSecWritePermStatus : 0
    }
}

/// Apple (macOS): `SecKeychainDelete`: removes the keychain file and its WAL files, its shared
/// unlock from the kernel keyring and, last, its rollback anchor if it has one.
///
/// Only a verified keychain is deleted: the path must name a regular file (not a directory, not
/// a symlink) that opens as a keychain of this user (its schema and metadata are checked by the
/// open). Anything else is `errSecInvalidKeychain` (-25295) and nothing is removed; a damaged
/// keychain that no longer opens has to be removed by hand. The `-wal`/`-shm` files are removed
/// only when they are regular files.
@discardableResult
public func SecKeychainDelete(_ keychainOrArray: SecKeychain?) -> OSStatus {
    guard let keychain = keychainOrArray else { return errSecInvalidKeychain }
    return keychainCallStatus { () throws(KeychainCallFailure) in try KeychainFileCalls.delete(keychain.path) }
}

/// Apple (macOS): `SecKeychainGetPath`. `ioPathLength` holds the buffer size on entry and the
/// path length on return; a buffer too small is `errSecBufferTooSmall`.
@discardableResult
public func SecKeychainGetPath(
    _ keychain: SecKeychain?, _ ioPathLength: UnsafeMutablePointer<UInt32>, _ pathName: UnsafeMutablePointer<CChar>
) -> OSStatus {
    let bytes = Array((keychain?.path ?? KeychainFileCalls.defaultKeychainPath).utf8CString)
    guard Int(ioPathLength.pointee) >= bytes.count else { return errSecBufferTooSmall }
    for (index, byte) in bytes.enumerated() { pathName[index] = byte }
    ioPathLength.pointee = UInt32(bytes.count - 1)
    return errSecSuccess
}

/// Apple (macOS): `SecKeychainCopySettings`.
@discardableResult
public func SecKeychainCopySettings(_ keychain: SecKeychain?, _ outSettings: UnsafeMutablePointer<SecKeychainSettings>) -> OSStatus {
    keychainCallStatus { () throws(KeychainCallFailure) in
        let seconds = try KeychainFileCalls.autoLockSeconds(keychain?.path)
        let lockOnSleep = try KeychainFileCalls.locksOnSleep(keychain?.path)
        outSettings.pointee = SecKeychainSettings(version: UInt32(SEC_KEYCHAIN_SETTINGS_VERS1), lockOnSleep: DarwinBoolean(lockOnSleep),
                                                  useLockInterval: DarwinBoolean(seconds > 0), lockInterval: UInt32(clamping: seconds))
    }
}

/// Apple (macOS): `SecKeychainSetSettings`: stores the auto-lock interval in the keychain file.
/// In service mode the service stores it and `lockOnSleep` too (the service locks the keychain
/// when the machine has slept); a keychain file records no `lockOnSleep`.
@discardableResult
public func SecKeychainSetSettings(_ keychain: SecKeychain?, _ newSettings: UnsafePointer<SecKeychainSettings>) -> OSStatus {
    let settings = newSettings.pointee
    return keychainCallStatus { () throws(KeychainCallFailure) in
        try KeychainFileCalls.setAutoLock(seconds: settings.useLockInterval.boolValue ? settings.lockInterval : 0,
                                          lockOnSleep: settings.lockOnSleep.boolValue, keychain?.path)
    }
}
