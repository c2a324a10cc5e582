#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainEngine
import KeychainPrimitives
import KeychainVocabulary

/// Each user's keychain under the service's state directory — `DIR/<uid>/login.keychain-db`,
/// with its device key beside it — opened once and kept, each with a registry of its own. The
/// uid comes from the kernel (`SO_PEERCRED`), so a user reaches only their own keychain.
///
/// It also remembers when each keychain was last used, so that ``lockIdle(after:now:)`` can make
/// the service forget the class keys of a keychain nobody has used for a while.
final class UserKeychains: @unchecked Sendable {
    private let stateDirectory: String
    private let lock = ThreadLock()
    private var keychains: [UInt32: ServedKeychain] = [:]
    private var lastUse: [UInt32: ContinuousClock.Instant] = [:]

    private let testingKDF: Bool

    /// Keychains under `stateDirectory` (which must exist, owned by the service's user, mode 0700).
    /// `testingKDF` (test suites only): password keychains use the cheap test key derivation.
    init(stateDirectory: String, testingKDF: Bool = false) {
        self.stateDirectory = stateDirectory
        self.testingKDF = testingKDF
    }

    /// The keychain of user `uid`; its directory is created (mode 0700) when `creating`. Without
    /// `creating`, a user with no directory yet has no keychain: `errSecItemNotFound`.
    func keychain(of uid: UInt32, creating: Bool) throws(KeychainStoreError) -> ServedKeychain {
        try served(uid, creating: creating, requiringFile: !creating)
    }

    /// The keychain of user `uid` whether or not its file exists yet (for the keychain calls,
    /// which tell a missing keychain apart themselves); its directory is made.
    func servedKeychain(of uid: UInt32) throws(KeychainStoreError) -> ServedKeychain {
        try served(uid, creating: true, requiringFile: false)
    }

    private func served(_ uid: UInt32, creating: Bool, requiringFile: Bool) throws(KeychainStoreError) -> ServedKeychain {
        let now = ContinuousClock.now
        if let open = lock.withLock({ () -> ServedKeychain? in
            lastUse[uid] = now
            return keychains[uid]
        }) { return open }
        let directory = stateDirectory + "/\(uid)"
        if creating, mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw KeychainStoreError(.io("cannot create \(directory): \(String(cString: strerror(errno)))"))
        }
        let keychain = ServedKeychain(keychainPath: directory + "/login.keychain-db", deviceKeyPath: directory + "/device.key",
                                      authenticator: OwnerAuthenticator(pinentry: nil))
        if testingKDF { keychain.registry.useTestingKDF(true) }
        if requiringFile, !FileManager.default.fileExists(atPath: keychain.keychainPath) { throw .itemNotFound }
        return lock.withLock {
            if let raced = keychains[uid] { return raced }
            keychains[uid] = keychain
            return keychain
        }
    }

    /// Locks every open keychain with a password that no call has used for `seconds` or more:
    /// its "when unlocked" class keys leave the service's memory until the next unlock. Returns
    /// the uids whose keychain it locked (for the log). `beforeLocking` runs for each just before
    /// its keychain is locked (the service flushes the user's access log then).
    func lockIdle(after seconds: Int, now: ContinuousClock.Instant = .now, beforeLocking: (UInt32) -> Void = { _ in }) -> [UInt32] {
        let idle = lock.withLock { keychains.filter { uid, _ in lastUse[uid].map { now - $0 >= .seconds(seconds) } ?? true } }
        var locked: [UInt32] = []
        for (uid, keychain) in idle {
            guard let database = keychain.registry.openDatabase(at: keychain.keychainPath) else { continue }
            do {
                let status = try database.status
                guard status.hasPassword && status.isUnlocked else { continue }
            } catch {
                continue  // a keychain that cannot report its state now is looked at again at the next sweep
            }
            beforeLocking(uid)
            database.lockKeychain()
            locked.append(uid)
        }
        return locked.sorted()
    }

    /// Locks every open, unlocked keychain with a password whose user asked to lock it on sleep
    /// (``LockOnSleepSetting``); the machine has just slept. Returns the uids whose keychain it
    /// locked. `beforeLocking` runs for each just before its keychain is locked.
    func lockForSleep(beforeLocking: (UInt32) -> Void = { _ in }) -> [UInt32] {
        let open = lock.withLock { keychains }
        var locked: [UInt32] = []
        for (uid, keychain) in open where LockOnSleepSetting.isSet(for: keychain) {
            guard let database = keychain.registry.openDatabase(at: keychain.keychainPath) else { continue }
            do {
                let status = try database.status
                guard status.hasPassword && status.isUnlocked else { continue }
            } catch {
                // A keychain that cannot report its state is locked all the same: the machine slept.
            }
            beforeLocking(uid)
            database.lockKeychain()
            locked.append(uid)
        }
        return locked.sorted()
    }
}
