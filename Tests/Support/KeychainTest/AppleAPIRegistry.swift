import Foundation
import KeychainEngine
import KeychainStore

/// The one place tests reach `KeychainRegistry.shared`: the registry Apple's C API works on by
/// definition (`SecItem*`, `SecKeychain*`, and what is built on them: KeychainKit, the Secret
/// Service store). Every test target runs in one process, so what is set here is seen by every
/// suite at once: nothing here turns off again a setting another suite may rely on, and each
/// change is scoped to the test's own keychain files. Tests that call the engine directly use a
/// registry of their own instead (``TemporaryKeychain/registry(sharingUnlock:)``).
package enum AppleAPIRegistry {
    /// Lets Apple's C API in this process create and open keychains with the cheap testing KDF.
    /// Never turned off: other suites' keychains made the same way are open at the same time.
    package static func useTestingKDF() {
        KeychainRegistry.shared.useTestingKDF(true)
    }

    /// Sets how the owner of the keychain file at `path` is asked for its password (a pinentry
    /// on a test's pseudo-terminal); nil returns that file to the environment's way.
    package static func setAuthenticator(_ authenticator: OwnerAuthenticator?, forKeychainAt path: String) {
        KeychainRegistry.shared.setAuthenticator(authenticator, forKeychainAt: path)
    }

    /// Makes a keychain the test opened at the store level (with its own device key) the one
    /// Apple's C API finds at its path, until ``forget(path:)``.
    package static func register(_ database: KeychainDatabase) {
        KeychainRegistry.shared.register(database)
    }

    /// Forgets the keychain at `path` (the next call opens the file again, if any).
    package static func forget(path: String) {
        KeychainRegistry.shared.forget(path: path)
    }

    /// Locks and forgets every keychain under `directory` that Apple's C API has open (a test's
    /// own, being removed), and only those: other suites' keychains stay open and unlocked.
    package static func forgetKeychains(in directory: String) {
        let prefix = KeychainLocation.absolute(directory) + "/"
        for database in KeychainRegistry.shared.openDatabases where database.path.hasPrefix(prefix) {
            database.lockKeychain()
            KeychainRegistry.shared.forget(path: database.path)
        }
    }

    /// The configuration Apple's C API read from this process's environment: its device key and
    /// access groups, for a child process that must open the same classes and see the same items.
    package static var configuration: KeychainConfiguration {
        KeychainRegistry.shared.configuration
    }
}
