#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// GitHub CLI's `hosts.yml` (`~/.config/gh/hosts.yml`), which `gh auth login` writes when it finds
/// no keyring: per host an `oauth_token` and `user`, and (gh 2.40 and later) a `users` map with
/// each account's `oauth_token`. Each token becomes the `https` internet password of that host
/// and user, which git (through `keychainctl git-credential`) and `keychainctl exec
/// --env GH_TOKEN=internet:https://github.com` find.
///
/// Only the YAML this file uses is read: block mappings of `key: value` lines indented with
/// spaces, plain, single- and double-quoted scalars, `#` comments. Anything else (sequences,
/// flow collections, anchors, block scalars, tabs) is an error naming its line, never a guess.
public enum GitHubHostsParser {
    /// One `key: value` line of the file.
    struct Entry {
        /// The keys from the top level down to this one.
        var path: [String]
        /// The scalar, or nil for a mapping (`key:` with the children below).
        var value: String?
        /// The 1-based line.
        var line: Int
    }

    /// The tokens in `content`.
    public static func parse(_ content: Data, file: String) throws(CredentialFileError) -> ParsedCredentialFile {
        let entries = try self.entries(content, file: file)
        var tokens: [(host: String, user: String?, token: String, line: Int)] = []
        var activeUser: [String: String] = [:]
        for entry in entries {
            func fail(_ reason: String) -> CredentialFileError { CredentialFileError(file: file, line: entry.line, reason: reason) }
            let path = entry.path
            if path.count == 1 {
                guard entry.value == nil else { throw fail("a host must be a mapping (host: followed by indented settings)") }
                guard SourceText.isHost(path[0]) else { throw fail("the host name is not valid") }
            } else if path.count == 2 && path[1] == "user" {
                guard let user = entry.value, !user.isEmpty else { throw fail("\"user\" is not a name") }
                activeUser[path[0]] = user
            } else if let place = tokenPlace(path) {
                guard let token = entry.value else { throw fail("\"oauth_token\" is not a scalar") }
                if !token.isEmpty { tokens.append((path[0], place.account, token, entry.line)) }
            }
        }
        var credentials: [PlainTextCredential] = []
        for found in tokens {
            let user = found.user ?? activeUser[found.host]
            let credential = PlainTextCredential(location: .url(scheme: "https", host: found.host.lowercased(), port: nil, path: nil),
                                                 account: user, secret: Data(found.token.utf8), line: found.line)
            if let same = credentials.firstIndex(where: { $0.location == credential.location && $0.account == credential.account }) {
                guard credentials[same].secret == credential.secret else {
                    throw CredentialFileError(file: file, line: found.line,
                                              reason: "a second, different token for the same host and user (first at line \(credentials[same].line))")
                }
                continue
            }
            credentials.append(credential)
        }
        return ParsedCredentialFile(credentials: credentials)
    }

    /// A key path where gh keeps a token.
    private struct TokenPlace {
        /// The account `host.users.<account>.oauth_token` names; nil for `host.oauth_token`, the
        /// active account's (its name is the host's `user`).
        var account: String?
    }

    /// The token place `path` is, or nil for a key path that holds no token.
    private static func tokenPlace(_ path: [String]) -> TokenPlace? {
        if path.count == 2 && path[1] == "oauth_token" { return TokenPlace(account: nil) }
        if path.count == 4 && path[1] == "users" && path[3] == "oauth_token" { return TokenPlace(account: path[2]) }
        return nil
    }

    /// The file without the token lines `parse` reads; every other line (user, git_protocol,
    /// comments, an `oauth_token` key anywhere gh does not keep a token) stays byte for byte.
    ///
    /// Only scalar lines are removed, and a scalar line has no children, so the lines left keep
    /// their structure.
    public static func removingTokens(_ content: Data, file: String) throws(CredentialFileError) -> Data {
        let tokenLines = Set(try entries(content, file: file).filter { $0.value != nil && tokenPlace($0.path) != nil }.map(\.line))
        // Split the bytes themselves, so line endings (CRLF too) and a final newline are kept.
        let lines = content.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let kept = lines.enumerated().filter { !tokenLines.contains($0.offset + 1) }.map(\.element)
        return Data(kept.joined(separator: [UInt8(ascii: "\n")]))
    }

    /// Every `key: value` line, with its key path.
    static func entries(_ content: Data, file: String) throws(CredentialFileError) -> [Entry] {
        var entries: [Entry] = []
        // Open mappings: their indentation, key, and the indentation of their children once seen.
        var open: [(indent: Int, key: String, childIndent: Int?)] = []
        var topIndent: Int?
        for (offset, raw) in try SourceText.lines(content, file: file).enumerated() {
            let number = offset + 1
            func fail(_ reason: String) -> CredentialFileError { CredentialFileError(file: file, line: number, reason: reason) }
            let indentation = raw.prefix(while: { $0 == " " || $0 == "\t" })
            let body = raw[indentation.endIndex...]
            if body.isEmpty || body.hasPrefix("#") { continue }
            guard !indentation.contains("\t") else { throw fail("indented with a tab (YAML allows spaces only)") }
            if number == 1 && body == "---" { continue }
            let indent = indentation.count
            while let last = open.last, last.indent >= indent { open.removeLast() }
            if let parent = open.last {
                if let expected = parent.childIndent, expected != indent {
                    throw fail("indented differently from the line before at the same level")
                }
                open[open.count - 1].childIndent = indent
            } else {
                if let expected = topIndent, expected != indent { throw fail("indented differently from the other top-level keys") }
                topIndent = indent
            }
            let (key, value) = try keyAndValue(body, fail: fail)
            entries.append(Entry(path: open.map(\.key) + [key], value: value, line: number))
            if value == nil { open.append((indent, key, nil)) }
        }
        return entries
    }

    /// `key: value` or `key:`, with the scalar unquoted; errors for YAML this reader does not take.
    private static func keyAndValue(_ body: Substring, fail: (String) -> CredentialFileError) throws(CredentialFileError) -> (String, String?) {
        if body.hasPrefix("- ") || body == "-" { throw fail("a YAML sequence; hosts.yml has none (only key: value lines)") }
        var rest = body
        let key: String
        if let quote = rest.first, quote == "\"" || quote == "'" {
            let (text, after) = try quoted(rest, fail: fail)
            key = text
            rest = after
            guard rest.hasPrefix(":") else { throw fail("expected \":\" after a quoted key") }
        } else {
            guard let colon = rest.firstIndex(where: { $0 == ":" }) else { throw fail("not a key: value line") }
            key = String(rest[..<colon]).trimmingWhitespace()
            rest = rest[colon...]
        }
        rest = rest.dropFirst()  // the colon
        guard rest.isEmpty || rest.first == " " else { throw fail("expected a space after \":\"") }
        rest = rest.drop(while: { $0 == " " })
        guard !key.isEmpty else { throw fail("an empty key") }
        if rest.isEmpty || rest.hasPrefix("#") { return (key, nil) }
        if let first = rest.first, "{[&*!|>%@`".contains(first) {
            throw fail("a YAML value form this reader does not take (flow collection, anchor, tag or block scalar)")
        }
        if let quote = rest.first, quote == "\"" || quote == "'" {
            let (text, after) = try quoted(rest, fail: fail)
            let trailing = after.drop(while: { $0 == " " })
            guard trailing.isEmpty || trailing.hasPrefix("#") else { throw fail("text after a quoted value") }
            return (key, text)
        }
        var plain = rest
        if let comment = plain.firstRange(of: " #") { plain = plain[..<comment.lowerBound] }
        return (key, String(plain).trimmingWhitespace())
    }

    /// A single-quoted (`''` is a quote) or double-quoted (`\"`, `\\`, `\n`, `\t`) scalar on one line.
    private static func quoted(_ text: Substring, fail: (String) -> CredentialFileError) throws(CredentialFileError) -> (String, Substring) {
        let quote = text.first!
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == quote {
                if quote == "'", next < text.endIndex, text[next] == "'" {
                    result.append("'")
                    index = text.index(after: next)
                    continue
                }
                return (result, text[next...])
            }
            if quote == "\"" && character == "\\" {
                guard next < text.endIndex else { break }
                switch text[next] {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "/": result.append("/")
                case "n": result.append("\n")
                case "t": result.append("\t")
                default: throw fail("an escape in a double-quoted value this reader does not take")
                }
                index = text.index(after: next)
                continue
            }
            result.append(character)
            index = next
        }
        throw fail("a quoted value is not closed on its line")
    }
}
