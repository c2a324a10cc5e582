import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// The key hierarchy of one open keychain, modelled on iOS data protection:
///
/// - the **file key** (random, stored in the file) protects the "always" classes and the blind
///   index key — it keeps nothing from someone who has the file, by design, like class D on iOS;
/// - the **password key** (scrypt of the keychain password) protects the "when unlocked" and
///   "after first unlock" classes; a keychain without a password uses the file key instead;
/// - the **device key** (outside the file) is mixed into every ThisDeviceOnly class's wrapping key;
/// - each **class key** (random) wraps the per-item keys of its accessibility class.
///
/// This type holds the keys currently available and knows how to wrap and unwrap class keys.
/// It is not thread-safe; `KeychainDatabase` serialises access.
struct Keybag {
    let keychainID: Data
    let fileKey: SymmetricKey
    let deviceKey: SymmetricKey?
    /// The file ``deviceKey`` was read from (nil in memory): the keychain's home markers live beside it.
    let deviceKeyPath: String?
    /// The device key the file was created with, by identifier (nil for old or in-memory files).
    let expectedDeviceKeyID: Data?
    var passwordKDF: PasswordKDF?
    /// Class keys available now.
    private(set) var available: [ProtectionClass: SymmetricKey] = [:]
    /// The class keys available now.
    var availableKeys: [ProtectionClass: SymmetricKey] { available }

    /// ThisDeviceOnly classes whose entry did not open at the last unlock although the device key
    /// matches (left behind by an older version's password change): unavailable until then.
    var unopenableClasses: Set<ProtectionClass> = []

    /// Whether the keychain was unlocked at least once in this process ("after first unlock").
    private(set) var hasBeenUnlocked = false

    init(keychainID: Data, fileKey: SymmetricKey, deviceKey: SymmetricKey?, deviceKeyPath: String?, expectedDeviceKeyID: Data?,
         passwordKDF: PasswordKDF?) {
        self.keychainID = keychainID
        self.fileKey = fileKey
        self.deviceKey = deviceKey
        self.deviceKeyPath = deviceKeyPath
        self.expectedDeviceKeyID = expectedDeviceKeyID
        self.passwordKDF = passwordKDF
    }

    var hasPassword: Bool { passwordKDF != nil }

    /// Whether the device key matches the one the keychain was created with.
    var deviceKeyMatches: Bool {
        guard let deviceKey else { return false }
        guard let expectedDeviceKeyID else { return true }
        return Sealing.constantTimeEquals(DeviceKey.identifier(of: deviceKey, keychainID: keychainID), expectedDeviceKeyID)
    }

    /// Why a ThisDeviceOnly class cannot be opened with this process's device key, and the fix.
    static let anotherDeviceKey = "this keychain's ThisDeviceOnly items were created with another device key (the file was "
        + "moved or copied from another machine or user, or the device key is missing); set KEYCHAINKIT_DEVICE_KEY_FILE "
        + "to the device key that created the keychain"

    /// The key that indexes primary-key attributes; available whenever the file is open.
    var blindIndexKey: SymmetricKey { Sealing.derive(from: fileKey, salt: keychainID, purpose: "blind-index") }

    /// Whether the "when unlocked" classes are available.
    var isUnlocked: Bool { available[.whenUnlocked] != nil }

    /// The class key for `protection`, or the reason it is unavailable.
    func classKey(for protection: ProtectionClass) throws(KeychainStoreError) -> SymmetricKey {
        if let key = available[protection] { return key }
        if protection.isThisDeviceOnly && !deviceKeyMatches {
            throw .notAvailable(Self.anotherDeviceKey)
        }
        if unopenableClasses.contains(protection) {
            throw .notAvailable("this keychain's \(protection.rawValue) (ThisDeviceOnly) class key does not open with the current password; it was left behind by an earlier password change, and its items are unavailable")
        }
        if protection.requiresPassword && !hasPassword {
            throw .notAvailable("a passcode-protected class needs a keychain with a password")
        }
        throw .locked
    }

    /// Associated data binding a wrapped class key to its keychain, class and format version.
    private func keybagAAD(_ protection: ProtectionClass) -> Data {
        var aad = Data("KCKB".utf8)
        aad.appendBigEndian(UInt32(Schema.formatVersion))
        aad.appendField(keychainID)
        aad.appendField(Data(protection.rawValue.utf8))
        return aad
    }

    /// The key that wraps `protection`'s class key, from the password key (or nil for "no password").
    private func wrappingKey(for protection: ProtectionClass, passwordKey: SymmetricKey?) throws(KeychainStoreError) -> SymmetricKey {
        var material = Sealing.bytes(of: protection.isPasswordProtected ? (passwordKey ?? fileKey) : fileKey)
        if protection.isThisDeviceOnly {
            guard let deviceKey, deviceKeyMatches else {
                throw .notAvailable(Self.anotherDeviceKey)
            }
            material += Sealing.bytes(of: deviceKey)
        }
        defer { material.resetBytes(in: 0..<material.count) }
        return Sealing.derive(from: SymmetricKey(data: material), salt: keychainID, purpose: "class-key:\(protection.rawValue)")
    }

    /// Wraps a class key for storage in the keybag table.
    func wrap(_ classKey: SymmetricKey, for protection: ProtectionClass, passwordKey: SymmetricKey?) throws(KeychainStoreError) -> Data {
        var keyBytes = Sealing.bytes(of: classKey)
        defer { Sealing.zero(&keyBytes) }
        return try Sealing.seal(keyBytes, using: try wrappingKey(for: protection, passwordKey: passwordKey),
                                binding: keybagAAD(protection))
    }

    /// Unwraps a stored class key; `.undecodable` if the key (password) is wrong or the entry altered.
    func unwrap(_ wrapped: Data, for protection: ProtectionClass, passwordKey: SymmetricKey?) throws(KeychainStoreError) -> SymmetricKey {
        var bytes = try Sealing.open(wrapped, using: try wrappingKey(for: protection, passwordKey: passwordKey),
                                     binding: keybagAAD(protection), what: "the keybag entry for \(protection.rawValue)")
        defer { Sealing.zero(&bytes) }
        guard bytes.count == 32 else { throw .undecodable("the keybag entry for \(protection.rawValue)") }
        return SymmetricKey(data: bytes)
    }

    /// Makes the unwrapped keys available; `unlocked` marks a password unlock (first unlock).
    mutating func makeAvailable(_ keys: [ProtectionClass: SymmetricKey], unlocked: Bool) {
        available.merge(keys) { _, new in new }
        if unlocked { hasBeenUnlocked = true }
    }

    /// Locks: drops the "when unlocked" class keys; "after first unlock" and "always" stay.
    mutating func lock() {
        for protection in ProtectionClass.allCases where protection.availability == .whenUnlocked {
            available[protection] = nil
        }
    }

    /// Keeps only the available class keys `isCurrent` accepts (another process replaced some).
    mutating func retainKeys(where isCurrent: (ProtectionClass, SymmetricKey) -> Bool) {
        available = available.filter { isCurrent($0.key, $0.value) }
    }

    /// After this process replaced the password-protected class keys: the new ones, and none of
    /// the old (a class left out of `keys` no longer exists).
    mutating func replacePasswordClassKeys(with keys: [ProtectionClass: SymmetricKey]) {
        available = available.filter { !$0.key.isPasswordProtected }
        makeAvailable(keys, unlocked: true)
    }

    /// Forgets one class key (used when a password is removed and `akpu` ceases to exist).
    mutating func forget(_ protection: ProtectionClass) { available[protection] = nil }
}
