#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainVocabulary

/// The keychain lifecycle on Swift values, for the tools: create, unlock, lock, status, settings,
/// password change, deletion and storage security of a keychain named by its path (nil: the
/// default keychain). Each call goes to the keychain service when it holds that keychain (the
/// login keychain while `KEYCHAINKIT_SERVICE_SOCKET` is set: ``LoginKeychainServiceRoute``), else
/// to the embedded engine over the process's registry (``ProcessKeychains``).
///
/// This is the one implementation: Apple's `SecKeychain…` functions (KeychainServicesPortable) and
/// the Linux extras (`SecKeychainChangePassword`, `SecKeychainCopyStorageSecurity`) are shaped
/// wrappers around it. Failures throw ``KeychainCallFailure``; ``status(of:)`` turns a call into
/// Apple's status with the cause recorded for ``KeychainClient/failureReason(for:)``.
package enum KeychainFileCalls {
    private static var lifecycle: KeychainLifecycle { ItemEdge.swift.lifecycle }

    /// Runs a lifecycle call and returns its status (`errSecSuccess`, or the refusal's), with the
    /// refusal's cause recorded for this thread (``KeychainClient/failureReason(for:)``).
    package static func status(of call: () throws(KeychainCallFailure) -> Void) -> Int32 {
        FailureReport.beginCall()
        do {
            try call()
            return KeychainStatus.success.rawValue
        } catch {
            return reportedStatus(error)
        }
    }

    /// Records `refusal`'s cause for this thread and returns its status.
    package static func reportedStatus(_ refusal: KeychainCallFailure) -> Int32 {
        if let failure = refusal.failure { FailureReport.fail(failure) }
        return refusal.status
    }

    /// The default keychain's absolute path (set for this process, else `KEYCHAINKIT_KEYCHAIN`,
    /// else the XDG path).
    package static var defaultKeychainPath: String { lifecycle.defaultKeychainPath }

    /// `path` as the keychain calls name it: absolute, and the default keychain's when nil.
    package static func resolve(_ path: String?) -> String { lifecycle.resolve(path) }

    /// Makes `path` the default keychain of this process; nil returns to the environment's default.
    package static func setDefaultKeychain(_ path: String?) { lifecycle.setDefaultKeychain(path) }

    /// Creates the keychain at `path` with `password` (none when nil or empty) and leaves it
    /// unlocked for the user's processes. An existing file is `errSecDuplicateKeychain`; the
    /// login keychain the service holds is created there, never as a file of this process.
    package static func create(at path: String, password: Data?) throws(KeychainCallFailure) {
        if let socket = LoginKeychainServiceRoute.socket(for: path) {
            return try LoginKeychainServiceRoute.create(password: password, socket: socket)
        }
        try lifecycle.create(at: path, password: password)
    }

    /// Creates the keychain at `path` with the configured password (`KEYCHAINKIT_PASSWORD_FILE`,
    /// the systemd credential `keychainkit.password`): what a person would have typed at a
    /// dialog. Without one, `errSecUnimplemented` in service mode and the engine's refusal
    /// otherwise; nothing is created.
    package static func createWithConfiguredPassword(at path: String) throws(KeychainCallFailure) {
        guard let socket = LoginKeychainServiceRoute.socket(for: path) else {
            return try lifecycle.createWithConfiguredPassword(at: path)
        }
        var secret = try lifecycle.configuredPassword()
        defer { wipe(&secret) }
        // No dialog and no configured password: as in the embedded mode, nothing is created.
        if secret?.isEmpty ?? true { throw KeychainCallFailure(status: KeychainStatus.unimplemented.rawValue) }
        try LoginKeychainServiceRoute.create(password: secret, socket: socket)
    }

    /// Unlocks the keychain at `path` with `password`, for the user's processes until its
    /// auto-lock. With nil, the configured password unlocks it; without one the call succeeds
    /// only when the keychain is unlocked already or has no password (`errSecInteractionNotAllowed`
    /// otherwise). A wrong password is `errSecAuthFailed`.
    package static func unlock(_ path: String?, password: Data?) throws(KeychainCallFailure) {
        guard let socket = LoginKeychainServiceRoute.socket(for: path) else {
            return try lifecycle.unlock(path, password: password)
        }
        if let password { return try LoginKeychainServiceRoute.unlock(password: password, socket: socket) }
        var configured = try lifecycle.configuredPassword()
        defer { wipe(&configured) }
        try LoginKeychainServiceRoute.unlock(password: configured, socket: socket)
    }

    /// Locks the keychain at `path` and withdraws its unlock from the user's other processes.
    package static func lock(_ path: String?) throws(KeychainCallFailure) {
        if let socket = LoginKeychainServiceRoute.socket(for: path) { return try LoginKeychainServiceRoute.lock(socket: socket) }
        try lifecycle.lock(path)
    }

    /// Locks every keychain this process has open.
    package static func lockAll() { lifecycle.lockAll() }

    /// Whether the keychain at `path` is unlocked (a missing file is `errSecNoSuchKeychain`).
    package static func isUnlocked(_ path: String?) throws(KeychainCallFailure) -> Bool {
        if let socket = LoginKeychainServiceRoute.socket(for: path) { return try LoginKeychainServiceRoute.isUnlocked(socket: socket) }
        return try lifecycle.isUnlocked(path)
    }

    /// The auto-lock interval of the keychain at `path`, in seconds (0: never).
    package static func autoLockSeconds(_ path: String?) throws(KeychainCallFailure) -> Int {
        if let socket = LoginKeychainServiceRoute.socket(for: path) { return Int(try LoginKeychainServiceRoute.lockInterval(socket: socket)) }
        return try lifecycle.autoLockSeconds(path)
    }

    /// Whether the keychain at `path` locks when the machine sleeps: only the keychain service
    /// does that (it is the process that holds the keys); a keychain file never does.
    package static func locksOnSleep(_ path: String?) throws(KeychainCallFailure) -> Bool {
        if let socket = LoginKeychainServiceRoute.socket(for: path) { return try LoginKeychainServiceRoute.settings(socket: socket).lockOnSleep }
        _ = try lifecycle.autoLockSeconds(path)  // the keychain must exist, as for its interval
        return false
    }

    /// Stores the auto-lock interval (0: never) of the keychain at `path`. Locking on sleep is
    /// done by the keychain service, which records it; a keychain file records nothing for it
    /// (no process of the embedded mode outlives the call to lock it).
    package static func setAutoLock(seconds: UInt32, lockOnSleep: Bool, _ path: String?) throws(KeychainCallFailure) {
        if let socket = LoginKeychainServiceRoute.socket(for: path) {
            return try LoginKeychainServiceRoute.setSettings(lockInterval: seconds, lockOnSleep: lockOnSleep, socket: socket)
        }
        try lifecycle.setAutoLockSeconds(Int(seconds), path)
    }

    /// Changes the password of the keychain at `path` (nil or empty: none). A wrong old password
    /// is `errSecAuthFailed` and changes nothing.
    package static func changePassword(_ path: String?, from oldPassword: Data?, to newPassword: Data?) throws(KeychainCallFailure) {
        if let socket = LoginKeychainServiceRoute.socket(for: path) {
            return try LoginKeychainServiceRoute.changePassword(from: oldPassword ?? Data(), to: newPassword ?? Data(), socket: socket)
        }
        try lifecycle.changePassword(path, from: oldPassword, to: newPassword)
    }

    /// Deletes the keychain at `path`: only a regular file that opens as a keychain of this user
    /// (else `errSecInvalidKeychain`, nothing removed), with its WAL files, its shared unlock and,
    /// last, its rollback anchor.
    package static func delete(_ path: String) throws(KeychainCallFailure) {
        try lifecycle.delete(path)
    }

    /// Linux only: an opaque mark of the committed state of the keychain at `path` as this
    /// process's handle sees it now (24 bytes: the connection, the other connections' commit
    /// counter, this connection's own changes, each big-endian), to compare with an earlier one
    /// (equal bytes, nothing changed in between); the keychain is opened if this process has not
    /// opened it yet. A keychain held by the keychain service has no mark here:
    /// `errSecUnimplemented`. A missing file is `errSecNoSuchKeychain`.
    package static func changeMark(_ path: String) throws(KeychainCallFailure) -> Data {
        guard LoginKeychainServiceRoute.socket(for: path) == nil else {
            throw KeychainCallFailure(status: KeychainStatus.unimplemented.rawValue, failure: nil)
        }
        let current = try lifecycle.changeMark(path)
        var bytes = Data()
        for field in [current.connection, UInt64(bitPattern: current.otherConnections), UInt64(bitPattern: current.ownChanges)] {
            withUnsafeBytes(of: field.bigEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// Whether two marks of ``changeMark(_:)`` show the same commits by other processes (and the
    /// same connection of this one): what changed between them, if anything, was changed by this
    /// process's own handle on the keychain. False for anything that is not two marks.
    package static func changeMarksOtherProcessesEqual(_ first: Data, _ second: Data) -> Bool {
        guard first.count == 24, second.count == 24 else { return false }
        return first.prefix(16) == second.prefix(16)
    }

    /// How the keychain at `path` is protected, keyed by ``StorageSecurityKey``: described even
    /// when below `KEYCHAINKIT_REQUIRE` (``StorageSecurityKey/meetsRequirement`` false). Never
    /// creates a keychain: a missing one is `errSecNoSuchKeychain`.
    package static func storageSecurity(_ path: String?) throws(KeychainCallFailure) -> [String: Any] {
        let configuration = lifecycle.registry.configuration
        let mode = ProcessIsolation.mode(serviceSocketPath: configuration.serviceSocketPath)
        let scope = ProcessIsolation.ptraceScope()
        var isolation: [String: Any] = [
            StorageSecurityKey.mode: mode.rawValue,
            StorageSecurityKey.modeProtects: mode.protects,
            StorageSecurityKey.ptraceMeaning: ProcessIsolation.ptraceMeaning(scope),
        ]
        if let scope { isolation[StorageSecurityKey.ptraceScope] = scope }
        if mode == .service && (path == nil || path.map(resolve) == defaultKeychainPath) {
            // The keychain is the service's: its file, key source and lock state are not this
            // process's to read. Every item is encrypted at rest there as here.
            isolation[StorageSecurityKey.encryptedAtRest] = true
            isolation[StorageSecurityKey.meetsRequirement] = true
            if let requirement = configuration.storageRequirement {
                isolation[StorageSecurityKey.requirement] = requirement.name
                isolation[StorageSecurityKey.meetsRequirement] = requirement == .service
            }
            return isolation
        }
        let (storage, keychainConfiguration) = try lifecycle.storageSecurity(path)
        var result: [String: Any] = [
            StorageSecurityKey.encryptedAtRest: storage.encryptedAtRest,
            StorageSecurityKey.keySource: storage.keySource.rawValue,
            StorageSecurityKey.deviceBoundClassesAvailable: storage.deviceBoundClassesAvailable,
            StorageSecurityKey.locked: storage.isLocked,
            StorageSecurityKey.autoLockInterval: storage.autoLockSeconds,
            StorageSecurityKey.meetsRequirement: keychainConfiguration.storageRequirement?.isMet(by: storage.keySource) ?? true,
        ]
        if let requirement = keychainConfiguration.storageRequirement { result[StorageSecurityKey.requirement] = requirement.name }
        result.merge(isolation) { own, _ in own }
        return result
    }

    /// Overwrites a password's bytes once the call is done with them.
    private static func wipe(_ secret: inout Data?) {
        guard let count = secret?.count else { return }
        secret?.resetBytes(in: 0..<count)
    }
}

/// The keys of ``KeychainFileCalls/storageSecurity(_:)``'s dictionary, the strings behind the
/// Linux extras' `kSecKeychainStorage…` constants.
package enum StorageSecurityKey {
    /// A `Bool`, always true (every item's data and attributes are encrypted in the file).
    package static let encryptedAtRest = "encryptedAtRest"
    /// A `String`: `none`, `password`, `password-file`, `systemd-credential` or `tpm`.
    package static let keySource = "keySource"
    /// A `Bool`: whether the `…ThisDeviceOnly` classes are usable (the device key is here).
    package static let deviceBoundClassesAvailable = "deviceBoundClassesAvailable"
    /// A `Bool`: whether the "when unlocked" classes are locked.
    package static let locked = "locked"
    /// An `Int`: seconds of inactivity before the keychain locks (0: never).
    package static let autoLockInterval = "autoLockInterval"
    /// A `String`: the value of `KEYCHAINKIT_REQUIRE` (absent when unset).
    package static let requirement = "requirement"
    /// A `Bool`: whether the keychain meets `KEYCHAINKIT_REQUIRE` (true when it is unset).
    package static let meetsRequirement = "meetsRequirement"
    /// A `String`: `embedded` or `service`.
    package static let mode = "mode"
    /// A `String`: what the mode protects against, in a sentence.
    package static let modeProtects = "modeProtects"
    /// An `Int`: `kernel.yama.ptrace_scope` (absent without Yama).
    package static let ptraceScope = "ptraceScope"
    /// A `String`: what the ptrace scope means for the keychain.
    package static let ptraceMeaning = "ptraceMeaning"
}
