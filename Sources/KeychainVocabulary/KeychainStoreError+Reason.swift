#if canImport(FoundationEssentials)
import FoundationEssentials
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The causes a `KeychainStoreError` names, the status Apple returns for each, and each in words.

extension KeychainStoreError {
    /// The precise cause of a store failure. Every case carries what a person needs to find the
    /// problem (a path, a mode, a size, an item's name), never a secret.
    package enum Reason: Sendable, Equatable {
        /// A refusal its status names completely (no more to say).
        case statusOnly
        /// No item matched (`errSecItemNotFound`).
        case itemNotFound
        /// Another item already has this primary key (`errSecDuplicateItem`).
        case duplicateItem
        /// The class key needed is not available while the keychain is locked (`errSecInteractionNotAllowed`).
        case locked
        /// The password is wrong (`errSecAuthFailed`).
        case wrongPassword
        /// A change to an item whose access control (passcode, biometry, user presence,
        /// application password) the caller has not satisfied (`errSecAuthFailed`).
        case accessControlNotSatisfied
        /// An add or update gave an item `.biometryCurrentSet` access control while there is no
        /// enrolled set of fingers to bind it to (`errSecAuthFailed`, as Apple's keychain does
        /// without enrolled biometry): such an item could never be read. Nothing was stored or changed.
        case biometrySetUnavailable(BiometryAbsence)
        /// Keychain data other than an item (the keybag, the schema, the identity) cannot be
        /// decrypted or parsed: altered, truncated or foreign (`errSecDecode`).
        case undecodable(String)
        /// One item cannot be decrypted or parsed (`errSecDecode`); `name` is its label, or its
        /// service and account (quoted), as the user knows it, else its persistent id.
        case damagedItem(name: String, detail: String)
        /// A capability is missing, e.g. a passcode-only class without a password, or the device
        /// key for a ThisDeviceOnly class (`errSecNotAvailable`).
        case notAvailable(String)
        /// The keychain file is older than its rollback anchor, or its generation seal is
        /// missing: it was put back from an older copy (`errSecDecode`).
        case rolledBack(String)
        /// The request itself is invalid (`errSecParam`).
        case invalidParameter(String)
        /// A value (or a whole item) of `size` bytes is over `limit` (`errSecParam`).
        case valueTooLarge(what: String, size: Int, limit: Int)
        /// The directory holding the keychain is not safe: writable by others, shared like
        /// /tmp, another user's, or not a directory (`errSecNotAvailable`).
        case unsafeDirectory(path: String, problem: String)
        /// The keychain file (or one of its side files) can be read or written by group or
        /// others (`errSecNotAvailable`); `mode` is its permission bits.
        case unsafeFileMode(path: String, mode: UInt32)
        /// The keychain path is a symlink or not a regular file (`errSecNotAvailable`).
        case notARegularFile(path: String)
        /// `KEYCHAINKIT_PASSWORD_FILE` (named by `origin`) names a file that cannot be opened
        /// (`errSecNotAvailable`); the error's `systemErrno` says why.
        case passwordFileMissing(origin: String, path: String)
        /// The password file is not safe to use: accessible by others, another user's, not a
        /// regular file, too large (`errSecNotAvailable`).
        case passwordFileUnsafe(origin: String, path: String, problem: String)
        /// The file at the keychain path is not a keychain, e.g. an empty file (`errSecNotAvailable`).
        case notAKeychain(path: String, problem: String)
        /// The keychain file cannot be used for another reason: another user's, hard links, an
        /// unknown format version (`errSecNotAvailable`).
        case unusableKeychain(String)
        /// The keychain file was deleted, or another file put in its place, while this handle
        /// had it open (`errSecNoSuchKeychain`). The text names the path.
        case keychainReplaced(String)
        /// There is no keychain file at the path, and the call only reads or changes items, so
        /// none was created (`errSecItemNotFound`: nothing is stored there). The text names the path.
        case keychainMissing(String)
        /// The keychain file is read-only (`errSecReadOnly`).
        case readOnly
        /// The disk is full (`errSecDiskFull`).
        case diskFull
        /// An I/O error (`errSecIO`); the error's `systemErrno` or `sqliteCode` says which.
        case io(String)
        /// Another connection holds a lock SQLite would not wait for (`errSecIO`), a transient state.
        case busy(String)
        /// SQLite failed in a way no other case names (`errSecInternalComponent`); the error's
        /// `sqliteCode` is SQLite's code.
        case sqlite(String)
        /// Out of memory (`errSecAllocate`).
        case outOfMemory
        /// Any other internal failure (`errSecInternalComponent`).
        case internalFailure(String)

        /// The status Apple's Keychain Services return for this cause.
        var defaultStatus: KeychainStatus {
            switch self {
            case .statusOnly: return .internalComponent
            case .itemNotFound, .keychainMissing: return .itemNotFound
            case .duplicateItem: return .duplicateItem
            case .locked: return .interactionNotAllowed
            case .wrongPassword, .accessControlNotSatisfied, .biometrySetUnavailable: return .authFailed
            case .undecodable, .damagedItem, .rolledBack: return .decode
            case .notAvailable, .unusableKeychain, .unsafeDirectory, .unsafeFileMode, .notARegularFile,
                 .passwordFileMissing, .passwordFileUnsafe, .notAKeychain:
                return .notAvailable
            case .keychainReplaced: return .noSuchKeychain
            case .invalidParameter, .valueTooLarge: return .param
            case .readOnly: return .readOnly
            case .diskFull: return .diskFull
            case .io, .busy: return .io
            case .outOfMemory: return .allocate
            case .sqlite, .internalFailure: return .internalComponent
            }
        }
    }
}

extension KeychainStoreError.Reason {
    /// The cause in words, with the fix; `errno` completes the causes that a system call had.
    func description(errno code: Int32?) -> String {
        let system = code.map { " (\(String(cString: strerror($0))))" } ?? ""
        switch self {
        case .statusOnly: return "The keychain refused the request."
        case .itemNotFound: return "The item could not be found in the keychain."
        case .duplicateItem: return "An item with the same primary key already exists."
        case .locked: return "The keychain is locked and the item's class key is not available."
        case .wrongPassword: return "The keychain password is not correct."
        case .accessControlNotSatisfied: return "The item's access control was not satisfied."
        case .biometrySetUnavailable(let absence):
            return "Nothing was stored or changed: .biometryCurrentSet binds the item to the enrolled fingers, and \(absence.description), "
                + "so the item could never be read. Enrol a finger on a working reader and try again, or use "
                + ".biometryAny (any finger enrolled later opens it) or .userPresence (a finger or the keychain password)."
        case .undecodable(let what): return "Unable to decode \(what): it was altered, truncated or written elsewhere."
        case .damagedItem(let name, let detail):
            return "The keychain's item \(name) is damaged or was altered: \(detail). Delete it and store it again, "
                + "or restore the keychain from a backup."
        case .rolledBack(let what): return "The keychain file was rolled back to an older copy: \(what)"
        case .notAvailable(let what): return "Not available: \(what)"
        case .invalidParameter(let what): return "Invalid parameter: \(what)"
        case .valueTooLarge(let what, let size, let limit):
            return "Invalid parameter: the \(what) is \(Self.megabytes(size)) MB; the limit is \(limit >> 20) MiB (\(Self.megabytes(limit)) MB)."
        case .unsafeDirectory(_, let problem): return "The keychain cannot be used: \(problem)"
        case .unsafeFileMode(let path, let mode):
            return "The keychain cannot be used: \(path) is accessible by group or others (mode \(String(mode, radix: 8))); run chmod 600 on it"
        case .notARegularFile(let path):
            return "The keychain cannot be used: \(path) is not a regular file (symlinks are refused); "
                + "keep the keychain file itself at that path, or point KEYCHAINKIT_KEYCHAIN at the real file"
        case .passwordFileMissing(let origin, let path):
            return "Not available: \(origin) (\(path)) names a file that cannot be read\(system); "
                + "create it with mode 0600, or unset \(origin)"
        case .passwordFileUnsafe(let origin, let path, let problem):
            return "Not available: \(origin) (\(path)) \(problem)"
        case .notAKeychain(_, let problem): return "The keychain cannot be used: \(problem)"
        case .unusableKeychain(let what): return "The keychain cannot be used: \(what)"
        case .keychainReplaced(let path):
            return "The keychain file \(path) was deleted or replaced while open; nothing was read or written. "
                + "Restore the file if that was a mistake; the next call opens whatever keychain is at that path now."
        case .keychainMissing(let path):
            return "There is no keychain at \(path): nothing was read and nothing was created. Storing an item (or "
                + "keychainctl create-keychain) creates it; if this is not the path you meant, check KEYCHAINKIT_KEYCHAIN."
        case .readOnly: return "The keychain file is read-only."
        case .diskFull: return "The disk is full."
        case .io(let what): return "I/O error: \(what)"
        case .busy(let what): return "The keychain is busy: \(what)"
        case .sqlite(let what): return "Internal error: \(what)"
        case .outOfMemory: return "Out of memory."
        case .internalFailure(let what): return "Internal error: \(what)"
        }
    }

    /// `bytes` in decimal megabytes with one decimal, rounded.
    private static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
