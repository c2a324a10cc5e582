import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainStore
import KeychainVocabulary

/// Shares a keychain's unlocked state among the processes of one user, the way `securityd` holds
/// it for a macOS login: the class keys an unlock made available are kept in the Linux kernel
/// keyring, and any process that opens the keychain adopts them, so it reads without the password.
///
/// Each keychain (named by its random `keychainID`) has at most two entries, `user`-type keys in
/// the caller's **user keyring** (`KEY_SPEC_USER_KEYRING`), described
/// `keychainkit:<keychainID hex>:when-unlocked` and `…:after-first-unlock`:
///
/// | entry | classes | lifetime |
/// |---|---|---|
/// | `when-unlocked` | `ak`, `aku`, `akpu` | the keychain's auto-lock seconds (`KEYCTL_SET_TIMEOUT`, counted from the unlock; 0 = none); dropped by a lock |
/// | `after-first-unlock` | `ck`, `cku` | no timeout: until the keychain is deleted or the kernel discards the user keyring (reboot), like iOS |
///
/// The "always" classes are never published: every process can open them from the file anyway.
/// The payload is, per class, one length byte, the class's short name and its 32-byte key.
/// Class keys are written nowhere else; an adopted key is used only after it opens its own keybag
/// entry's check value (`KeychainDatabase.adoptClassKeys`).
///
/// **Trust boundary: the user (uid).** Every process of the same uid (in the same user namespace)
/// can read the user keyring; the entries get possessor-only read permission, and the user
/// keyring is possessed by all of that uid's processes. That is no weaker than what the uid
/// already has — same-uid processes can `ptrace` each other and read each other's memory — but
/// it means an unlocked keychain is unlocked for *every* program the user runs, including ones
/// started from another login (ssh, cron, containers without a user namespace), until the timeout
/// or `lock-keychain`. Root can read the entries too. The key material lives in unswappable kernel
/// memory, but a hibernation image contains it. The user keyring is chosen over the session keyring
/// on purpose: a process without a session keyring (no `pam_keyinit`) would get a private new one
/// and sharing would silently fail, while the isolation a session keyring offers does not hold
/// against a same-uid process anyway.
///
/// Set `KEYCHAINKIT_SESSION_KEYRING=off` to keep every unlock private to its process. Where the
/// system calls are missing or blocked (non-Linux, seccomp profiles such as Docker's default),
/// sharing is simply unavailable and each process unlocks for itself.
///
/// A process that already has the keychain open follows the session on every call
/// (`KeychainRegistry.database(at:)`): while locked it adopts a later unlock; an unlock it
/// published or adopted ends when the `when-unlocked` entry goes (a lock anywhere, or the
/// auto-lock timeout). That costs at most one `keyctl` search per call. An unlock a process made
/// on its own without publishing it (a password file at open, sharing off) stays its own.
package enum SessionKeyring {
    /// One of a keychain's two entries in the kernel keyring.
    package enum Entry: String, CaseIterable, Sendable {
        /// The "when unlocked" classes (`ak`, `aku`, `akpu`), with the auto-lock timeout.
        case whenUnlocked = "when-unlocked"
        /// The "after first unlock" classes (`ck`, `cku`), without timeout.
        case afterFirstUnlock = "after-first-unlock"

        /// The availability of the classes this entry holds.
        var availability: ProtectionClass.Availability {
            self == .whenUnlocked ? .whenUnlocked : .afterFirstUnlock
        }
    }

    // Each call below is told by its caller's registry whether sharing is on (`sharing`,
    // ``KeychainRegistry/sharesUnlockWithSession``): nothing here reads the process's settings.

    /// Whether `entry` of `database` is in the keyring now (not expired, revoked or withdrawn).
    package static func isPublished(_ entry: Entry, of database: KeychainDatabase) -> Bool {
        SystemFacilities.Keyring.contains(description(of: entry, keychainID: database.keychainID))
    }

    /// The key description of `entry` for the keychain `keychainID`.
    package static func description(of entry: Entry, keychainID: Data) -> String {
        "keychainkit:" + HexEncoding.string(keychainID) + ":" + entry.rawValue
    }

    /// Publishes the class keys `database` has available now (after an unlock). A keychain without
    /// a password is unlocked in every process anyway and publishes nothing. Returns whether the
    /// keys were published; false also when sharing is off or the kernel keyring refuses them
    /// (the unlock then holds for this process only).
    @discardableResult
    package static func publish(_ database: KeychainDatabase, sharing: Bool) throws(KeychainStoreError) -> Bool {
        guard sharing else { return false }
        let status = try database.status
        guard status.hasPassword, status.isUnlocked else { return false }
        let available = database.availableClassKeys()
        var published = true
        for entry in Entry.allCases {
            let keys = available.filter { $0.key.availability == entry.availability }
            guard !keys.isEmpty else { continue }
            var payload = encode(keys)
            defer { payload.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
            let timeout = entry == .whenUnlocked ? status.autoLockSeconds : 0
            if !SystemFacilities.Keyring.store(description(of: entry, keychainID: database.keychainID), payload: payload,
                                    timeoutSeconds: timeout) {
                published = false
            }
        }
        return published
    }

    /// Removes `entries` of `database` from the keyring (revoked, so that no process can read them
    /// any more, then unlinked). Returns whether every entry is gone (also when none existed).
    @discardableResult
    package static func withdraw(_ entries: [Entry], of database: KeychainDatabase, sharing: Bool) -> Bool {
        guard sharing else { return true }
        var removed = true
        for entry in entries where !SystemFacilities.Keyring.remove(description(of: entry, keychainID: database.keychainID)) {
            removed = false
        }
        return removed
    }

    /// Adopts the class keys another process published for `database`, if it is locked (or has not
    /// had its first unlock). Returns whether any key was adopted.
    @discardableResult
    package static func adoptPublishedKeys(into database: KeychainDatabase, sharing: Bool) throws(KeychainStoreError) -> Bool {
        guard sharing else { return false }
        let available = database.availableClassKeys()
        var found: [ProtectionClass: SymmetricKey] = [:]
        for entry in Entry.allCases {
            // Nothing to learn when this process already has the entry's classes.
            if available.keys.contains(where: { $0.availability == entry.availability }) { continue }
            guard var payload = SystemFacilities.Keyring.read(description(of: entry, keychainID: database.keychainID)) else { continue }
            defer { payload.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
            // A malformed entry (another same-uid program wrote it) is not ours: ignore it.
            guard let keys = decode(payload) else { continue }
            for (protection, key) in keys where protection.availability == entry.availability {
                found[protection] = key
            }
        }
        guard !found.isEmpty else { return false }
        try database.adoptClassKeys(found)
        return true
    }

    // MARK: Payload

    /// Serialises class keys: per class, a length byte, the short name (`ak`, …) and 32 key bytes.
    static func encode(_ keys: [ProtectionClass: SymmetricKey]) -> [UInt8] {
        var bytes: [UInt8] = []
        for protection in ProtectionClass.allCases {
            guard let key = keys[protection] else { continue }
            let name = Array(protection.rawValue.utf8)
            bytes.append(UInt8(name.count))
            bytes += name
            key.withUnsafeBytes { bytes += $0 }
        }
        return bytes
    }

    /// Parses `encode`'s format; nil if it is malformed (unknown class, short key, trailing bytes).
    static func decode(_ bytes: [UInt8]) -> [ProtectionClass: SymmetricKey]? {
        var keys: [ProtectionClass: SymmetricKey] = [:]
        var index = 0
        while index < bytes.count {
            let nameLength = Int(bytes[index])
            index += 1
            guard nameLength > 0, index + nameLength + 32 <= bytes.count,
                  let name = String(bytes: bytes[index..<index + nameLength], encoding: .utf8),
                  let protection = ProtectionClass(rawValue: name)
            else { return nil }
            index += nameLength
            keys[protection] = SymmetricKey(data: bytes[index..<index + 32])
            index += 32
        }
        return keys
    }
}
