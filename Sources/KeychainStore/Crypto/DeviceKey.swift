import Crypto
import Foundation
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

    /// A public identifier of a device key, stored in the keychain to tell "wrong device" apart
    /// from "tampered" when a ThisDeviceOnly class cannot be unwrapped.
    static func identifier(of key: SymmetricKey, keychainID: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data("device-key-id".utf8) + keychainID, using: key)).prefix(16)
    }
}
