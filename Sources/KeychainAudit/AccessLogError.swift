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

/// Why the access log could not be written or read. Every message names the log and what to do;
/// none contains a secret (entries are described by their sequence number and file, never their content).
package enum AccessLogError: Error, Equatable, CustomStringConvertible {
    /// The keychain is locked in a way that keeps the log key unreadable (it has not been unlocked
    /// since login): nothing can be recorded, so nothing may be read.
    case keychainLocked(keychain: String)
    /// A keychain call on the log key failed with `status`.
    case keychain(status: Int32, operation: String, keychain: String)
    /// Log files exist but the keychain has no key for them (the key item was deleted, or the
    /// keychain was replaced by another): the log can be neither verified nor continued.
    case keyMissing(log: String)
    /// The log fails verification: `entry` (a sequence number, or nil when no entry can be named)
    /// in `file` at byte `offset`, for `reason`.
    case altered(file: String, offset: Int, entry: UInt64?, reason: String)
    /// A file system call failed.
    case io(path: String, operation: String, errno: Int32)
    /// One entry would exceed the frame limit (an implausibly long caller chain).
    case entryTooLarge(Int)
    /// Encrypting an entry failed (the message says where; never the entry's content).
    case encryption(reason: String)
    /// A setting from the environment is not usable.
    case invalidSetting(name: String, value: String, expected: String)

    package var description: String {
        switch self {
        case .keychainLocked(let keychain):
            return "the access log of \(keychain) cannot be written: its key is locked (the keychain has not been "
                + "unlocked since login); unlock it with keychainctl unlock-keychain"
        case .keychain(let status, let operation, let keychain):
            return "the access log's key in \(keychain) could not be used: \(operation) failed with status \(status)"
        case .keyMissing(let log):
            return "the access log \(log) exists but its keychain holds no key for it (the key item was deleted, or "
                + "the keychain was replaced): it cannot be verified or continued; move the log files aside "
                + "(\(log)*) to start a new log"
        case .altered(let file, let offset, let entry, let reason):
            let which = entry.map { "entry \($0)" } ?? "an entry"
            return "the access log was altered: \(which) in \(file) at byte \(offset): \(reason)"
        case .io(let path, let operation, let code):
            return "the access log \(path) could not be written or read: \(operation) failed: \(String(cString: strerror(code)))"
        case .entryTooLarge(let size):
            return "an access-log entry of \(size) bytes exceeds the limit of \(AccessLogFrame.maximumContentSize) bytes"
        case .encryption(let reason):
            return "an access-log entry could not be encrypted: \(reason)"
        case .invalidSetting(let name, let value, let expected):
            return "\(name)=\(value) is not usable: expected \(expected)"
        }
    }
}
