#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The plain-text credential files `keychainctl import-credentials` reads.
public enum CredentialFileFormat: String, Sendable, CaseIterable {
    /// `~/.netrc` (curl, ftp, SwiftPM's registry logins on Linux): `machine`/`login`/`password`.
    case netrc
    /// `~/.git-credentials` (git's `store` helper): one `scheme://user:password@host/path` a line.
    case gitCredentials = "git-credentials"
    /// `~/.docker/config.json`: `auths` entries with base64 `user:password`.
    case dockerConfig = "docker-config"
    /// GitHub CLI's `~/.config/gh/hosts.yml`: `oauth_token` per host (and per user).
    case ghHosts = "gh-hosts"
    /// A `.env` file: `NAME=value` lines.
    case dotenv
    /// A Chromium/Chrome or Firefox password export (`*.csv`), told apart by its header row.
    case browserCSV = "browser-csv"
    /// A FIDO Alliance Credential Exchange Format document (`*.cxf`, the JSON data model).
    case cxf

    /// The format a file's name says, or nil: `.netrc`/`_netrc`, `.git-credentials`,
    /// `config.json`, `hosts.yml`, `.env`/`*.env`/`.env.*`, `*.csv`, `*.cxf`.
    public static func fromFileName(_ path: String) -> CredentialFileFormat? {
        let name = PathName.lastComponent(of: path)
        switch name {
        case ".netrc", "_netrc", "netrc": return .netrc
        case ".git-credentials", "git-credentials": return .gitCredentials
        case "config.json": return .dockerConfig
        case "hosts.yml", "hosts.yaml": return .ghHosts
        default:
            if name == ".env" || name.hasSuffix(".env") || name.hasPrefix(".env.") { return .dotenv }
            if name.lowercased().hasSuffix(".csv") { return .browserCSV }
            if name.lowercased().hasSuffix(".cxf") { return .cxf }
            return nil
        }
    }

    /// Parses `content` (from `file`, named in errors). `.env` variables become generic passwords
    /// of `dotenvService`.
    public func parse(_ content: Data, file: String, dotenvService: String) throws(CredentialFileError) -> ParsedCredentialFile {
        switch self {
        case .netrc: return try NetrcParser.parse(content, file: file)
        case .gitCredentials: return try GitCredentialsParser.parse(content, file: file)
        case .dockerConfig: return try DockerConfigParser.parse(content, file: file)
        case .ghHosts: return try GitHubHostsParser.parse(content, file: file)
        case .dotenv: return try DotenvParser.parse(content, file: file, service: dotenvService)
        case .browserCSV: return try BrowserPasswordCSVParser.parse(content, file: file)
        case .cxf: return try CXFDocument.parse(content, file: file)
        }
    }

    /// What the file should become once every credential in it is in the keychain: nil to remove
    /// it (nothing else of value is in it), else the new content without the secrets (Docker's
    /// settings, GitHub CLI's other host settings stay).
    ///
    /// The new content is read back before it is returned: if it would not parse, or would still
    /// hold a credential, this throws and the caller leaves the file as it is.
    public func contentAfterImport(_ content: Data, file: String) throws(CredentialFileError) -> Data? {
        let rewritten: Data
        switch self {
        case .netrc, .gitCredentials, .dotenv, .browserCSV, .cxf: return nil
        case .dockerConfig: rewritten = try DockerConfigParser.removingSecrets(content, file: file)
        case .ghHosts: rewritten = try GitHubHostsParser.removingTokens(content, file: file)
        }
        let unchanged = "it is left as it is; remove its secrets by hand"
        let readBack: ParsedCredentialFile
        do {
            readBack = try parse(rewritten, file: file, dotenvService: "")
        } catch {
            throw CredentialFileError(file: file, line: 1,
                                      reason: "without its secrets the file would not read back (line \(error.line) of the new text: \(error.reason)); \(unchanged)")
        }
        guard readBack.credentials.isEmpty else {
            throw CredentialFileError(file: file, line: readBack.credentials[0].line,
                                      reason: "a credential would stay in the file without its secrets; \(unchanged)")
        }
        return rewritten
    }
}

/// Text helpers the parsers share.
enum SourceText {
    /// The file's lines as UTF-8 text, or an error at the first line that is not UTF-8.
    static func lines(_ content: Data, file: String) throws(CredentialFileError) -> [Substring] {
        guard let text = String(data: content, encoding: .utf8) else {
            // Find the line of the first invalid byte, to say where.
            var line = 1
            var start = content.startIndex
            for index in content.indices where content[index] == UInt8(ascii: "\n") {
                if String(data: content[start..<index], encoding: .utf8) == nil { break }
                line += 1
                start = content.index(after: index)
            }
            throw CredentialFileError(file: file, line: line, reason: "not UTF-8 text")
        }
        if text.contains("\0") {
            let line = TextLines.number(of: text.firstIndex(of: "\0") ?? text.endIndex, in: text)
            throw CredentialFileError(file: file, line: line, reason: "contains a NUL byte (not a text file)")
        }
        // A CR ending the text without a LF after it (a file cut after its CR) ends the line too.
        return TextLines.split(text).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
    }

    /// Decodes `%XX` escapes (as in URLs); nil if an escape is malformed or the result is not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        PercentEncoding.decodeUTF8(text)
    }

    /// Whether `host` is a plausible host name or IP address (no spaces, slashes, `@`, controls).
    static func isHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255
            && host.unicodeScalars.allSatisfy { !$0.properties.isWhitespace && $0.value > 0x20 && $0.value != 0x7F && !"/@?#\\".unicodeScalars.contains($0) }
    }
}
