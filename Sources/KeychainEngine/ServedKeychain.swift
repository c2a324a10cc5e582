#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
import KeychainStore
import KeychainVocabulary

/// One keychain file configured entirely by value — its path, its device key's path, the
/// authenticator — with a registry of its own, never the Apple edge's process registry: nothing here
/// reads the process's environment or changes its settings. The keychain service keeps one per
/// user it serves, and makes an engine per call for the access groups it granted that caller.
package final class ServedKeychain: Sendable {
    /// The keychain file's absolute path.
    package let keychainPath: String
    /// The registry that holds this keychain open (its own, configured by value).
    package let registry: KeychainRegistry
    private let authenticator: OwnerAuthenticator

    /// A keychain at `keychainPath` whose `…ThisDeviceOnly` classes are wrapped by the device key
    /// at `deviceKeyPath`; `authenticator` asks for passwords (`OwnerAuthenticator(pinentry: nil)`:
    /// never). The unlock is never shared through the kernel keyring: the process holding it is
    /// the only one that needs it.
    package init(keychainPath: String, deviceKeyPath: String, authenticator: OwnerAuthenticator) {
        let keychainPath = KeychainLocation.absolute(keychainPath)
        let configuration = KeychainConfiguration.serving(keychainPath: keychainPath, deviceKeyPath: KeychainLocation.absolute(deviceKeyPath),
                                                          authenticator: authenticator)
        self.keychainPath = keychainPath
        self.authenticator = authenticator
        registry = KeychainRegistry(readConfiguration: { configuration })
    }

    /// An engine on this keychain for a caller entitled to `accessGroups` (the first is the
    /// default group for adds). Only an engine for a call that stores (`creatingKeychain`)
    /// creates the keychain when it is missing; any other call on a missing keychain is
    /// `errSecItemNotFound`, as with the default keychain of the embedded mode.
    package func engine(accessGroups: AccessGroups, creatingKeychain: Bool) throws(KeychainStoreError) -> SecItemEngine {
        SecItemEngine(database: try registry.database(at: keychainPath, createIfMissing: creatingKeychain),
                      accessGroups: accessGroups, authenticator: authenticator)
    }
}

extension KeychainConfiguration {
    /// The configuration of a keychain served by value: `keychainPath`, its device key at
    /// `deviceKeyPath`, no password file, no unlock shared through the kernel keyring, no
    /// requirement, and `authenticator` — whatever the process's environment says.
    package static func serving(keychainPath: String, deviceKeyPath: String, authenticator: OwnerAuthenticator) -> KeychainConfiguration {
        KeychainConfiguration(environment: [KeychainVariable.keychain: keychainPath,
                                            KeychainVariable.deviceKeyFile: deviceKeyPath,
                                            KeychainVariable.sessionKeyring: "off",
                                            KeychainVariable.serviceSocket: "off",
                                            "HOME": FilePaths.deletingLastComponent(keychainPath)],
                              authenticator: authenticator)
    }
}
