#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One credential found in a plain-text file that a tool wrote (`~/.netrc`, `~/.git-credentials`,
/// Docker's `config.json`, GitHub CLI's `hosts.yml`, a `.env` file), ready to become a keychain item.
///
/// Its `description` names where it is and whom it is for, never the secret.
public struct PlainTextCredential: Sendable, Equatable, CustomStringConvertible {
    /// Where the credential is used, which decides the keychain item it becomes.
    public enum Location: Sendable, Equatable, Hashable {
        /// An internet password: URL scheme (`https`), host, port, path (without a leading slash,
        /// as git sends it).
        case url(scheme: String, host: String, port: Int?, path: String?)
        /// A Docker registry as Docker's `config.json` names it (`https://index.docker.io/v1/`,
        /// `ghcr.io`); it becomes an internet password the way Docker's credential helpers store it.
        case dockerRegistry(String)
        /// A generic password of this service (a `.env` variable: the account is its name).
        case generic(service: String)
    }

    /// Where the credential is used.
    public var location: Location
    /// The user name (nil when the file names none).
    public var account: String?
    /// The secret.
    public var secret: Data
    /// The 1-based line of the source file where the credential starts.
    public var line: Int

    /// A credential found at `line`.
    public init(location: Location, account: String?, secret: Data, line: Int) {
        self.location = location
        self.account = account
        self.secret = secret
        self.line = line
    }

    /// The item's identity without the secret: `https://alice@example.com:8443/org/repo.git`,
    /// `docker ghcr.io (user)`, `generic service/account`.
    public var description: String {
        let user = account.map { "\($0)@" } ?? ""
        switch location {
        case .url(let scheme, let host, let port, let path):
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return "\(scheme)://\(user)\(shownHost)\(port.map { ":\($0)" } ?? "")\(path.map { "/\($0)" } ?? "")"
        case .dockerRegistry(let server):
            return "docker registry \(server) (\(account ?? "no user"))"
        case .generic(let service):
            return "generic password \(service)/\(account ?? "")"
        }
    }
}

/// A credential file that cannot be imported as it is: the file, the 1-based line and why.
/// Never contains any part of the file's content (a misplaced secret must not reach a terminal).
public struct CredentialFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, as the user named it.
    public var file: String
    /// The 1-based line.
    public var line: Int
    /// What is wrong and, where it helps, how to fix it.
    public var reason: String

    /// An error at `line` of `file`.
    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `file:line: reason`, the way compilers name a place.
    public var description: String { "\(file):\(line): \(reason)" }
}

/// What a parser found in one file: the credentials, and what it saw but cannot import (so
/// the file must not be removed).
public struct ParsedCredentialFile: Sendable, Equatable {
    /// The credentials, in file order.
    public var credentials: [PlainTextCredential]
    /// Entries that stay behind, each with its line and why (never their content).
    public var leftovers: [String]

    /// A parse result.
    public init(credentials: [PlainTextCredential], leftovers: [String] = []) {
        self.credentials = credentials
        self.leftovers = leftovers
    }
}
