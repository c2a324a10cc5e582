#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a store operation failed. Every case maps to the `OSStatus` Apple returns in the same
/// situation; the associated text names the problem, never a secret or an attribute value.
public enum KeychainStoreError: Error, Sendable, Equatable {
    /// No item matched (`errSecItemNotFound`).
    case itemNotFound
    /// Another item already has this primary key (`errSecDuplicateItem`).
    case duplicateItem
    /// The class key needed is not available while the keychain is locked (`errSecInteractionNotAllowed`).
    case locked
    /// The password is wrong (`errSecAuthFailed`).
    case wrongPassword
    /// A change to an item whose access control (passcode, biometry, user presence, application
    /// password) the caller has not satisfied (errSecAuthFailed).
    case accessControlNotSatisfied
    /// The item or keybag cannot be decrypted: altered, truncated or foreign (`errSecDecode`).
    case undecodable(String)
    /// A capability is missing, e.g. a passcode-only class without a password, or the device
    /// key for a ThisDeviceOnly class (`errSecNotAvailable`).
    case notAvailable(String)
    /// The keychain file is older than its rollback anchor, or its generation seal is missing:
    /// it was put back from an older copy (`errSecDecode`).
    case rolledBack(String)
    /// The request itself is invalid (`errSecParam`).
    case invalidParameter(String)
    /// The keychain file cannot be used: wrong permissions, wrong owner, a symlink, an unknown
    /// format version (`errSecNotAvailable`).
    case unusableKeychain(String)
    /// The keychain file was deleted, or another file put in its place, while this handle had it
    /// open: its name no longer leads to the file the handle reads and writes, so a write would
    /// land in a file nobody opens again (`errSecNoSuchKeychain`). The text names the path.
    case keychainReplaced(String)
    /// There is no keychain file at the path, and the call only reads or changes items, so none
    /// was created (`errSecItemNotFound`: nothing is stored there). The text names the path.
    case keychainMissing(String)
    /// The keychain file is read-only (`errSecReadOnly`).
    case readOnly
    /// The disk is full (`errSecDiskFull`).
    case diskFull
    /// An I/O error (`errSecIO`).
    case io(String)
    /// Out of memory (`errSecAllocate`).
    case outOfMemory
    /// Any other internal failure (`errSecInternalComponent`).
    case internalFailure(String)

    /// The `OSStatus` Apple's Keychain Services return for this failure.
    public var osStatus: Int32 {
        switch self {
        case .itemNotFound: return -25300
        case .duplicateItem: return -25299
        case .locked: return -25308
        case .wrongPassword, .accessControlNotSatisfied: return -25293
        case .undecodable, .rolledBack: return -26275
        case .notAvailable, .unusableKeychain: return -25291
        case .keychainReplaced: return -25294
        case .keychainMissing: return -25300
        case .invalidParameter: return -50
        case .readOnly: return -25292
        case .diskFull: return -34
        case .io: return -36
        case .outOfMemory: return -108
        case .internalFailure: return -2070
        }
    }
}

extension KeychainStoreError: CustomStringConvertible {
    /// A sentence for people and logs; contains no secret.
    public var description: String {
        switch self {
        case .itemNotFound: return "The item could not be found in the keychain."
        case .duplicateItem: return "An item with the same primary key already exists."
        case .locked: return "The keychain is locked and the item's class key is not available."
        case .wrongPassword: return "The keychain password is not correct."
        case .accessControlNotSatisfied: return "The item's access control was not satisfied."
        case .undecodable(let what): return "Unable to decode \(what): it was altered, truncated or written elsewhere."
        case .rolledBack(let what): return "The keychain file was rolled back to an older copy: \(what)"
        case .notAvailable(let what): return "Not available: \(what)"
        case .invalidParameter(let what): return "Invalid parameter: \(what)"
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
        case .outOfMemory: return "Out of memory."
        case .internalFailure(let what): return "Internal error: \(what)"
        }
    }
}

extension KeychainStoreError {
    /// The largest item (value and attributes) a keychain stores: 16 MiB.
    package static let maximumItemSize = 16 << 20

    /// The refusal of a value (or item) of `size` bytes, over ``maximumItemSize``.
    package static func valueTooLarge(_ size: Int, what: String = "value") -> KeychainStoreError {
        let tenths = (size + 50_000) / 100_000
        return .invalidParameter("the \(what) is \(tenths / 10).\(tenths % 10) MB; the limit is 16 MiB (16.8 MB)")
    }
}

extension KeychainStoreError {
    /// The cause and the fix for people, when the error knows more than its status says (Apple's
    /// text for the status is the rest); nil for the failures the status alone names. Contains no
    /// secret. keychainctl, the helpers, the Secret Service provider and `KeychainError` show it.
    public var reason: String? {
        switch self {
        case .itemNotFound, .duplicateItem, .wrongPassword, .outOfMemory, .diskFull:
            return nil
        case .locked:
            return "The keychain is locked: unlock it first (keychainctl unlock-keychain, or SecKeychainUnlock)."
        case .accessControlNotSatisfied, .undecodable, .rolledBack, .notAvailable, .invalidParameter,
             .unusableKeychain, .keychainReplaced, .keychainMissing, .readOnly, .io, .internalFailure:
            return description
        }
    }
}

extension KeychainStoreError {
    /// Maps a SQLite failure to the status Apple's client maps the same SQLite code to.
    init(_ error: SQLiteError) {
        // SQLite reports a failed open as SQLITE_CANTOPEN and a failed shared-memory or other
        // write as SQLITE_IOERR_*; the system's errno tells a full disk, and for an open, a
        // refusal (permissions, links) from a failing device.
        if error.primaryCode == 10 /* SQLITE_IOERR */ || error.primaryCode == 14 /* SQLITE_CANTOPEN */ {
            switch error.systemErrno {
            case ENOSPC, EDQUOT: self = .diskFull; return
            case EROFS: self = .readOnly; return
            case 0, EACCES, EPERM, ELOOP, ENOTDIR, EISDIR: break
            default: self = .io(error.message); return
            }
        }
        switch error.primaryCode {
        case 19 /* SQLITE_CONSTRAINT */: self = .duplicateItem
        case 8 /* SQLITE_READONLY */: self = .readOnly
        case 13 /* SQLITE_FULL */: self = .diskFull
        case 10 /* SQLITE_IOERR */: self = .io(error.message)
        case 7 /* SQLITE_NOMEM */: self = .outOfMemory
        case 11 /* SQLITE_CORRUPT */, 26 /* SQLITE_NOTADB */: self = .undecodable("the keychain database")
        case 5 /* SQLITE_BUSY */, 6 /* SQLITE_LOCKED */: self = .io(Self.busyPrefix + error.message)
        case 14 /* SQLITE_CANTOPEN */, 23 /* SQLITE_AUTH */: self = .unusableKeychain(error.message)
        default: self = .internalFailure(error.description)
        }
    }
}

extension KeychainStoreError {
    static let busyPrefix = "the keychain is busy: "

    /// Whether another connection held a lock that SQLite would not wait for (a transient state).
    var isBusy: Bool {
        if case .io(let message) = self { return message.hasPrefix(Self.busyPrefix) }
        return false
    }
}
