import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// The device key: 32 random bytes kept in a file outside the keychain file. The
/// ThisDeviceOnly class keys are wrapped under it (as well as the password), so a keychain file
/// copied elsewhere without it cannot open those classes.
enum DeviceKey {
    /// Loads the device key at `path`, creating it (0600, in a 0700 directory) if missing.
    static func loadOrCreate(at path: String) throws(KeychainStoreError) -> SymmetricKey {
        if let existing = try load(at: path) { return existing }
        let key = Sealing.randomKey()
        try SecureFile.writeNew(Sealing.bytes(of: key), to: path)
        // Another process may have won the race to create it: whichever file exists is the key.
        guard let stored = try load(at: path) else { throw .io("the device key could not be created") }
        return stored
    }

    /// Loads the device key at `path`, or nil if there is none.
    static func load(at path: String) throws(KeychainStoreError) -> SymmetricKey? {
        guard let bytes = try SecureFile.read(path) else { return nil }
        guard bytes.count == 32 else { throw .unusableKeychain("the device key file \(path) is not 32 bytes") }
        return SymmetricKey(data: bytes)
    }

    /// The device key an existing keychain was made with, and where it was found: `path` first,
    /// then each of `earlierPaths` (where earlier versions, or a process started with another
    /// `HOME` or `XDG_STATE_HOME`, kept it), the first whose identifier is `expectedIdentifier`.
    /// When none matches (the keychain came from another device, or the key is gone), the key at
    /// `path`, created if missing, as for a new keychain: the file then opens as one from another
    /// device, its ThisDeviceOnly classes closed.
    static func locate(at path: String, earlierPaths: [String], keychainID: Data,
                       expectedIdentifier: Data?) throws(KeychainStoreError) -> (key: SymmetricKey, path: String) {
        let primary = try load(at: path)
        if let primary, expectedIdentifier.map({ matches(primary, keychainID: keychainID, identifier: $0) }) ?? true {
            return (primary, path)
        }
        if let expectedIdentifier {
            for candidate in earlierPaths where candidate != path {
                // A candidate comes from the caller's environment, not from the keychain: one
                // that cannot be read safely (another owner, a loose mode, the wrong size) is
                // passed over, never allowed to stop the keychain from opening.
                let key: SymmetricKey?
                do { key = try load(at: candidate) } catch { continue }
                if let key, matches(key, keychainID: keychainID, identifier: expectedIdentifier) { return (key, candidate) }
            }
        }
        if let primary { return (primary, path) }
        return (try loadOrCreate(at: path), path)
    }

    private static func matches(_ key: SymmetricKey, keychainID: Data, identifier: Data) -> Bool {
        Sealing.constantTimeEquals(Self.identifier(of: key, keychainID: keychainID), identifier)
    }

    /// A public identifier of a device key, stored in the keychain to tell "wrong device" apart
    /// from "tampered" when a ThisDeviceOnly class cannot be unwrapped.
    static func identifier(of key: SymmetricKey, keychainID: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data("device-key-id".utf8) + keychainID, using: key)).prefix(16)
    }
}
