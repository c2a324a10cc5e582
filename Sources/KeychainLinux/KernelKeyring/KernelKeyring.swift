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

/// The kernel keyring system calls on the user keyring (Linux), or nothing (elsewhere).
///
/// Swift cannot call glibc's variadic `syscall(2)`, and `SYS_add_key`/`SYS_keyctl` are not
/// imported, so the function is looked up with `dlsym` and called through a fixed-arity C
/// pointer: on the Linux ABIs listed below integer arguments travel in the same registers either
/// way, and glibc's `syscall` is an assembly stub that only moves registers.
package enum KernelKeyring {
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
    package static var isAvailable: Bool { syscallFunction != nil }

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
    package static func store(_ description: String, payload: [UInt8], timeoutSeconds: Int) -> Bool {
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
    package static func contains(_ description: String) -> Bool { search(description) != nil }

    /// The key's payload, or nil if there is no readable key.
    package static func read(_ description: String) -> [UInt8]? {
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
    package static func remove(_ description: String) -> Bool {
        guard let id = search(description) else { return true }
        guard keyctl(keyctlRevoke, id) == 0 else { return false }
        _ = keyctl(keyctlUnlink, id, userKeyring)  // a revoked key is unusable; unlinking only tidies
        return true
    }
    #else
    /// No kernel keyring on this platform: sharing is unavailable.
    package static var isAvailable: Bool { false }
    /// Unavailable: nothing is stored.
    package static func store(_ description: String, payload: [UInt8], timeoutSeconds: Int) -> Bool { false }
    /// Unavailable: nothing is found.
    package static func contains(_ description: String) -> Bool { false }
    /// Unavailable: nothing is found.
    package static func read(_ description: String) -> [UInt8]? { nil }
    /// Unavailable: nothing to remove.
    package static func remove(_ description: String) -> Bool { true }
    #endif
}
