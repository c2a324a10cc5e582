import Foundation
import KeychainPrimitives

/// Docker's `~/.docker/config.json`: the `auths` object maps a registry (`https://index.docker.io/v1/`,
/// `ghcr.io`, `localhost:5000`) to `{"auth": base64("user:password")}`, or to an
/// `identitytoken` (stored, as Docker's helpers store it, for the user `<token>`), or (older files)
/// to separate `username` and `password`. Entries without any of these (Docker writes `{}` when a
/// credential helper holds the secret) are skipped.
public enum DockerConfigParser {
    /// The helper name `removingSecrets` sets as `credsStore` when none is set:
    /// `docker-credential-keychainkit`.
    public static let helperName = "keychainkit"

    /// The credentials in `content`.
    public static func parse(_ content: Data, file: String) throws(CredentialFileError) -> ParsedCredentialFile {
        let (root, text) = try object(content, file: file)
        guard let authsValue = root["auths"] else { return ParsedCredentialFile(credentials: []) }
        let authsLine = line(ofKey: "auths", in: text, after: text.startIndex)
        guard let auths = authsValue as? [String: Any] else {
            throw CredentialFileError(file: file, line: authsLine.line, reason: "\"auths\" is not an object")
        }
        var credentials: [PlainTextCredential] = []
        for server in auths.keys.sorted() {
            let entryLine = line(ofKey: server, in: text, after: authsLine.index).line
            func fail(_ reason: String) -> CredentialFileError { CredentialFileError(file: file, line: entryLine, reason: reason) }
            guard let entry = auths[server] as? [String: Any] else { throw fail("the entry of a registry is not an object") }
            guard isRegistry(server) else { throw fail("the registry name is not a host or URL") }
            if let token = entry["identitytoken"] {
                guard let token = token as? String, !token.isEmpty else { throw fail("\"identitytoken\" is not a non-empty string") }
                credentials.append(PlainTextCredential(location: .dockerRegistry(server), account: "<token>",
                                                       secret: Data(token.utf8), line: entryLine))
                continue
            }
            if let auth = entry["auth"] {
                guard let encoded = auth as? String else { throw fail("\"auth\" is not a string") }
                if encoded.isEmpty { continue }
                guard let decoded = Data(base64Encoded: encoded), let pair = String(data: decoded, encoding: .utf8) else {
                    throw fail("\"auth\" is not base64 of UTF-8 text")
                }
                guard let colon = pair.firstIndex(of: ":"), colon != pair.startIndex else {
                    throw fail("\"auth\" does not decode to user:password")
                }
                credentials.append(PlainTextCredential(location: .dockerRegistry(server), account: String(pair[..<colon]),
                                                       secret: Data(pair[pair.index(after: colon)...].utf8), line: entryLine))
                continue
            }
            if let user = entry["username"] as? String, let password = entry["password"] as? String, !user.isEmpty {
                credentials.append(PlainTextCredential(location: .dockerRegistry(server), account: user,
                                                       secret: Data(password.utf8), line: entryLine))
            } else if entry["username"] != nil || entry["password"] != nil {
                throw fail("\"username\" and \"password\" must both be strings")
            }
        }
        return ParsedCredentialFile(credentials: credentials)
    }

    /// The file without secrets: every `auths` entry emptied (Docker keeps `{}` for a registry
    /// whose secret a helper holds) and `credsStore` set to ``helperName`` unless one is set.
    /// Every other setting stays.
    public static func removingSecrets(_ content: Data, file: String) throws(CredentialFileError) -> Data {
        var (root, _) = try object(content, file: file)
        if let auths = root["auths"] as? [String: Any] {
            root["auths"] = auths.mapValues { entry -> Any in
                guard var fields = entry as? [String: Any] else { return entry }
                for secret in ["auth", "identitytoken", "registrytoken", "username", "password"] { fields[secret] = nil }
                return fields
            }
        }
        if root["credsStore"] == nil { root["credsStore"] = helperName }
        do {
            return try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
        } catch {
            throw CredentialFileError(file: file, line: 1, reason: "cannot write the settings back as JSON")
        }
    }

    private static func object(_ content: Data, file: String) throws(CredentialFileError) -> ([String: Any], String) {
        let lines = try SourceText.lines(content, file: file)  // UTF-8 and NUL checks with a line
        let text = lines.joined(separator: "\n")
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: content, options: [])
        } catch {
            throw CredentialFileError(file: file, line: errorLine(ofInvalid: content) ?? 1, reason: "not valid JSON")
        }
        guard let root = parsed as? [String: Any] else {
            throw CredentialFileError(file: file, line: 1, reason: "the file is not a JSON object")
        }
        return (root, text)
    }

    /// The line of the error in `content`, JSON that does not parse. Foundation's error depends on
    /// the bytes, not only the lines (a `\u` escape cut short reads four bytes on: with CRLF ends
    /// it fails there, with LF at the end of the file), so the place is looked for in the text with
    /// its CRLF line ends made LF: the same lines, and the same answer for a Windows copy of a file.
    private static func errorLine(ofInvalid content: Data) -> Int? {
        let unixLineEnds = Data(content.enumerated().compactMap { index, byte in
            byte == UInt8(ascii: "\r") && content.dropFirst(index + 1).first == UInt8(ascii: "\n") ? nil : byte
        })
        do {
            _ = try JSONSerialization.jsonObject(with: unixLineEnds, options: [])
            return nil  // only a CR made it invalid: no line to blame
        } catch {
            return errorLine(error, in: unixLineEnds)
        }
    }

    /// The line Foundation's JSON error points at: it names a line ("around line 3, column 5.") or
    /// a byte offset ("around character 25.", "… at 25."), depending on the platform and the error;
    /// "Unexpected end of file" names no place, and the text ran out at its last line that is not blank.
    private static func errorLine(_ error: Error, in content: Data) -> Int? {
        let details = (error as NSError).userInfo.values.compactMap { $0 as? String }.joined(separator: " ")
        if let range = details.range(of: "line "), let line = Int(details[range.upperBound...].prefix(while: \.isNumber)) {
            return line
        }
        if let range = details.range(of: "character "), let offset = Int(details[range.upperBound...].prefix(while: \.isNumber)) {
            return line(ofOffset: offset, in: content)
        }
        if let offset = details.firstMatch(of: #/ at ([0-9]+)\.?$/#).flatMap({ Int($0.output.1) }) {
            return line(ofOffset: offset, in: content)
        }
        guard details.contains("end of file"),
              let last = content.lastIndex(where: { !" \t\r\n".utf8.contains($0) }) else { return nil }
        return line(ofOffset: content.distance(from: content.startIndex, to: last), in: content)
    }

    /// The 1-based line of the byte at `offset`.
    private static func line(ofOffset offset: Int, in content: Data) -> Int {
        content.prefix(offset).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }

    /// The line of the first `"key"` at or after `start` (1 when not found: the text was valid JSON,
    /// so the key is there unless escaped differently).
    private static func line(ofKey key: String, in text: String, after start: String.Index) -> (line: Int, index: String.Index) {
        guard let found = text.range(of: "\"\(key)\"", range: start..<text.endIndex) else { return (1, start) }
        return (TextLines.number(of: found.lowerBound, in: text), found.upperBound)
    }

    /// A registry name: a host with optional scheme, port and path.
    private static func isRegistry(_ server: String) -> Bool {
        var rest = Substring(server)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = rest.prefix(while: { $0 != "/" })
        return !authority.isEmpty && GitCredentialsParser.hostAndPort(authority) != nil
    }
}
