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

// The store's half of the error: SQLite's result codes are the store's business, so the mapping
// from them lives beside the SQLite connection, not in the vocabulary every layer imports.
extension KeychainStoreError {
    /// Maps a SQLite failure to the status Apple's client maps the same SQLite code to, keeping
    /// SQLite's code and the system's errno.
    init(_ error: SQLiteError) {
        self = Self.reason(for: error)
        sqliteCode = error.extendedCode
        if error.systemErrno != 0 { systemErrno = error.systemErrno }
    }

    private static func reason(for error: SQLiteError) -> KeychainStoreError {
        // SQLite reports a failed open as SQLITE_CANTOPEN and a failed shared-memory or other
        // write as SQLITE_IOERR_*; the system's errno tells a full disk, and for an open, a
        // refusal (permissions, links) from a failing device.
        if error.primaryCode == 10 /* SQLITE_IOERR */ || error.primaryCode == 14 /* SQLITE_CANTOPEN */ {
            switch error.systemErrno {
            case ENOSPC, EDQUOT: return .diskFull
            case EROFS: return .readOnly
            case 0, EACCES, EPERM, ELOOP, ENOTDIR, EISDIR: break
            default: return .io(error.message)
            }
        }
        switch error.primaryCode {
        case 19 /* SQLITE_CONSTRAINT */: return .duplicateItem
        case 8 /* SQLITE_READONLY */: return .readOnly
        case 13 /* SQLITE_FULL */: return .diskFull
        case 10 /* SQLITE_IOERR */: return .io(error.message)
        case 7 /* SQLITE_NOMEM */: return .outOfMemory
        case 11 /* SQLITE_CORRUPT */, 26 /* SQLITE_NOTADB */: return .undecodable("the keychain database")
        case 5 /* SQLITE_BUSY */, 6 /* SQLITE_LOCKED */: return .init(.busy(error.message))
        case 14 /* SQLITE_CANTOPEN */, 23 /* SQLITE_AUTH */: return .unusableKeychain(error.message)
        default: return .init(.sqlite(error.description))
        }
    }

    /// Whether another connection held a lock that SQLite would not wait for (a transient state).
    var isBusy: Bool {
        if case .busy = reason { return true }
        return false
    }
}
