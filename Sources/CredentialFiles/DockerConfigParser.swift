#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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

    /// The members of an `auths` entry that hold a secret (Docker's own and its helpers' names).
    static let secretMembers: Set<String> = ["auth", "identitytoken", "registrytoken", "username", "password"]

    /// The credentials in `content`.
    public static func parse(_ content: Data, file: String) throws(CredentialFileError) -> ParsedCredentialFile {
        let (bytes, root) = try document(content, file: file)
        guard let authsMember = root.member("auths") else { return ParsedCredentialFile(credentials: []) }
        guard let auths = authsMember.value.members else {
            throw CredentialFileError(file: file, line: line(of: authsMember, in: bytes), reason: "\"auths\" is not an object")
        }
        var credentials: [PlainTextCredential] = []
        for registry in auths.sorted(by: { $0.key < $1.key }) {
            let server = registry.key
            let entryLine = line(of: registry, in: bytes)
            func fail(_ reason: String) -> CredentialFileError { CredentialFileError(file: file, line: entryLine, reason: reason) }
            let entry = registry.value
            guard entry.members != nil else { throw fail("the entry of a registry is not an object") }
            guard isRegistry(server) else { throw fail("the registry name is not a host or URL") }
            if let token = entry["identitytoken"] {
                guard let token = token.string, !token.isEmpty else { throw fail("\"identitytoken\" is not a non-empty string") }
                credentials.append(PlainTextCredential(location: .dockerRegistry(server), account: "<token>",
                                                       secret: Data(token.utf8), line: entryLine))
                continue
            }
            if let auth = entry["auth"] {
                guard let encoded = auth.string else { throw fail("\"auth\" is not a string") }
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
            if let user = entry["username"]?.string, let password = entry["password"]?.string, !user.isEmpty {
                credentials.append(PlainTextCredential(location: .dockerRegistry(server), account: user,
                                                       secret: Data(password.utf8), line: entryLine))
            } else if entry["username"] != nil || entry["password"] != nil {
                throw fail("\"username\" and \"password\" must both be strings")
            }
        }
        return ParsedCredentialFile(credentials: credentials)
    }

    /// The file without secrets: every `auths` entry emptied of ``secretMembers`` (Docker keeps
    /// `{}` for a registry whose secret a helper holds) and `credsStore` set to ``helperName``
    /// unless one is set. Every other setting stays, and so does the file's own order and layout:
    /// only the bytes of the removed members change (an entry left with no member becomes `{}`),
    /// and `credsStore` is added after the last setting, indented like it.
    public static func removingSecrets(_ content: Data, file: String) throws(CredentialFileError) -> Data {
        let (bytes, root) = try document(content, file: file)
        // Replacements of byte ranges that do not overlap.
        var edits: [(range: Range<Int>, bytes: [UInt8])] = []
        for entry in root["auths"]?.members ?? [] {
            guard let fields = entry.value.members else { continue }
            let kept = fields.indices.filter { !secretMembers.contains(fields[$0].key) }
            guard kept.count < fields.count else { continue }
            edits.append((entry.value.span, object(entry.value, keeping: kept, in: bytes)))
        }
        if root.member("credsStore") == nil, let members = root.members {
            let setting = "\"credsStore\""
            let name = "\"\(helperName)\""
            if let last = members.last {
                // As the file separates its last member from the one before, and its key from its value:
                // the white space after the separating comma, wherever the file put that comma.
                let before = members.count > 1 ? members[members.count - 2].span.upperBound : root.span.lowerBound + 1
                let separator = bytes[before..<last.keySpan.lowerBound]
                let indentation = separator.lastIndex(of: UInt8(ascii: ",")).map { separator[($0 + 1)...] } ?? separator
                let colon = bytes[last.keySpan.upperBound..<last.value.span.lowerBound]
                edits.append((last.span.upperBound..<last.span.upperBound,
                              [UInt8(ascii: ",")] + indentation + Array(setting.utf8) + colon + Array(name.utf8)))
            } else {
                edits.append((root.span, Array("{\(setting): \(name)}".utf8)))
            }
        }
        var rewritten = bytes
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            rewritten.replaceSubrange(edit.range, with: edit.bytes)
        }
        return Data(rewritten)
    }

    /// The text of `object` with only its members at `kept` (indices, in order): the file's own
    /// text from the brace to the first member, between each kept member and the next one after
    /// it in the file, and from the last member to the brace; `{}` when none is kept.
    private static func object(_ object: JSONValue, keeping kept: [Int], in bytes: [UInt8]) -> [UInt8] {
        guard let members = object.members, !kept.isEmpty, let lastMember = members.last else { return Array("{}".utf8) }
        var text = Array(bytes[object.span.lowerBound..<members[0].keySpan.lowerBound])
        for (position, index) in kept.enumerated() {
            text += bytes[members[index].span]
            if position + 1 < kept.count { text += bytes[members[index].span.upperBound..<members[index + 1].keySpan.lowerBound] }
        }
        text += bytes[lastMember.span.upperBound..<object.span.upperBound]
        return text
    }

    /// The file's bytes and its top-level object.
    private static func document(_ content: Data, file: String) throws(CredentialFileError) -> ([UInt8], JSONValue) {
        _ = try SourceText.lines(content, file: file)  // UTF-8 and NUL checks with a line
        let bytes = [UInt8](content)
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw CredentialFileError(file: file, line: error.line, reason: "not valid JSON: \(error.reason)")
        }
        guard root.members != nil else {
            throw CredentialFileError(file: file, line: 1, reason: "the file is not a JSON object")
        }
        return (bytes, root)
    }

    /// The 1-based line of `member`'s key in `bytes`.
    private static func line(of member: JSONMember, in bytes: [UInt8]) -> Int {
        bytes[..<member.keySpan.lowerBound].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }

    /// A registry name: a host with optional scheme, port and path.
    private static func isRegistry(_ server: String) -> Bool {
        var rest = Substring(server)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = rest.prefix(while: { $0 != "/" })
        return !authority.isEmpty && GitCredentialsParser.hostAndPort(authority) != nil
    }
}
