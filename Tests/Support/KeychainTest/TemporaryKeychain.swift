import Foundation
import KeychainEngine
import KeychainStore
import KeychainVocabulary

/// A keychain file in a fresh private temporary directory, with the cheap testing KDF and a device
/// key of its own: the store-level fixture of the store and reliability tests. Its paths are the
/// ones `keychainkit-torture` uses (``Torture``), so a torture child opens the same file.
package struct TemporaryKeychain {
    /// The directory (mode 0700) holding the keychain, its device key and anything a test adds.
    package let directory: String

    /// A new empty directory named after `name` (for a reader of leftover files).
    package init(_ name: String = "store") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-\(name)-\(UUID().uuidString)").path
        // An explicit mode, not one filtered by the umask: another test of this process sets
        // umask 000 for a moment, and a 0777 directory is (rightly) refused by the keychain.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// A new directory for keychains that Apple's C API creates and opens (`SecKeychainCreate`,
    /// `SecItem*` with `kSecUseKeychain`): the process-wide registry that API works on is set to
    /// create them with the cheap testing KDF first (``AppleAPIRegistry/useTestingKDF()``).
    package static func forAppleAPI(_ name: String) throws -> TemporaryKeychain {
        AppleAPIRegistry.useTestingKDF()
        return try TemporaryKeychain(name)
    }

    /// The directory as a file URL.
    package var directoryURL: URL { URL(fileURLWithPath: directory, isDirectory: true) }
    /// The path of `name` (a file or folder, possibly in a subfolder) inside the directory.
    package func file(_ name: String) -> String { directory + "/" + name }
    /// The keychain file.
    package var path: String { Torture.keychainPath(directory) }
    /// The device key file the keychain is bound to.
    package var deviceKeyPath: String { Torture.deviceKeyPath(directory) }
    /// Where the rollback anchor is kept once ``anchor()`` turned it on.
    package var anchorDirectory: String { directory + "/state/anchors" }
    /// Whether ``anchor()`` turned the rollback anchor on.
    package var isAnchored: Bool { FileManager.default.fileExists(atPath: directory + "/anchored") }

    /// Turns the rollback anchor on for this directory, in this process and in every torture child.
    package func anchor() throws {
        try Data().write(to: URL(fileURLWithPath: directory + "/anchored"))
    }

    /// The testing KDF, this directory's device key and, once anchored, its rollback anchor.
    package var options: KeychainDatabase.Options { Torture.options(directory) }

    /// Opens (creating it if needed) the keychain with `password` (nil: none).
    package func open(password: Data?, options: KeychainDatabase.Options? = nil) throws(KeychainStoreError) -> KeychainDatabase {
        try KeychainDatabase.open(path: path, password: password, options: options ?? self.options)
    }

    /// The environment that points a KeychainKit process, or a registry of its own
    /// (``registry(sharingUnlock:)``), at this directory: ``path`` as the default keychain, this
    /// directory's device key, `HOME` in a `home` folder here (created, mode 0700), and no sharing
    /// of unlocks through the kernel keyring unless `sharingUnlock`. `PATH` is this process's.
    package func environment(sharingUnlock: Bool = false) throws -> [String: String] {
        let home = file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                "HOME": home,
                "KEYCHAINKIT_KEYCHAIN": path,
                "KEYCHAINKIT_DEVICE_KEY_FILE": deviceKeyPath,
                "KEYCHAINKIT_SESSION_KEYRING": sharingUnlock ? "on" : "off"]
    }

    /// A registry of its own over this directory (``environment(sharingUnlock:)``: ``path`` is its
    /// default keychain), with the testing KDF and no prompt program: for tests of the engine
    /// that must not change the process-wide registry other suites use at the same time.
    package func registry(sharingUnlock: Bool = false) throws -> KeychainRegistry {
        let environment = try environment(sharingUnlock: sharingUnlock)
        let registry = KeychainRegistry(readConfiguration: {
            KeychainConfiguration(environment: environment, authenticator: OwnerAuthenticator(pinentry: nil))
        })
        registry.useTestingKDF(true)
        return registry
    }

    /// Deletes the directory and everything in it, after the process-wide registry forgot every
    /// keychain it had open in it (``AppleAPIRegistry/forgetKeychains(in:)``).
    package func remove() {
        AppleAPIRegistry.forgetKeychains(in: directory)
        do { try FileManager.default.removeItem(atPath: directory) } catch {}  // best effort: temporary files
    }

    /// Every file in the directory tree, with its contents.
    package func files() -> [(path: String, contents: Data)] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var result: [(String, Data)] = []
        while let relative = enumerator?.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let contents = FileManager.default.contents(atPath: path) else { continue }
            result.append((path, contents))
        }
        return result
    }
}
