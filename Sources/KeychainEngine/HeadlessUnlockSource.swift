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
import KeychainStore
import KeychainVocabulary

/// Where a process without a person at a prompt finds its keychain password: a file named by
/// `KEYCHAINKIT_PASSWORD_FILE`, else the systemd credential `keychainkit.password` in
/// `$CREDENTIALS_DIRECTORY` (what `LoadCredential=`, `LoadCredentialEncrypted=` and `SetCredential=`
/// provide, systemd.exec(5) "Credentials"). Both are read with the same checks (`PasswordFile`):
/// a regular file of this user or root that group and others cannot access; a password file may
/// be a symbolic link (secret stores link files into place), a systemd credential may not
/// (systemd writes credentials as regular files, so a link is something else's).
package enum HeadlessUnlockSource: Sendable, Equatable {
    /// `KEYCHAINKIT_PASSWORD_FILE` names this file.
    case passwordFile(String)
    /// The systemd credential at this path (`$CREDENTIALS_DIRECTORY/keychainkit.password`).
    case systemdCredential(String)

    /// The credential name a unit passes (`LoadCredentialEncrypted=keychainkit.password:…`).
    package static let systemdCredentialName = "keychainkit.password"

    /// The source the configuration names: `passwordFile` (`KEYCHAINKIT_PASSWORD_FILE`, an explicit
    /// choice) first, then the systemd credential in `credentialsDirectory` (`CREDENTIALS_DIRECTORY`)
    /// if that file exists; nil for neither.
    package static func find(passwordFile: String?, credentialsDirectory: String?) -> HeadlessUnlockSource? {
        if let path = passwordFile, !path.isEmpty { return .passwordFile(path) }
        guard let directory = credentialsDirectory, directory.hasPrefix("/") else { return nil }
        let path = directory + "/" + systemdCredentialName
        var info = stat()
        // lstat: a credential that is a dangling link still counts (and fails at read with a reason).
        guard lstat(path, &info) == 0 else { return nil }
        return .systemdCredential(path)
    }

    /// The file's path.
    package var path: String {
        switch self {
        case .passwordFile(let path), .systemdCredential(let path): return path
        }
    }

    /// How errors name the source.
    var origin: String {
        switch self {
        case .passwordFile: return KeychainVariable.passwordFile
        case .systemdCredential: return "the systemd credential \(Self.systemdCredentialName)"
        }
    }

    /// The password (one trailing newline removed). Read at each call, never kept.
    package func password() throws(KeychainStoreError) -> Data {
        var password = try PasswordFile.read(path, origin: origin, followingLinks: self == .passwordFile(path))
        if password.last == UInt8(ascii: "\n") { password.removeLast() }
        if password.last == UInt8(ascii: "\r") { password.removeLast() }
        return password
    }
}
