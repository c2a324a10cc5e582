import KeychainEngine
import KeychainVocabulary

/// Opening the keychain to synchronize the way every other keychain call of its caller opens it:
/// through the registry the caller passes (one shared handle per file, so the lock state, the
/// unlock shared through the session keyring and `KEYCHAINKIT_REQUIRE` apply to sync too). The
/// tools pass the process's registry, the one their SecItem calls use; nothing here reads it.
extension KeychainSynchronizer {
    /// A synchronizer for the keychain file at `path` (created if it does not exist, as the
    /// default keychain is by its first item), opened through `registry`.
    ///
    /// - Parameters:
    ///   - path: The keychain file.
    ///   - registry: The keychains and configuration the caller's other keychain calls use.
    ///   - openTransport: How to reach the circle's transport.
    /// - Throws: The store's error when the keychain cannot be opened.
    package convenience init(keychainAt path: String, registry: KeychainRegistry,
                             openTransport: @escaping SyncTransportOpener) throws(KeychainStoreError) {
        self.init(database: try registry.database(at: path), openTransport: openTransport)
    }
}
