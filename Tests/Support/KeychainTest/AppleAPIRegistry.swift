import Foundation
import KeychainEngine
import KeychainServicesPortable
import KeychainStore

/// The one place tests reach the process's registry (`KeychainLifecycle.apple`'s): the registry Apple's C API works on by
/// definition (`SecItem*`, `SecKeychain*`, and what is built on them: KeychainKit, the Secret
/// Service store). Every test target runs in one process, so what is set here is seen by every
/// suite at once: nothing here turns off again a setting another suite may rely on, and each
/// change is scoped to the test's own keychain files. Tests that call the engine directly use a
/// registry of their own instead (``TemporaryKeychain/registry(sharingUnlock:)``).
package enum AppleAPIRegistry {
    private static var registry: KeychainRegistry { KeychainLifecycle.apple.registry }

    /// Lets Apple's C API in this process create and open keychains with the cheap testing KDF.
    /// Never turned off: other suites' keychains made the same way are open at the same time.
    package static func useTestingKDF() {
        registry.useTestingKDF(true)
    }

    /// Sets how the owner of the keychain file at `path` is asked for its password (a pinentry
    /// on a test's pseudo-terminal); nil returns that file to the environment's way.
    package static func setAuthenticator(_ authenticator: OwnerAuthenticator?, forKeychainAt path: String) {
        registry.setAuthenticator(authenticator, forKeychainAt: path)
    }

    /// Makes a keychain the test opened at the store level (with its own device key) the one
    /// Apple's C API finds at its path, until ``forget(path:)``.
    package static func register(_ database: KeychainDatabase) {
        registry.register(database)
    }

    /// Forgets the keychain at `path` (the next call opens the file again, if any).
    package static func forget(path: String) {
        registry.forget(path: path)
    }

    /// Locks and forgets every keychain under `directory` that Apple's C API has open (a test's
    /// own, being removed), and only those: other suites' keychains stay open and unlocked.
    package static func forgetKeychains(in directory: String) {
        let prefix = KeychainLocation.absolute(directory) + "/"
        for database in registry.openDatabases where database.path.hasPrefix(prefix) {
            database.lockKeychain()
            registry.forget(path: database.path)
        }
    }

    /// The configuration Apple's C API read from this process's environment: its device key and
    /// access groups, for a child process that must open the same classes and see the same items.
    package static var configuration: KeychainConfiguration {
        registry.configuration
    }

    /// The access groups Apple's C API grants callers in this process now.
    package static var accessGroups: [String] {
        registry.accessGroups.groups
    }

    /// The paths of the keychains Apple's C API has open now.
    package static var openKeychainPaths: [String] {
        registry.openDatabases.map(\.path)
    }

    /// Whether Apple's C API shares keychain unlocks with the session's kernel keyring here.
    package static var sharesUnlockWithSession: Bool {
        registry.sharesUnlockWithSession
    }
}
