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

extension AccessLog {
    /// Makes sure an entry can be recorded now, before a write it would record is made: the log's
    /// key is readable (or, for a new log, created) and the lock file can be opened. A tool calls
    /// it before storing, so that a keychain that cannot log refuses the write instead of making
    /// it and then failing ("stored, but not recorded": a write reported as failed that happened).
    ///
    /// - Throws: the ``AccessLogError`` an append would throw for the same cause.
    package func prepare() throws(AccessLogError) {
        let lock = try LogIO.lock(files.lockPath, LOCK_EX)
        defer { close(lock) }
        let vault = try openVault()
        if try vault.load() != nil { return }
        // A log without its key can be neither verified nor continued: never start a second chain over it.
        if files.exists { throw .keyMissing(log: files.currentPath) }
        _ = try vault.create()
    }
}
