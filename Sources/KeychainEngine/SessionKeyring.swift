import Crypto
import Foundation
import KeychainStore
#if canImport(Glibc)
import Glibc
#endif

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
public enum SessionKeyring {
    /// One of a keychain's two entries in the kernel keyring.
    public enum Entry: String, CaseIterable, Sendable {
        /// The "when unlocked" classes (`ak`, `aku`, `akpu`), with the auto-lock timeout.
        case whenUnlocked = "when-unlocked"
        /// The "after first unlock" classes (`ck`, `cku`), without timeout.
        case afterFirstUnlock = "after-first-unlock"

        /// The availability of the classes this entry holds.
        var availability: ProtectionClass.Availability {
            self == .whenUnlocked ? .whenUnlocked : .afterFirstUnlock
        }
    }

    /// Whether sharing is on: it is, unless `KEYCHAINKIT_SESSION_KEYRING` is `off` (read once per
    /// process, with the rest of ``KeychainConfiguration``), and the kernel keyring system calls
    /// exist here.
    public static var isEnabled: Bool {
        KernelKeyring.isAvailable && KeychainRegistry.shared.configuration.sharesUnlockWithSession
    }

    /// Whether `entry` of `database` is in the keyring now (not expired, revoked or withdrawn).
    public static func isPublished(_ entry: Entry, of database: KeychainDatabase) -> Bool {
        KernelKeyring.contains(description(of: entry, keychainID: database.keychainID))
    }

    /// The key description of `entry` for the keychain `keychainID`.
    public static func description(of entry: Entry, keychainID: Data) -> String {
        "keychainkit:" + HexEncoding.string(keychainID) + ":" + entry.rawValue
    }

    /// Publishes the class keys `database` has available now (after an unlock). A keychain without
    /// a password is unlocked in every process anyway and publishes nothing. Returns whether the
    /// keys were published; false also when sharing is off or the kernel keyring refuses them
    /// (the unlock then holds for this process only).
    @discardableResult
    public static func publish(_ database: KeychainDatabase) throws(KeychainStoreError) -> Bool {
        guard isEnabled else { return false }
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
            if !KernelKeyring.store(description(of: entry, keychainID: database.keychainID), payload: payload,
                                    timeoutSeconds: timeout) {
                published = false
            }
        }
        return published
    }

    /// Removes `entries` of `database` from the keyring (revoked, so that no process can read them
    /// any more, then unlinked). Returns whether every entry is gone (also when none existed).
    @discardableResult
    public static func withdraw(_ entries: [Entry], of database: KeychainDatabase) -> Bool {
        guard isEnabled else { return true }
        var removed = true
        for entry in entries where !KernelKeyring.remove(description(of: entry, keychainID: database.keychainID)) {
            removed = false
        }
        return removed
    }

    /// Adopts the class keys another process published for `database`, if it is locked (or has not
    /// had its first unlock). Returns whether any key was adopted.
    @discardableResult
    public static func adoptPublishedKeys(into database: KeychainDatabase) throws(KeychainStoreError) -> Bool {
        guard isEnabled else { return false }
        let available = database.availableClassKeys()
        var found: [ProtectionClass: SymmetricKey] = [:]
        for entry in Entry.allCases {
            // Nothing to learn when this process already has the entry's classes.
            if available.keys.contains(where: { $0.availability == entry.availability }) { continue }
            guard var payload = KernelKeyring.read(description(of: entry, keychainID: database.keychainID)) else { continue }
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

/// The kernel keyring system calls on the user keyring (Linux), or nothing (elsewhere).
///
/// Swift cannot call glibc's variadic `syscall(2)`, and `SYS_add_key`/`SYS_keyctl` are not
/// imported, so the function is looked up with `dlsym` and called through a fixed-arity C
/// pointer: on the Linux ABIs listed below integer arguments travel in the same registers either
/// way, and glibc's `syscall` is an assembly stub that only moves registers.
enum KernelKeyring {
    #if canImport(Glibc) && (arch(x86_64) || arch(arm64) || arch(riscv64))
    private typealias SyscallFunction = @convention(c) (Int, Int, Int, Int, Int, Int, Int) -> Int

    #if arch(x86_64)
    private static let addKeyNumber = 248, keyctlNumber = 250
    #else
    private static let addKeyNumber = 217, keyctlNumber = 219  // the generic table (arm64, riscv64)
    #endif
    private static let userKeyring = -4  // KEY_SPEC_USER_KEYRING
    private static let keyctlRevoke = 3, keyctlSetPermissions = 5, keyctlUnlink = 9, keyctlSearch = 10
    private static let keyctlRead = 11, keyctlSetTimeout = 15
    /// Possessor: view, read, write, search, link, set attributes; user: view; group, other: none.
    private static let possessorOnly = 0x3f01_0000

    private static let syscallFunction: SyscallFunction? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syscall") else { return nil }
        return unsafeBitCast(symbol, to: SyscallFunction.self)
    }()

    /// Whether the system calls exist (not whether a seccomp filter allows them).
    static var isAvailable: Bool { syscallFunction != nil }

    private static func keyctl(_ command: Int, _ a: Int = 0, _ b: Int = 0, _ c: Int = 0, _ d: Int = 0) -> Int {
        guard let call = syscallFunction else { return -1 }
        return call(keyctlNumber, command, a, b, c, d, 0)
    }

    /// The id of the `user` key `description` in the user keyring, or nil (absent, expired,
    /// revoked, or the keyring is unreachable).
    private static func search(_ description: String) -> Int? {
        let id = "user".withCString { type in
            description.withCString { name in
                keyctl(keyctlSearch, userKeyring, Int(bitPattern: type), Int(bitPattern: name), 0)
            }
        }
        return id > 0 ? id : nil
    }

    /// Adds (or replaces) the key, restricts it to its possessors and sets its timeout (0 = none).
    static func store(_ description: String, payload: [UInt8], timeoutSeconds: Int) -> Bool {
        guard let call = syscallFunction else { return false }
        let id = "user".withCString { type in
            description.withCString { name in
                payload.withUnsafeBytes { bytes in
                    call(addKeyNumber, Int(bitPattern: type), Int(bitPattern: name),
                         Int(bitPattern: bytes.baseAddress), bytes.count, userKeyring, 0)
                }
            }
        }
        guard id > 0 else { return false }
        guard keyctl(keyctlSetPermissions, id, possessorOnly) == 0,
              keyctl(keyctlSetTimeout, id, max(0, min(timeoutSeconds, Int(UInt32.max)))) == 0
        else {
            _ = keyctl(keyctlRevoke, id)  // never leave keys behind with the wrong lifetime
            return false
        }
        return true
    }

    /// Whether the key exists and can be found (not expired or revoked).
    static func contains(_ description: String) -> Bool { search(description) != nil }

    /// The key's payload, or nil if there is no readable key.
    static func read(_ description: String) -> [UInt8]? {
        guard let id = search(description) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 512)
        let length = buffer.withUnsafeMutableBytes { keyctl(keyctlRead, id, Int(bitPattern: $0.baseAddress), $0.count) }
        guard length >= 0, length <= buffer.count else {
            buffer.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
            return nil
        }
        defer { buffer.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        return Array(buffer[0..<length])
    }

    /// Revokes the key (its payload is freed at once) and unlinks it; true if it is gone.
    static func remove(_ description: String) -> Bool {
        guard let id = search(description) else { return true }
        guard keyctl(keyctlRevoke, id) == 0 else { return false }
        _ = keyctl(keyctlUnlink, id, userKeyring)  // a revoked key is unusable; unlinking only tidies
        return true
    }
    #else
    /// No kernel keyring on this platform: sharing is unavailable.
    static var isAvailable: Bool { false }
    /// Unavailable: nothing is stored.
    static func store(_ description: String, payload: [UInt8], timeoutSeconds: Int) -> Bool { false }
    /// Unavailable: nothing is found.
    static func contains(_ description: String) -> Bool { false }
    /// Unavailable: nothing is found.
    static func read(_ description: String) -> [UInt8]? { nil }
    /// Unavailable: nothing to remove.
    static func remove(_ description: String) -> Bool { true }
    #endif
}
