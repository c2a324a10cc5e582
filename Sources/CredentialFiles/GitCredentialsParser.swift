#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// `~/.git-credentials` as git's `store` helper writes it: one URL a line,
/// `scheme://user:password@host[:port][/path]`, user and password percent-encoded. Each line
/// becomes the internet password `keychainctl git-credential` answers for the same protocol,
/// host, port and path (the path only when git wrote one: `credential.useHttpPath`).
public enum GitCredentialsParser {
    /// The credentials in `content`. Empty lines are skipped; any other line that is not such a
    /// URL is an error (git would silently ignore it; an import must not).
    public static func parse(_ content: Data, file: String) throws(CredentialFileError) -> ParsedCredentialFile {
        var credentials: [PlainTextCredential] = []
        for (offset, line) in try SourceText.lines(content, file: file).enumerated() {
            let number = offset + 1
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty { continue }
            credentials.append(try credential(Substring(trimmed), line: number, file: file))
        }
        return ParsedCredentialFile(credentials: credentials)
    }

    private static func credential(_ url: Substring, line: Int, file: String) throws(CredentialFileError) -> PlainTextCredential {
        func fail(_ reason: String) -> CredentialFileError { CredentialFileError(file: file, line: line, reason: reason) }
        guard let schemeEnd = url.firstRange(of: "://") else { throw fail("not a URL (expected scheme://user:password@host)") }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            throw fail("the URL's scheme is not valid")
        }
        var rest = url[schemeEnd.upperBound...]
        var path: String?
        if let slash = rest.firstIndex(of: "/") {
            let rawPath = rest[rest.index(after: slash)...]
            guard let decoded = SourceText.percentDecoded(rawPath) else { throw fail("the URL's path has a malformed %-escape") }
            path = decoded.isEmpty ? nil : decoded
            rest = rest[..<slash]
        }
        guard let at = rest.lastIndex(of: "@") else { throw fail("no user name and password before the host (user:password@host)") }
        let userInfo = rest[..<at]
        let authority = rest[rest.index(after: at)...]
        guard let colon = userInfo.firstIndex(of: ":") else { throw fail("no password after the user name (user:password@host)") }
        guard let user = SourceText.percentDecoded(userInfo[..<colon]), !user.isEmpty else { throw fail("the user name is empty or has a malformed %-escape") }
        guard let password = SourceText.percentDecoded(userInfo[userInfo.index(after: colon)...]) else {
            throw fail("the password has a malformed %-escape")
        }
        guard let (host, port) = hostAndPort(authority) else { throw fail("the host (or its port) is not valid") }
        return PlainTextCredential(location: .url(scheme: scheme, host: host, port: port, path: path),
                                   account: user, secret: Data(password.utf8), line: line)
    }

    /// `host`, `host:port`, `[v6]`, `[v6]:port`; host lower-cased; nil when malformed.
    static func hostAndPort(_ authority: Substring) -> (String, Int?)? {
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard let decoded = SourceText.percentDecoded(host), SourceText.isHost(decoded) else { return nil }
        var port: Int?
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number), portText.allSatisfy(\.isASCII) else { return nil }
            port = number
        }
        return (decoded.lowercased(), port)
    }
}
