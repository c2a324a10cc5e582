#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// A git remote URL as the user gave it (any form git accepts: `ssh://`, `user@host:path`,
/// `https://`, `git://`, `file://`, a path), the form git is given, and its form for messages
/// without credentials.
struct GitRemoteURL: Sendable {
    /// What the user gave (trimmed). May hold a token; never in argv, a message or on disk.
    let raw: String
    /// What git is given as `remote.origin.url` (through its environment): ``raw`` without the
    /// user name and password of an `http(s)://user:password@host/…` URL, which go to git through
    /// ``credential`` instead. git passes the URL to `git-remote-https` as an argument, and every
    /// process's argv is world-readable in /proc.
    let forGit: String
    /// The user name and password (percent-decoded) an `http(s)://` URL carried, or nil.
    let credential: (username: String, password: String)?

    /// The URL without the user-info part of `scheme://user:password@host` URLs (a token often
    /// rides there), for messages and ``SyncTransport/location``.
    var redacted: String { Self.redact(raw) }

    /// Whether git runs the remote side itself, as this user, on this machine (`file://` URLs and
    /// paths: git's local transport starts `git-upload-pack`/`git-receive-pack` in the remote
    /// repository). Over ssh, git:// and http(s) the server starts them.
    var isLocal: Bool { Self.isLocal(raw) }

    init(_ raw: String) throws(SyncTransportError) {
        let trimmed = raw.trimmingWhitespace()
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
        (forGit, credential) = try Self.splitCredential(trimmed)
    }

    /// `url` without the user-info of an http(s) URL, and that user name and password.
    private static func splitCredential(_ url: String) throws(SyncTransportError) -> (String, (username: String, password: String)?) {
        let lowered = url.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://"), let schemeEnd = url.firstRange(of: "://") else { return (url, nil) }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return (url, nil) }
        let userinfo = rest[..<at]
        let stripped = String(url[..<schemeEnd.upperBound]) + String(rest[rest.index(after: at)...])
        let colon = userinfo.firstIndex(of: ":")
        let userPart = String(userinfo[..<(colon ?? userinfo.endIndex)])
        let passwordPart = colon.map { String(userinfo[userinfo.index(after: $0)...]) } ?? ""
        guard let username = PercentEncoding.decode(Array(userPart.utf8)),
              let password = PercentEncoding.decode(Array(passwordPart.utf8)),
              let usernameText = String(data: username, encoding: .utf8), let passwordText = String(data: password, encoding: .utf8),
              !(usernameText + passwordText).contains(where: { $0.isNewline || $0 == "\0" })
        else {
            throw .refused("the user name or password in the git remote URL is not valid percent-encoded text: write %XX escapes for special characters")
        }
        return (stripped, (usernameText, passwordText))
    }

    /// git's own rule (`url_is_local_not_ssh` in connect.c): a URL without `://` is a local path
    /// when it has no colon or a slash comes before the first colon; `file://` URLs are local.
    static func isLocal(_ url: String) -> Bool {
        if url.lowercased().hasPrefix("file://") { return true }
        guard !url.contains("://") else { return false }
        guard let colon = url.firstIndex(of: ":") else { return true }
        guard let slash = url.firstIndex(of: "/") else { return false }
        return slash < colon
    }

    /// `text` with every `scheme://userinfo@` shortened to `scheme://` (userinfo may hold a
    /// password or token; the host and path stay, they say where).
    static func redact(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let schemeEnd = rest.firstRange(of: "://") {
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
