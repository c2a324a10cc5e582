import KeychainEngine
import KeychainVocabulary

/// Opening the keychain to synchronize the way every other keychain call of the process opens it:
/// through the engine's registry (one shared handle per file, so the lock state, the unlock
/// shared through the session keyring and `KEYCHAINKIT_REQUIRE` apply to sync too). The tools ask
/// for a synchronizer here instead of reaching into the engine themselves.
extension KeychainSynchronizer {
    /// The default keychain's path: `SecKeychainSetDefault`'s, else `KEYCHAINKIT_KEYCHAIN`, else
    /// `~/.local/share/keychainkit/login.keychain-db`.
    package static var defaultKeychainPath: String {
        KeychainRegistry.shared.defaultKeychainPath
    }

    /// A synchronizer for the keychain file at `path` (created if it does not exist, as the
    /// default keychain is by its first item).
    ///
    /// - Parameters:
    ///   - path: The keychain file.
    ///   - openTransport: How to reach the circle's transport.
    /// - Throws: The store's error when the keychain cannot be opened.
    package convenience init(keychainAt path: String, openTransport: @escaping SyncTransportOpener) throws(KeychainStoreError) {
        self.init(database: try KeychainRegistry.shared.database(at: path), openTransport: openTransport)
    }
}
