import CSQLite
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

/// The single seam through which the keychain reaches the outside world: every SQLite C call
/// `SQLiteConnection` makes, every file-system call `SecureFile` makes, and — once a test installs
/// an observer — the read/write/open system calls SQLite's own unix VFS makes (replaced through
/// `sqlite3_vfs.xSetSystemCall`, SQLite's documented hook for exactly this) and its `fsync`
/// (through the forwarding `FsyncFaultVFS`), and the rollback anchor's file calls. It follows
/// swift-system's mockable syscalls: thin wrappers (`IOSeam.step`, `IOSeam.open`, …) that call
/// the real function directly, and that in builds with `KEYCHAINKIT_FAULT_INJECTION` (debug
/// builds only, see Package.swift) first ask an observer installed *on the calling thread*
/// whether to fail. Release builds contain no observer, no lookup and no branch.
///
/// The observer also sees two events that are not I/O — a password-KDF run and an item
/// decryption — so tests can count them without timing anything.
package enum IOSeam {
    /// A call or event that passes through the seam.
    package enum Call: String, Sendable, CaseIterable {
        /// `sqlite3_open_v2`.
        case sqliteOpen
        /// `sqlite3_exec` (pragmas, schema, `BEGIN`/`COMMIT`/`ROLLBACK`).
        case sqliteExec
        /// `sqlite3_prepare_v2`.
        case sqlitePrepare
        /// `sqlite3_bind_*`.
        case sqliteBind
        /// `sqlite3_step`.
        case sqliteStep
        /// `lstat`/`stat` by `SecureFile`.
        case fileStat
        /// `mkdir` by `SecureFile`.
        case fileMakeDirectory
        /// `chmod`/`fchmod` by `SecureFile`.
        case fileChangeMode
        /// `open` by `SecureFile`.
        case fileOpen
        /// `read` by `SecureFile`, `pread` on the rollback anchor.
        case fileRead
        /// `write` by `SecureFile`, `pwrite` on the rollback anchor.
        case fileWrite
        /// `fsync` by `SecureFile`.
        case fileSync
        /// `flock` on the rollback anchor.
        case fileLock
        /// `open` inside SQLite's unix VFS (database, `-wal`, `-shm`, journals, temp files).
        case vfsOpen
        /// `read`/`pread`/`pread64` inside SQLite's unix VFS.
        case vfsRead
        /// `write`/`pwrite`/`pwrite64` inside SQLite's unix VFS.
        case vfsWrite
        /// `ftruncate` inside SQLite's unix VFS.
        case vfsTruncate
        /// `xSync` (the `fsync`/`fdatasync` of the unix VFS), through `FsyncFaultVFS`.
        case vfsSync
        /// One scrypt derivation of a password key (an event; no fault applies).
        case kdfDerivation
        /// One item row decrypted (an event; no fault applies).
        case itemDecryption
    }

    /// What an observer makes a call do instead of running.
    package enum Fault: Sendable, Equatable {
        /// A system call fails with this `errno` (`EIO`, `ENOSPC`, `EINTR`, …). Ignored for SQLite calls.
        case errno(Int32)
        /// A SQLite call fails with this result code (`SQLITE_IOERR`, `SQLITE_FULL`, `SQLITE_BUSY`, …).
        /// Ignored for system calls.
        case sqlite(Int32)
    }

    /// Whether this build contains the fault-injection hooks (debug builds).
    #if KEYCHAINKIT_FAULT_INJECTION
    package static let isFaultInjectionCompiled = true
    #else
    package static let isFaultInjectionCompiled = false
    #endif
}

#if KEYCHAINKIT_FAULT_INJECTION

extension IOSeam {
    /// Sees every call on the thread it is installed on and may fail any of them.
    package final class Observer {
        /// Called once per call, in order; returns the fault to inject or nil to run the call.
        /// `path` is set for VFS opens (which file SQLite opens).
        private let decide: (Call, String?) -> Fault?

        /// An observer that consults `decide` for every call.
        package init(_ decide: @escaping (Call, String?) -> Fault?) { self.decide = decide }

        fileprivate func fault(for call: Call, path: String?) -> Fault? { decide(call, path) }
    }

    /// Runs `body` with `observer` installed on the current thread only: calls made on other
    /// threads (other tests running in parallel) are not seen. Observers do not nest.
    package static func withObserver<T>(_ observer: Observer, _ body: () throws -> T) rethrows -> T {
        installSQLiteSystemCalls()
        let previous = pthread_getspecific(observerKey)
        pthread_setspecific(observerKey, Unmanaged.passUnretained(observer).toOpaque())
        defer { pthread_setspecific(observerKey, previous) }
        return try withExtendedLifetime(observer) { try body() }
    }

    private static let observerKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The fault the current thread's observer chooses for `call`, if an observer is installed.
    static func fault(_ call: Call, path: String? = nil) -> Fault? {
        guard let raw = pthread_getspecific(observerKey) else { return nil }
        return Unmanaged<Observer>.fromOpaque(raw).takeUnretainedValue().fault(for: call, path: path)
    }

    /// Reports an event that cannot fail (KDF run, item decryption).
    static func note(_ call: Call) { _ = fault(call) }

    static func sqliteFault(_ call: Call) -> Int32? {
        if case .sqlite(let code)? = fault(call) { return code }
        return nil
    }

    static func errnoFault(_ call: Call, path: String? = nil) -> Int32? {
        if case .errno(let code)? = fault(call, path: path) { return code }
        return nil
    }
}

#else

extension IOSeam {
    @inline(__always) static func note(_ call: Call) {}
    @inline(__always) static func sqliteFault(_ call: Call) -> Int32? { nil }
    @inline(__always) static func errnoFault(_ call: Call, path: String? = nil) -> Int32? { nil }
}

#endif

// MARK: SQLite C API

extension IOSeam {
    @inline(__always)
    static func open(_ path: String, _ db: inout OpaquePointer?, _ flags: Int32) -> Int32 {
        if let code = sqliteFault(.sqliteOpen) { return code }
        return sqlite3_open_v2(path, &db, flags, nil)
    }

    @inline(__always)
    static func exec(_ db: OpaquePointer?, _ sql: String) -> Int32 {
        if let code = sqliteFault(.sqliteExec) { return code }
        return sqlite3_exec(db, sql, nil, nil, nil)
    }

    @inline(__always)
    static func prepare(_ db: OpaquePointer?, _ sql: String, _ statement: inout OpaquePointer?) -> Int32 {
        if let code = sqliteFault(.sqlitePrepare) { return code }
        return sqlite3_prepare_v2(db, sql, -1, &statement, nil)
    }

    /// Runs one `sqlite3_bind_*` call.
    @inline(__always)
    static func bind(_ body: () -> Int32) -> Int32 {
        if let code = sqliteFault(.sqliteBind) { return code }
        return body()
    }

    @inline(__always)
    static func step(_ statement: OpaquePointer) -> Int32 {
        if let code = sqliteFault(.sqliteStep) { return code }
        return sqlite3_step(statement)
    }
}

// MARK: File-system calls (SecureFile)

/// Each wrapper retries `EINTR` itself (an interrupted call is not a failure), except `close`,
/// which must not be retried on Linux. An injected fault sits inside the retry loop, exactly
/// where the kernel's would.
extension IOSeam {
    @inline(__always)
    private static func retryingEINTR<R: BinaryInteger>(_ call: Call, _ body: () -> R) -> R {
        while true {
            let result: R
            if let injected = errnoFault(call) {
                errno = injected
                result = -1
            } else {
                result = body()
            }
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    static func lstat(_ path: String, _ info: inout stat) -> Int32 {
        retryingEINTR(.fileStat) { system_lstat(path, &info) }
    }

    static func stat(_ path: String, _ info: inout stat) -> Int32 {
        retryingEINTR(.fileStat) { system_stat(path, &info) }
    }

    static func mkdir(_ path: String, _ mode: mode_t) -> Int32 {
        retryingEINTR(.fileMakeDirectory) { system_mkdir(path, mode) }
    }

    static func chmod(_ path: String, _ mode: mode_t) -> Int32 {
        retryingEINTR(.fileChangeMode) { system_chmod(path, mode) }
    }

    static func fchmod(_ fd: Int32, _ mode: mode_t) -> Int32 {
        retryingEINTR(.fileChangeMode) { system_fchmod(fd, mode) }
    }

    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        retryingEINTR(.fileOpen) { system_open(path, flags, mode) }
    }

    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        retryingEINTR(.fileRead) { system_read(fd, buffer, count) }
    }

    static func write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        retryingEINTR(.fileWrite) { system_write(fd, buffer, count) }
    }

    static func fsync(_ fd: Int32) -> Int32 {
        retryingEINTR(.fileSync) { system_fsync(fd) }
    }

    static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: off_t) -> Int {
        retryingEINTR(.fileRead) { system_pread(fd, buffer, count, offset) }
    }

    static func pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ offset: off_t) -> Int {
        retryingEINTR(.fileWrite) { system_pwrite(fd, buffer, count, offset) }
    }

    static func flock(_ fd: Int32, _ operation: Int32) -> Int32 {
        retryingEINTR(.fileLock) { system_flock(fd, operation) }
    }

    static func close(_ fd: Int32) { _ = system_close(fd) }
}

// The C library functions under names the wrappers above do not shadow.
private func system_lstat(_ path: String, _ info: inout stat) -> Int32 { lstat(path, &info) }
private func system_stat(_ path: String, _ info: inout stat) -> Int32 { stat(path, &info) }
private func system_mkdir(_ path: String, _ mode: mode_t) -> Int32 { mkdir(path, mode) }
private func system_chmod(_ path: String, _ mode: mode_t) -> Int32 { chmod(path, mode) }
private func system_fchmod(_ fd: Int32, _ mode: mode_t) -> Int32 { fchmod(fd, mode) }
private func system_open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func system_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func system_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func system_fsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func system_pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: off_t) -> Int { pread(fd, buffer, count, offset) }
private func system_pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ offset: off_t) -> Int { pwrite(fd, buffer, count, offset) }
private func system_flock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }
private func system_close(_ fd: Int32) -> Int32 { close(fd) }

// MARK: SQLite's own system calls

#if KEYCHAINKIT_FAULT_INJECTION

/// Replaces, once per process, the system calls SQLite's unix VFS makes for file I/O with
/// versions that consult the calling thread's observer and otherwise call SQLite's originals.
/// SQLite retries `EINTR` itself and maps `ENOSPC` to `SQLITE_FULL`, other errors to
/// `SQLITE_IOERR_*`. `fsync` is not in SQLite's replaceable table: `FsyncFaultVFS` covers it.
extension IOSeam {
    fileprivate typealias OpenCall = @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> Int32
    fileprivate typealias ReadCall = @convention(c) (Int32, UnsafeMutableRawPointer?, Int) -> Int
    fileprivate typealias PreadCall = @convention(c) (Int32, UnsafeMutableRawPointer?, Int, Int64) -> Int
    fileprivate typealias WriteCall = @convention(c) (Int32, UnsafeRawPointer?, Int) -> Int
    fileprivate typealias PwriteCall = @convention(c) (Int32, UnsafeRawPointer?, Int, Int64) -> Int
    fileprivate typealias TruncateCall = @convention(c) (Int32, Int64) -> Int32

    /// SQLite's original implementations, captured before replacement.
    fileprivate struct Originals {
        var open: OpenCall?
        var read: ReadCall?
        var pread: PreadCall?
        var pread64: PreadCall?
        var write: WriteCall?
        var pwrite: PwriteCall?
        var pwrite64: PwriteCall?
        var ftruncate: TruncateCall?
    }

    nonisolated(unsafe) fileprivate static var originals = Originals()

    private static let installation: Void = {
        guard let vfs = sqlite3_vfs_find(nil), vfs.pointee.iVersion >= 3,
              let get = vfs.pointee.xGetSystemCall, let set = vfs.pointee.xSetSystemCall
        else { return }
        func original<F>(_ name: String, as type: F.Type) -> F? {
            guard let pointer = get(vfs, name) else { return nil }
            return unsafeBitCast(pointer, to: type)
        }
        originals = Originals(
            open: original("open", as: OpenCall.self), read: original("read", as: ReadCall.self),
            pread: original("pread", as: PreadCall.self), pread64: original("pread64", as: PreadCall.self),
            write: original("write", as: WriteCall.self), pwrite: original("pwrite", as: PwriteCall.self),
            pwrite64: original("pwrite64", as: PwriteCall.self), ftruncate: original("ftruncate", as: TruncateCall.self))
        func replace<F>(_ name: String, _ function: F, if present: Any?) {
            guard present != nil else { return }
            _ = set(vfs, name, unsafeBitCast(function, to: sqlite3_syscall_ptr.self))
        }
        replace("open", seamOpen as OpenCall, if: originals.open)
        replace("read", seamRead as ReadCall, if: originals.read)
        replace("pread", seamPread as PreadCall, if: originals.pread)
        replace("pread64", seamPread64 as PreadCall, if: originals.pread64)
        replace("write", seamWrite as WriteCall, if: originals.write)
        replace("pwrite", seamPwrite as PwriteCall, if: originals.pwrite)
        replace("pwrite64", seamPwrite64 as PwriteCall, if: originals.pwrite64)
        replace("ftruncate", seamFtruncate as TruncateCall, if: originals.ftruncate)
        FsyncFaultVFS.register()
    }()

    /// Installs the replacements (idempotent; the first SQLite connection of the process does it).
    static func installSQLiteSystemCalls() { installation }
}

private func injected(_ call: IOSeam.Call, path: UnsafePointer<CChar>? = nil) -> Bool {
    guard let code = IOSeam.errnoFault(call, path: path.map { String(cString: $0) }) else { return false }
    errno = code
    return true
}

private func seamOpen(_ path: UnsafePointer<CChar>?, _ flags: Int32, _ mode: Int32) -> Int32 {
    if injected(.vfsOpen, path: path) { return -1 }
    return IOSeam.originals.open?(path, flags, mode) ?? -1
}

private func seamRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    if injected(.vfsRead) { return -1 }
    return IOSeam.originals.read?(fd, buffer, count) ?? -1
}

private func seamPread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: Int64) -> Int {
    if injected(.vfsRead) { return -1 }
    return IOSeam.originals.pread?(fd, buffer, count, offset) ?? -1
}

private func seamPread64(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: Int64) -> Int {
    if injected(.vfsRead) { return -1 }
    return IOSeam.originals.pread64?(fd, buffer, count, offset) ?? -1
}

private func seamWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    if injected(.vfsWrite) { return -1 }
    return IOSeam.originals.write?(fd, buffer, count) ?? -1
}

private func seamPwrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ offset: Int64) -> Int {
    if injected(.vfsWrite) { return -1 }
    return IOSeam.originals.pwrite?(fd, buffer, count, offset) ?? -1
}

private func seamPwrite64(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ offset: Int64) -> Int {
    if injected(.vfsWrite) { return -1 }
    return IOSeam.originals.pwrite64?(fd, buffer, count, offset) ?? -1
}

private func seamFtruncate(_ fd: Int32, _ length: Int64) -> Int32 {
    if injected(.vfsTruncate) { return -1 }
    return IOSeam.originals.ftruncate?(fd, length) ?? -1
}

#endif
