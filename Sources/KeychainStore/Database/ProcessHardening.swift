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

/// Keeps unlocked key material out of core dumps and away from other processes of the same user.
///
/// On Linux the first time a keychain with a password is unlocked in a process (by password, by
/// keys adopted from the session, or by a password change), the process is made non-dumpable
/// (`prctl(PR_SET_DUMPABLE, 0)`): no core dump is written, and processes of the same user can no
/// longer attach with ptrace or read `/proc/<pid>/mem` — the two easy ways to lift class keys out
/// of an unlocked process. It stays so for the rest of the process: key bytes may linger in freed
/// memory after a lock, so "while unlocked" would promise more than a lock can deliver. A keychain
/// without a password does not do this (its keys are in its file anyway). Root is not stopped.
enum ProcessHardening {
    /// `prctl` is variadic in C, which Swift cannot call; it is looked up once and called through
    /// a fixed-arity pointer (the kernel reads five register arguments either way).
    private typealias PrctlFunction = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32

    private static let prctlSetDumpable: Int32 = 4  // PR_SET_DUMPABLE
    private static let prctlGetDumpable: Int32 = 3  // PR_GET_DUMPABLE

    private static let prctl: PrctlFunction? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return nil }
        return unsafeBitCast(symbol, to: PrctlFunction.self)
        #else
        return nil
        #endif
    }()

    /// Done once per process, on the first unlock of a keychain with a password.
    private static let madeNonDumpable: Bool = {
        guard let prctl else { return false }
        return prctl(prctlSetDumpable, 0, 0, 0, 0) == 0
    }()

    /// Called whenever password-protected class keys become available in this process.
    static func passwordClassKeysAvailable() {
        _ = madeNonDumpable
    }

    /// Whether the process may be dumped or traced by the same user (`PR_GET_DUMPABLE`); nil
    /// where the call does not exist.
    static var isDumpable: Bool? {
        guard let prctl else { return nil }
        return prctl(prctlGetDumpable, 0, 0, 0, 0) != 0
    }
}
