import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// How far this handle can vouch for the file's key hierarchy.
enum KeyHierarchyTrust {
    /// Its tag verified under this device key: every change another handle makes is checked.
    case authenticated
    /// No tag can be checked here: the file belongs to another device (or there is no device key).
    case unverifiable
}

/// Authentication of the key hierarchy, and following its changes made by other processes.
///
/// **The tag.** `meta.hierarchy_mac` is an HMAC-SHA256, under a key derived from the device key,
/// over the keychain id and a digest of everything that decides who can open the file and how:
/// every keybag row, and the format version, identity, file key, password KDF (or its absence),
/// device-key id and auto-lock timeout. Without it, someone able to edit the file could delete
/// the KDF row and re-wrap the class keys under the file key, turning a password keychain into a
/// password-less one that later secrets would be written into. Every handle on the keychain's own
/// device rewrites the tag when it changes the hierarchy and checks it whenever another handle
/// has changed the file.
///
/// **Whose file.** The device key's holder alone can compute the tag, so a file moved from another
/// device cannot be checked; a `KeyHierarchyHomeMarker` beside the device key records which
/// keychains this device authenticated, so that a stripped or altered tag on one of them (or an
/// altered device-key id meant to make it look moved) is refused instead of passing as "moved".
///
/// **Following other processes.** A password change in another process replaces the class keys.
/// Each call first asks SQLite whether another connection committed (`PRAGMA data_version`); if
/// so and the hierarchy digest moved, the tag is checked and class keys that no longer match
/// their keybag entry are dropped (the keychain is then locked here until unlocked again).
/// Write transactions repeat the check after taking the write lock, so no item is ever sealed
/// under a class key another process has just replaced.
extension KeychainDatabase {
    /// At open, before any unlock: checks the tag, or writes the first one (a new file, or a file
    /// from before tags existed, on the device that owns it).
    func authenticateKeyHierarchyAtOpen(deviceKeyPath: String?) throws(KeychainStoreError) {
        guard let deviceKey = keybag.deviceKey else {
            hierarchyTrust = .unverifiable
            try rememberKeyHierarchy()
            return
        }
        let marker = deviceKeyPath.map {
            KeyHierarchyHomeMarker(deviceKeyPath: $0, keychainID: keybag.keychainID,
                                   deviceKeyIdentifier: DeviceKey.identifier(of: deviceKey, keychainID: keybag.keychainID))
        }
        let isHome = try marker?.exists() ?? false
        let storedTag = try readMeta(Schema.MetaKey.hierarchyTag)
        let digest = try keyHierarchyDigest(includingSettings: true)
        if let storedTag, isValidHierarchyTag(storedTag, digest: digest) {
            hierarchyTrust = .authenticated
            try rememberKeyHierarchy()
            if !isHome, keybag.deviceKeyMatches { try marker?.create() }
            return
        }
        let tampered = KeychainStoreError.undecodable(
            "the keychain's key hierarchy: its authentication tag is missing or does not match (the keybag, password KDF or settings were altered)")
        if isHome { throw tampered }
        // A tag that does not verify on a file whose device-key id is this device's: altered here.
        if case .some = storedTag, keybag.deviceKeyMatches { throw tampered }
        guard keybag.deviceKeyMatches else {
            // Moved from another device: nothing here can vouch for it; its ThisDeviceOnly
            // classes stay closed and it is never marked as this device's own.
            hierarchyTrust = .unverifiable
            try rememberKeyHierarchy()
            return
        }
        // A new file, or one written before tags existed: sealed now, trusting it as it is.
        hierarchyTrust = .unverifiable  // until the tag is written; the transaction must not check it
        try transaction { () throws(KeychainStoreError) in
            let current = try keyHierarchyDigest(includingSettings: true)
            if let raced = try readMeta(Schema.MetaKey.hierarchyTag) {
                // Another process of this device sealed it while this one waited for the lock.
                guard isValidHierarchyTag(raced, digest: current) else {
                    throw .undecodable("the keychain's key hierarchy: its authentication tag does not match")
                }
                return
            }
            try writeMeta(Schema.MetaKey.hierarchyTag, hierarchyTag(for: current))
        }
        hierarchyTrust = .authenticated
        try rememberKeyHierarchy()
        try marker?.create()
    }

    /// Before every call and inside every write transaction: adopts changes another connection
    /// committed to the key hierarchy, after checking their tag. Cheap when nothing changed.
    func refreshKeyHierarchyIfChanged() throws(KeychainStoreError) {
        guard path != ":memory:" else { return }  // no other connection can reach it
        let version = try dataVersion()
        // The snapshot `PRAGMA data_version` read is the one checked here (the counter only grows).
        // Recorded only once the check passed: a refused hierarchy is checked (and refused) again
        // at every call, reads included.
        let fileVersion = connection.fileDataVersion
        guard version != knownDataVersion else {
            verifiedFileDataVersion = fileVersion
            return
        }
        let digest = try keyHierarchyDigest(includingSettings: true)
        if digest != knownHierarchyDigest {
            if hierarchyTrust == .authenticated {
                guard let tag = try readMeta(Schema.MetaKey.hierarchyTag), isValidHierarchyTag(tag, digest: digest) else {
                    throw .undecodable("the keychain's key hierarchy: it was changed and its authentication tag does not match")
                }
            }
            try adoptChangedKeyHierarchy()
            autoLockSeconds = try readAutoLockSeconds()  // covered by the digest: another handle may have changed it
            knownHierarchyDigest = digest
        }
        knownDataVersion = version
        verifiedFileDataVersion = fileVersion
    }

    /// For a read made without `refreshKeyHierarchyIfChanged` first (`find`): whether the snapshot
    /// its statement read is one whose hierarchy this handle checked — nothing was committed since
    /// by another connection (nor by this one, outside a checked transaction). Then the rows need
    /// nothing else; otherwise the caller checks the hierarchy and reads again. Checking against
    /// the read's own snapshot replaces a `PRAGMA data_version` before every read, which ran a
    /// statement in a read transaction of its own (two `fcntl` locks and an `fstat`
    /// per call, and 5,500 instructions).
    func readIsOfVerifiedHierarchy() -> Bool {
        guard path != ":memory:" else { return true }  // no other connection can reach it
        guard let verified = verifiedFileDataVersion, let current = connection.fileDataVersion else { return false }
        return verified == current
    }

    /// Inside a write transaction that changed the hierarchy: the new tag (on the device that
    /// owns the file). Returns the digest to remember once the transaction commits.
    func resealKeyHierarchy() throws(KeychainStoreError) -> Data {
        let digest = try keyHierarchyDigest(includingSettings: true)
        if hierarchyTrust == .authenticated { try writeMeta(Schema.MetaKey.hierarchyTag, hierarchyTag(for: digest)) }
        return digest
    }

    /// Records the hierarchy as it is now as the one this handle knows.
    private func rememberKeyHierarchy() throws(KeychainStoreError) {
        knownDataVersion = path == ":memory:" ? nil : try dataVersion()
        verifiedFileDataVersion = path == ":memory:" ? nil : connection.fileDataVersion
        knownHierarchyDigest = try keyHierarchyDigest(includingSettings: true)
    }

    /// Another process changed the hierarchy: its KDF is read again, class keys that no longer
    /// open their entry are dropped, and the file-key classes are opened afresh.
    private func adoptChangedKeyHierarchy() throws(KeychainStoreError) {
        let entries = try readKeybagEntries()
        keybag.passwordKDF = try Bootstrap.readPasswordKDF(connection, allowTestingKDF: allowsTestingKDF)
        keybag.retainKeys { protection, key in
            guard let entry = entries[protection] else { return false }
            return Self.classKey(key, checksAgainst: entry)
        }
        if keybag.hasPassword {
            try makeAlwaysClassesAvailable()
        } else {
            try unlockLocked(password: nil)  // the password was removed: unlocked, like a device without a passcode
        }
    }

    private func dataVersion() throws(KeychainStoreError) -> Int64 {
        do {
            return try connection.query("PRAGMA data_version") { $0.int64(0) }.first ?? 0
        } catch let error as SQLiteError {
            throw KeychainStoreError(error)
        } catch {
            throw .internalFailure("data version read")
        }
    }

    // MARK: Tag

    private func hierarchyTagKey() throws(KeychainStoreError) -> SymmetricKey {
        guard let deviceKey = keybag.deviceKey else { throw .internalFailure("hierarchy tag without a device key") }
        return Sealing.derive(from: deviceKey, salt: keybag.keychainID, purpose: "key-hierarchy-tag")
    }

    private func hierarchyTag(for digest: Data) throws(KeychainStoreError) -> Data {
        var message = Data("keychainkit-key-hierarchy-v1".utf8) + keybag.keychainID
        message.append(digest)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: try hierarchyTagKey()))
    }

    private func isValidHierarchyTag(_ tag: Data, digest: Data) -> Bool {
        do {
            return Sealing.constantTimeEquals(tag, try hierarchyTag(for: digest))
        } catch {
            return false
        }
    }

    /// SHA-256 over every keybag row and the identity, file key, KDF, device-key id and format
    /// version in `meta`, and with `includingSettings` the auto-lock timeout too. (The rollback
    /// anchor's seal leaves the timeout out: any handle, anchored or not, may change it.)
    func keyHierarchyDigest(includingSettings: Bool) throws(KeychainStoreError) -> Data {
        var hasher = SHA256()
        func absorb(_ bytes: Data) {
            var length = Data()
            length.appendBigEndian(UInt32(bytes.count))
            hasher.update(data: length)
            hasher.update(data: bytes)
        }
        let entries = try readKeybagEntries()
        for protection in ProtectionClass.allCases {
            absorb(Data(protection.rawValue.utf8))
            absorb(entries[protection]?.encoded ?? Data())
        }
        var covered = [Schema.MetaKey.formatVersion, Schema.MetaKey.keychainID, Schema.MetaKey.fileKey,
                       Schema.MetaKey.passwordKDF, Schema.MetaKey.deviceKeyID]
        if includingSettings { covered.append(Schema.MetaKey.autoLockSeconds) }
        let meta = try readMetaValues(covered)
        for key in covered {
            absorb(Data(key.utf8))
            if let value = meta[key] { absorb(Data([1]) + value) } else { absorb(Data([0])) }
        }
        return Data(hasher.finalize())
    }
}
