import KeychainPrimitives
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
import KeychainVocabulary

/// A small file beside the device key saying "this device has authenticated keychain X's key
/// hierarchy". It decides what a missing or wrong hierarchy tag means (see
/// `KeychainDatabase.authenticateKeyHierarchyAtOpen`): with the marker present the keychain is
/// this device's own, so a missing or wrong tag is tampering and the file is refused; without it
/// the keychain was never authenticated here (a file moved from another device, or one written
/// before tags existed).
///
/// It lives with the device key, outside the keychain's folder, for the same reason the key
/// does: someone who can edit or replace the keychain file (a synced folder, a backup, a copied
/// home directory) must not be able to remove it as well. Its content is this device key's
/// public identifier for the keychain, which lets a marker be checked against the key beside it.
struct KeyHierarchyHomeMarker {
    /// The marker's path: `<device key file>.keychains/<keychain id in hex>`.
    let path: String
    private let expectedContent: Data

    init(deviceKeyPath: String, keychainID: Data, deviceKeyIdentifier: Data) {
        path = deviceKeyPath + ".keychains/" + HexEncoding.string(keychainID)
        expectedContent = deviceKeyIdentifier
    }

    /// Whether this device key marked the keychain as its own. A marker written under an earlier
    /// device key (the key file was replaced) does not count: for the new key the keychain is
    /// one from another device.
    func exists() throws(KeychainStoreError) -> Bool {
        guard let content = try SecureFile.read(path) else { return false }
        return Sealing.constantTimeEquals(content, expectedContent)
    }

    /// Marks the keychain as this device key's own (durably). A marker left by an earlier device
    /// key is replaced.
    func create() throws(KeychainStoreError) {
        if let content = try SecureFile.read(path), !Sealing.constantTimeEquals(content, expectedContent) {
            guard unlink(path) == 0 || errno == ENOENT else { throw SecureFile.failure(errno, "cannot replace \(path)") }
        }
        try SecureFile.writeNew(expectedContent, to: path)
    }
}
