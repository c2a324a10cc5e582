#if KEYCHAINKIT_FAULT_INJECTION
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

/// The one file operation SQLite's replaceable system-call table does not cover is `fsync`
/// (the unix VFS calls `fsync`/`fdatasync` directly). This wrapper VFS closes that gap for tests:
/// registered once per process as the default VFS, in debug builds only, it hands every call to
/// the real unix VFS unchanged and lets the calling thread's observer fail `xSync` — as a failed
/// `fsync` reaches SQLite (`SQLITE_IOERR_FSYNC`).
///
/// A wrapped file is the wrapper's `sqlite3_file` header followed by the real VFS's file; the
/// wrapper's methods find the real file at a fixed offset and call the real file's own methods.
enum FsyncFaultVFS {
    /// `SQLITE_IOERR | (4 << 8)`: the extended code the unix VFS returns when `fsync` fails.
    static let syncFailure: Int32 = 1034

    nonisolated(unsafe) private static var real: UnsafeMutablePointer<sqlite3_vfs>?
    nonisolated(unsafe) private static var methods: UnsafeMutablePointer<sqlite3_io_methods>?
    /// Where the real file starts inside a wrapped one (16-byte aligned).
    private static let headerSize = (MemoryLayout<sqlite3_file>.stride + 15) & ~15

    /// Registers the wrapper as the default VFS over the current default (once per process).
    static func register() {
        guard let base = sqlite3_vfs_find(nil), base.pointee.iVersion >= 3 else { return }
        real = base
        let table = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        table.initialize(to: makeMethods())
        methods = table
        var wrapper = base.pointee
        wrapper.szOsFile = Int32(headerSize) + base.pointee.szOsFile
        wrapper.zName = UnsafePointer(strdup("keychainkit-sync-fault"))
        wrapper.pNext = nil
        wrapper.xOpen = { _, name, file, flags, outFlags in
            guard let file, let real = FsyncFaultVFS.real, let open = real.pointee.xOpen else { return SQLITE_CANTOPEN }
            let inner = FsyncFaultVFS.inner(file)
            inner.pointee.pMethods = nil
            let rc = open(real, name, inner, flags, outFlags)
            // SQLite calls xClose whenever pMethods is set, even after a failed open: mirror the real file.
            file.pointee.pMethods = inner.pointee.pMethods == nil ? nil : UnsafePointer(FsyncFaultVFS.methods)
            return rc
        }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: wrapper)
        sqlite3_vfs_register(vfs, 1)
    }

    private static func inner(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
        (UnsafeMutableRawPointer(file) + headerSize).assumingMemoryBound(to: sqlite3_file.self)
    }

    /// A wrapped file's real file and the real file's methods.
    private struct RealFile {
        var file: UnsafeMutablePointer<sqlite3_file>
        var methods: sqlite3_io_methods
    }

    /// The real file behind `file`; every wrapped call goes through here.
    private static func real(_ file: UnsafeMutablePointer<sqlite3_file>?) -> RealFile? {
        guard let file else { return nil }
        let inner = inner(file)
        guard let methods = inner.pointee.pMethods else { return nil }
        return RealFile(file: inner, methods: methods.pointee)
    }

    private static func makeMethods() -> sqlite3_io_methods {
        var m = sqlite3_io_methods()
        m.iVersion = 3
        m.xClose = { file in
            guard let real = FsyncFaultVFS.real(file) else { return SQLITE_OK }
            return real.methods.xClose?(real.file) ?? SQLITE_OK
        }
        m.xRead = { file, buffer, amount, offset in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xRead else { return SQLITE_IOERR }
            return call(real.file, buffer, amount, offset)
        }
        m.xWrite = { file, buffer, amount, offset in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xWrite else { return SQLITE_IOERR }
            return call(real.file, buffer, amount, offset)
        }
        m.xTruncate = { file, size in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xTruncate else { return SQLITE_IOERR }
            return call(real.file, size)
        }
        m.xSync = { file, flags in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xSync else { return SQLITE_IOERR }
            if IOSeam.errnoFault(.vfsSync) != nil { return FsyncFaultVFS.syncFailure }
            return call(real.file, flags)
        }
        m.xFileSize = { file, size in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xFileSize else { return SQLITE_IOERR }
            return call(real.file, size)
        }
        m.xLock = { file, level in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xLock else { return SQLITE_IOERR }
            return call(real.file, level)
        }
        m.xUnlock = { file, level in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xUnlock else { return SQLITE_IOERR }
            return call(real.file, level)
        }
        m.xCheckReservedLock = { file, result in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xCheckReservedLock else { return SQLITE_IOERR }
            return call(real.file, result)
        }
        m.xFileControl = { file, operation, argument in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xFileControl else { return SQLITE_NOTFOUND }
            return call(real.file, operation, argument)
        }
        m.xSectorSize = { file in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xSectorSize else { return 4096 }
            return call(real.file)
        }
        m.xDeviceCharacteristics = { file in
            guard let real = FsyncFaultVFS.real(file), let call = real.methods.xDeviceCharacteristics else { return 0 }
            return call(real.file)
        }
        m.xShmMap = { file, region, size, extend, pointer in
            guard let real = FsyncFaultVFS.real(file), real.methods.iVersion >= 2, let call = real.methods.xShmMap else { return SQLITE_IOERR }
            return call(real.file, region, size, extend, pointer)
        }
        m.xShmLock = { file, offset, count, flags in
            guard let real = FsyncFaultVFS.real(file), real.methods.iVersion >= 2, let call = real.methods.xShmLock else { return SQLITE_IOERR }
            return call(real.file, offset, count, flags)
        }
        m.xShmBarrier = { file in
            guard let real = FsyncFaultVFS.real(file), real.methods.iVersion >= 2, let call = real.methods.xShmBarrier else { return }
            call(real.file)
        }
        m.xShmUnmap = { file, delete in
            guard let real = FsyncFaultVFS.real(file), real.methods.iVersion >= 2, let call = real.methods.xShmUnmap else { return SQLITE_OK }
            return call(real.file, delete)
        }
        m.xFetch = { file, offset, amount, pointer in
            guard let real = FsyncFaultVFS.real(file), real.methods.iVersion >= 3, let call = real.methods.xFetch else {
                pointer?.pointee = nil
                return SQLITE_OK
            }
            return call(real.file, offset, amount, pointer)
        }
        m.xUnfetch = { file, offset, pointer in
            guard let real = FsyncFaultVFS.real(file), real.methods.iVersion >= 3, let call = real.methods.xUnfetch else { return SQLITE_OK }
            return call(real.file, offset, pointer)
        }
        return m
    }
}
#endif
