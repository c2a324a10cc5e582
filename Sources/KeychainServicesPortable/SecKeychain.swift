import Foundation
import KeychainEngine
import KeychainStore

/// Apple (macOS): `SecKeychain`, a handle on one keychain file. Handles on the same path share
/// one open keychain, and so its lock state, within the process.
public final class SecKeychain: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// The keychain file's absolute path.
    package let path: String

    init(path: String) { self.path = KeychainLocation.absolute(path) }

    /// The open keychain, opened on first use. A keychain that does not exist is
    /// `errSecNoSuchKeychain`: handles never create files (only `SecKeychainCreate` does, and the
    /// default keychain, which is created by the first item stored in it: `creatingDefault`).
    /// A missing default keychain is `.keychainMissing` (errSecItemNotFound) for anything else.
    package func database(createIfMissing: Bool = false, creatingDefault: Bool = false) throws(KeychainStoreError) -> KeychainDatabase {
        FailureReport.beginCall()
        let registry = KeychainRegistry.shared
        // An open keychain also goes through `database(at:)`, which brings its lock state up to
        // date with the session's.
        if registry.openDatabase(at: path) != nil || path == registry.defaultKeychainPath {
            return try registry.database(at: path, createIfMissing: createIfMissing || creatingDefault)
        }
        guard FileManager.default.fileExists(atPath: path) || createIfMissing else {
            throw .unusableKeychain("no such keychain")
        }
        return try registry.database(at: path)
    }

    /// Equal when they name the same file.
    public static func == (lhs: SecKeychain, rhs: SecKeychain) -> Bool { lhs.path == rhs.path }
    /// Hashes the path.
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }
    /// The path.
    public var description: String { "<SecKeychain \(path)>" }
}

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

/// Apple: `errSecNoSuchKeychain` status for a missing file, otherwise the store's status.
package func keychainCallStatus(_ error: KeychainStoreError) -> OSStatus {
    FailureReport.fail(error)
    if case .unusableKeychain("no such keychain") = error.reason { return errSecNoSuchKeychain }
    // A SecKeychain call names a keychain: a missing one is "no such keychain" here, not the
    // "no such item" a SecItem read on a not yet created default keychain answers.
    if case .keychainMissing = error.reason { return errSecNoSuchKeychain }
    return error.osStatus
}

package func passwordData(_ length: UInt32, _ bytes: UnsafeRawPointer?) -> Data? {
    guard let bytes else { return nil }
    return Data(bytes: bytes, count: Int(length))
}

/// Apple (macOS): `SecKeychainCreate`. Creates the keychain file with the password (none when
/// the length is 0) and leaves it unlocked, for every process of the user (`SessionKeyring`).
/// An existing file is `errSecDuplicateKeychain`.
/// `promptUser` is not supported (`errSecUnimplemented`): tools prompt, then pass the password.
@discardableResult
public func SecKeychainCreate(
    _ pathName: UnsafePointer<CChar>, _ passwordLength: UInt32, _ password: UnsafeRawPointer?,
    _ promptUser: Bool, _ initialAccess: SecAccess?, _ keychain: UnsafeMutablePointer<SecKeychain?>
) -> OSStatus {
    if promptUser { return errSecUnimplemented }
    let path = KeychainLocation.absolute(String(cString: pathName))
    if FileManager.default.fileExists(atPath: path) { return errSecDuplicateKeychain }
    do {
        let creatingPassword = passwordData(passwordLength, password)
        if let requirement = KeychainRegistry.shared.configuration.storageRequirement {  // KEYCHAINKIT_REQUIRE
            try requirement.check((creatingPassword?.isEmpty ?? true) ? .none : .password, path: path, creating: true)
        }
        var options = KeychainRegistry.shared.options()
        options.createIfMissing = true
        let database = try KeychainDatabase.open(path: path, password: creatingPassword, options: options)
        KeychainRegistry.shared.register(database)
        if try SessionKeyring.publish(database) { KeychainRegistry.shared.markUnlockSharedWithSession(database) }
        keychain.pointee = SecKeychain(path: path)
        return errSecSuccess
    } catch {
        return keychainCallStatus(error)
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
    keychain.pointee = SecKeychain(path: KeychainRegistry.shared.defaultKeychainPath)
    return errSecSuccess
}

/// Apple (macOS): `SecKeychainSetDefault`, for this process; nil returns to the environment's default.
@discardableResult
public func SecKeychainSetDefault(_ keychain: SecKeychain?) -> OSStatus {
    KeychainRegistry.shared.setDefaultKeychainPath(keychain?.path)
    return errSecSuccess
}

/// Apple (macOS): `SecKeychainLock`; nil locks the default keychain. The lock also withdraws
/// the unlock shared with the user's other processes (`SessionKeyring`).
@discardableResult
public func SecKeychainLock(_ keychain: SecKeychain?) -> OSStatus {
    do {
        let handle = keychain ?? SecKeychain(path: KeychainRegistry.shared.defaultKeychainPath)
        let database = try handle.database()
        database.lockKeychain()
        SessionKeyring.withdraw([.whenUnlocked], of: database)
        return errSecSuccess
    } catch {
        return keychainCallStatus(error)
    }
}

/// Apple (macOS): `SecKeychainLockAll`: locks every keychain this process has open.
@discardableResult
public func SecKeychainLockAll() -> OSStatus {
    for database in KeychainRegistry.shared.openDatabases {
        database.lockKeychain()
        SessionKeyring.withdraw([.whenUnlocked], of: database)
    }
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
    do {
        let handle = keychain ?? SecKeychain(path: KeychainRegistry.shared.defaultKeychainPath)
        let database = try handle.database()
        if usePassword {
            try database.unlock(password: passwordData(passwordLength, password) ?? Data())
        } else if let fromFile = try KeychainRegistry.shared.configuration.passwordFromFile() {
            try database.unlock(password: fromFile)
        } else if try database.status.isUnlocked {
            return errSecSuccess
        } else if try database.status.hasPassword {
            return errSecInteractionNotAllowed
        } else {
            try database.unlock(password: nil)
        }
        if try SessionKeyring.publish(database) { KeychainRegistry.shared.markUnlockSharedWithSession(database) }
        return errSecSuccess
    } catch {
        return keychainCallStatus(error)
    }
}

/// Apple (macOS): `SecKeychainGetStatus`: unlocked, readable and writable bits.
@discardableResult
public func SecKeychainGetStatus(_ keychain: SecKeychain?, _ keychainStatus: UnsafeMutablePointer<SecKeychainStatus>) -> OSStatus {
    do {
        let handle = keychain ?? SecKeychain(path: KeychainRegistry.shared.defaultKeychainPath)
        let current = try handle.database().status
        keychainStatus.pointee = current.isUnlocked
            ? kSecUnlockStateStatus | kSecReadPermStatus | kSecWritePermStatus : 0
        return errSecSuccess
    } catch {
        return keychainCallStatus(error)
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
    var info = stat()
    guard lstat(keychain.path, &info) == 0 else { return errno == ENOENT ? errSecNoSuchKeychain : errSecIO }
    guard info.st_mode & S_IFMT == S_IFREG else { return errSecInvalidKeychain }
    let anchorPath: String?
    do {
        let database = try keychain.database()
        SessionKeyring.withdraw(SessionKeyring.Entry.allCases, of: database)
        anchorPath = database.rollbackAnchorPath
    } catch {
        return errSecInvalidKeychain
    }
    KeychainRegistry.shared.forget(path: keychain.path)
    for suffix in ["", "-wal", "-shm"] {
        var companion = stat()
        guard lstat(keychain.path + suffix, &companion) == 0, companion.st_mode & S_IFMT == S_IFREG else { continue }
        guard unlink(keychain.path + suffix) == 0 || errno == ENOENT else { return errSecIO }
    }
    // Only once the file is gone: an anchor must not disappear while its keychain still exists.
    if let anchorPath, FileManager.default.fileExists(atPath: anchorPath) {
        do { try FileManager.default.removeItem(atPath: anchorPath) } catch { return errSecIO }
    }
    return errSecSuccess
}

/// Apple (macOS): `SecKeychainGetPath`. `ioPathLength` holds the buffer size on entry and the
/// path length on return; a buffer too small is `errSecBufferTooSmall`.
@discardableResult
public func SecKeychainGetPath(
    _ keychain: SecKeychain?, _ ioPathLength: UnsafeMutablePointer<UInt32>, _ pathName: UnsafeMutablePointer<CChar>
) -> OSStatus {
    let handle = keychain ?? SecKeychain(path: KeychainRegistry.shared.defaultKeychainPath)
    let bytes = Array(handle.path.utf8CString)
    guard Int(ioPathLength.pointee) >= bytes.count else { return errSecBufferTooSmall }
    for (index, byte) in bytes.enumerated() { pathName[index] = byte }
    ioPathLength.pointee = UInt32(bytes.count - 1)
    return errSecSuccess
}

/// Apple (macOS): `SecKeychainCopySettings`.
@discardableResult
public func SecKeychainCopySettings(_ keychain: SecKeychain?, _ outSettings: UnsafeMutablePointer<SecKeychainSettings>) -> OSStatus {
    do {
        let handle = keychain ?? SecKeychain(path: KeychainRegistry.shared.defaultKeychainPath)
        let seconds = try handle.database().status.autoLockSeconds
        outSettings.pointee = SecKeychainSettings(version: UInt32(SEC_KEYCHAIN_SETTINGS_VERS1), lockOnSleep: false,
                                                  useLockInterval: DarwinBoolean(seconds > 0), lockInterval: UInt32(clamping: seconds))
        return errSecSuccess
    } catch {
        return keychainCallStatus(error)
    }
}

/// Apple (macOS): `SecKeychainSetSettings`: stores the auto-lock interval in the keychain file.
@discardableResult
public func SecKeychainSetSettings(_ keychain: SecKeychain?, _ newSettings: UnsafePointer<SecKeychainSettings>) -> OSStatus {
    do {
        let handle = keychain ?? SecKeychain(path: KeychainRegistry.shared.defaultKeychainPath)
        let settings = newSettings.pointee
        try handle.database().setAutoLockTimeout(seconds: settings.useLockInterval.boolValue ? Int(settings.lockInterval) : 0)
        return errSecSuccess
    } catch {
        return keychainCallStatus(error)
    }
}
