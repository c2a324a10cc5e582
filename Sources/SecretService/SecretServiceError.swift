#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The errors of the Secret Service model, one for each error the D-Bus layer reports
/// (`org.freedesktop.Secret.Error.*`, `org.freedesktop.DBus.Error.*`).
///
/// Messages never contain secrets, passwords or ciphertext details (a padding failure and a
/// wrong IV length read the same).
package enum SecretServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The collection, item, alias or session named does not exist (`org.freedesktop.Secret.Error.NoSuchObject`).
    case noSuchObject
    /// The collection is locked (`org.freedesktop.Secret.Error.IsLocked`).
    case isLocked
    /// The session is unknown or closed (`org.freedesktop.Secret.Error.NoSession`).
    case noSession
    /// A malformed argument: bad key, bad ciphertext, bad id (`org.freedesktop.DBus.Error.InvalidArgs`).
    case invalidArgument(String)
    /// The object already exists.
    case alreadyExists
    /// The password given to unlock a collection is wrong.
    case wrongPassword
    /// Something the spec allows that this provider does not do (`org.freedesktop.DBus.Error.NotSupported`).
    case notSupported(String)
    /// The keychain call failed with this `OSStatus`; `reason` is the cause and the fix when the
    /// keychain knew more than the status says (never a secret).
    case storage(status: Int32, reason: String? = nil)
    /// The collection's keychain file (at this path) was deleted or replaced while the provider
    /// had it open: nothing is read from or written to it any more.
    case keychainFileGone(path: String)

    /// A message for logs and D-Bus error replies, never with secret material.
    package var description: String {
        switch self {
        case .noSuchObject: "No such object"
        case .isLocked: "The collection is locked"
        case .noSession: "No such session"
        case .invalidArgument(let what): "Invalid argument: \(what)"
        case .alreadyExists: "The object already exists"
        case .wrongPassword: "Wrong password"
        case .notSupported(let what): "Not supported: \(what)"
        case .storage(let status, let reason): "Keychain error \(status)" + (reason.map { ": " + $0 } ?? "")
        case .keychainFileGone(let path):
            "The keychain file \(path) was deleted or replaced while the Secret Service provider was running; nothing was stored. "
                + "Restore the file, or restart the provider (keychainctl secret-service) to use the file the path names now"
        }
    }
}
