#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a store operation failed: the `OSStatus` Apple returns in the same situation, the
/// precise reason (with what it concerns: a path, a mode, an item's name, a size), and the
/// SQLite result code or `errno` behind it when there is one. Modelled on GRDB's
/// `DatabaseError` (a status, a typed cause, the underlying code).
///
/// Nothing in an error is a secret or an attribute value other than an item's label, service
/// or account (the names a user gave the item, shown so they can tell which one is damaged).
package struct KeychainStoreError: Error, Sendable, Equatable {
    /// The precise cause, with what it concerns.
    package var reason: Reason
    /// The `OSStatus` Apple's Keychain Services return for this failure.
    package var status: KeychainStatus
    /// SQLite's extended result code, when SQLite reported the failure.
    package var sqliteCode: Int32?
    /// The `errno` of the failed system call, when there was one.
    package var systemErrno: Int32?

    /// An error for `reason`, with the status Apple returns for it unless `status` is given.
    package init(_ reason: Reason, status: KeychainStatus? = nil, sqliteCode: Int32? = nil, systemErrno: Int32? = nil) {
        self.reason = reason
        self.status = status ?? reason.defaultStatus
        self.sqliteCode = sqliteCode
        self.systemErrno = systemErrno
    }

    /// A refusal that its status names completely (a request Apple's API rejects the same way).
    package init(status: KeychainStatus) {
        self.init(.statusOnly, status: status)
    }

    /// The `OSStatus` Apple's Keychain Services return for this failure.
    package var osStatus: Int32 { status.rawValue }
}

// The names of the common failures, so that code throws and compares them as before
// (`throw .locked`, `error == .itemNotFound`, `throw .undecodable("the keybag")`).
extension KeychainStoreError {
    /// No item matched.
    package static var itemNotFound: KeychainStoreError { .init(.itemNotFound) }
    /// Another item already has this primary key.
    package static var duplicateItem: KeychainStoreError { .init(.duplicateItem) }
    /// The keychain is locked.
    package static var locked: KeychainStoreError { .init(.locked) }
    /// The password is wrong.
    package static var wrongPassword: KeychainStoreError { .init(.wrongPassword) }
    /// The item's access control was not satisfied.
    package static var accessControlNotSatisfied: KeychainStoreError { .init(.accessControlNotSatisfied) }
    /// The keychain file is read-only.
    package static var readOnly: KeychainStoreError { .init(.readOnly) }
    /// The disk is full.
    package static var diskFull: KeychainStoreError { .init(.diskFull) }
    /// Out of memory.
    package static var outOfMemory: KeychainStoreError { .init(.outOfMemory) }
    /// Keychain data (`what`) cannot be decoded.
    package static func undecodable(_ what: String) -> KeychainStoreError { .init(.undecodable(what)) }
    /// A capability is missing (`what`).
    package static func notAvailable(_ what: String) -> KeychainStoreError { .init(.notAvailable(what)) }
    /// The keychain file was rolled back (`what` says how it was found).
    package static func rolledBack(_ what: String) -> KeychainStoreError { .init(.rolledBack(what)) }
    /// The request is invalid (`what`).
    package static func invalidParameter(_ what: String) -> KeychainStoreError { .init(.invalidParameter(what)) }
    /// The keychain file cannot be used (`what`).
    package static func unusableKeychain(_ what: String) -> KeychainStoreError { .init(.unusableKeychain(what)) }
    /// The keychain file at `path` was deleted or replaced while open.
    package static func keychainReplaced(_ path: String) -> KeychainStoreError { .init(.keychainReplaced(path)) }
    /// There is no keychain at `path`.
    package static func keychainMissing(_ path: String) -> KeychainStoreError { .init(.keychainMissing(path)) }
    /// An I/O error (`what`).
    package static func io(_ what: String) -> KeychainStoreError { .init(.io(what)) }
    /// Any other internal failure (`what`).
    package static func internalFailure(_ what: String) -> KeychainStoreError { .init(.internalFailure(what)) }
}

extension KeychainStoreError: CustomStringConvertible {
    /// A sentence for people and logs: the cause, and the fix where there is one; no secret.
    package var description: String { reason.description(errno: systemErrno) }
}

extension KeychainStoreError {
    /// The largest item (value and attributes) a keychain stores: 16 MiB.
    package static let maximumItemSize = 16 << 20

    /// The refusal of a value (or item) of `size` bytes, over ``maximumItemSize``.
    package static func valueTooLarge(_ size: Int, what: String = "value") -> KeychainStoreError {
        .init(.valueTooLarge(what: what, size: size, limit: maximumItemSize))
    }
}

extension KeychainStoreError {
    /// The cause and the fix for people, when the error knows more than its status says (Apple's
    /// text for the status is the rest); nil for the failures the status alone names. Contains no
    /// secret. keychainctl, the helpers, the Secret Service provider and `KeychainError` show it.
    package var explanation: String? {
        switch reason {
        case .statusOnly, .itemNotFound, .duplicateItem, .wrongPassword, .outOfMemory, .diskFull:
            return nil
        case .locked:
            return "The keychain is locked: unlock it first (keychainctl unlock-keychain, or SecKeychainUnlock)."
        default:
            return description
        }
    }
}

extension KeychainStoreError {
    /// What could not be decoded, when the reason is ``Reason/undecodable(_:)``; nil otherwise.
    package var undecodableSubject: String? {
        if case .undecodable(let what) = reason { return what }
        return nil
    }
}

extension KeychainStoreError {
    /// Matches by reason, so that `catch .duplicateItem` and `case .locked:` hold whatever SQLite
    /// code or errno came with the error.
    package static func ~= (pattern: KeychainStoreError, value: KeychainStoreError) -> Bool {
        pattern.reason == value.reason
    }
}
