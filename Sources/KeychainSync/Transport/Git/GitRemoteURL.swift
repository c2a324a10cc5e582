import Foundation

/// A git remote URL as the user gave it (any form git accepts: `ssh://`, `user@host:path`,
/// `https://`, `git://`, `file://`, a path), and its form for messages without credentials.
struct GitRemoteURL: Sendable {
    /// What git is given (through its environment, never its arguments: argv is world-readable
    /// in /proc, and an https URL may carry a token).
    let raw: String

    /// The URL without the user-info part of `scheme://user:password@host` URLs (a token often
    /// rides there), for messages and ``SyncTransport/location``.
    var redacted: String { Self.redact(raw) }

    init(_ raw: String) throws(SyncTransportError) {
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .refused("no git remote given: pass its URL (ssh://host/path.git, https://…, file:///path)") }
        guard !trimmed.contains(where: { $0.isNewline || $0 == "\0" }) else {
            throw .refused("the git remote URL contains a line break: give one URL")
        }
        // `ext::` runs an arbitrary command, `fd::` talks to a descriptor: neither is a remote.
        let lowered = trimmed.lowercased()
        guard !lowered.hasPrefix("ext::"), !lowered.hasPrefix("fd::") else {
            throw .refused("git's ext:: and fd:: transports run commands, not remotes: give an ssh, https, git or file URL")
        }
        self.raw = trimmed
    }

    /// `text` with every `scheme://userinfo@` shortened to `scheme://` (userinfo may hold a
    /// password or token; the host and path stay, they say where).
    static func redact(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let schemeEnd = rest.range(of: "://") {
            result += rest[..<schemeEnd.upperBound]
            rest = rest[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0.isWhitespace || $0 == "'" || $0 == "\"" }) ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                rest = rest[rest.index(after: at)...]
            }
        }
        return result + rest
    }
}
