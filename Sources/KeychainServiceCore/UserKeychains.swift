import Foundation
import KeychainEngine
import KeychainVocabulary

/// Each user's keychain under the service's state directory — `DIR/<uid>/login.keychain-db`,
/// with its device key beside it — opened once and kept, each with a registry of its own. The
/// uid comes from the kernel (`SO_PEERCRED`), so a user reaches only their own keychain.
final class UserKeychains: @unchecked Sendable {
    private let stateDirectory: String
    private let lock = NSLock()
    private var keychains: [UInt32: ServedKeychain] = [:]

    /// Keychains under `stateDirectory` (which must exist, owned by the service's user, mode 0700).
    init(stateDirectory: String) {
        self.stateDirectory = stateDirectory
    }

    /// The keychain of user `uid`; its directory is created (mode 0700) when `creating`. Without
    /// `creating`, a user with no directory yet has no keychain: `errSecItemNotFound`.
    func keychain(of uid: UInt32, creating: Bool) throws(KeychainStoreError) -> ServedKeychain {
        if let open = lock.withLock({ keychains[uid] }) { return open }
        let directory = stateDirectory + "/\(uid)"
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw KeychainStoreError(.io("cannot create \(directory): \(String(cString: strerror(errno)))"))
        }
        let keychain = ServedKeychain(keychainPath: directory + "/login.keychain-db", deviceKeyPath: directory + "/device.key",
                                      authenticator: OwnerAuthenticator(pinentry: nil))
        if !creating, !FileManager.default.fileExists(atPath: keychain.keychainPath) { throw .itemNotFound }
        return lock.withLock {
            if let raced = keychains[uid] { return raced }
            keychains[uid] = keychain
            return keychain
        }
    }
}
