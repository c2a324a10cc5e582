#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainPrimitives
import KeychainServiceWire
import KeychainVocabulary

/// The consent prompt, as macOS asks before a program reads an item that is not its own: a read
/// that finds nothing in the caller's access groups, while the same query matches an item of
/// another group in the user's keychain, is answered either with a challenge the client puts
/// before its user (``ConsentChallenge``: the text composed here, naming the program, its parent
/// chain and the item) or, when the client cannot ask, with `errSecInteractionNotAllowed`.
///
/// The answer must carry the keychain password, which the service verifies itself
/// (``PasswordProof``, with its delay after wrong ones). It is bound to what was asked: the
/// challenge lives in the connection it was sent on (``ConsentSession``), for the caller
/// identified on that connection, and holds the read itself — the answer carries only the
/// nonce, so it cannot be moved onto another item, another caller or another connection — and is
/// used up by the first answer, right or wrong, or by the connection's next request.
enum ConsentPrompt {
    /// How long a challenge waits for its answer.
    static let answerSeconds = 120

    /// The read a challenge stands for.
    struct Pending {
        let nonce: Data
        /// The read as the caller sent it (without the client's ``UserGrantRequest/canPromptKey``).
        let query: [String: Any]
        /// The request the read came in, for the access log's record of the read once allowed.
        let request: ServiceRequest
        /// The access group of the item the prompt named: the only group the read then searches.
        let group: String
        let expires: ContinuousClock.Instant
        /// For a call the Secret Service provider forwarded: the client it was asked about, the
        /// provider, and the items the user is asked to allow (nil: the caller's own read).
        var forwarded: ForwardedConsent? = nil
    }

    /// A forwarded call that waits for the user's answer, carried out for `client` once the
    /// answer proves the keychain password and the client still runs.
    struct ForwardedConsent {
        /// The call as the client would make it (its operation plain).
        let request: ServiceRequest
        let client: PeerIdentity
        let provider: PeerIdentity
        /// The items' ids that need the user, and every matched item's attributes (for the log).
        let itemIDs: [String]
        let items: [[String: Any]]
    }

    /// What a read outside the caller's groups found: the group of the first item that matched,
    /// its description for the prompt, and how many items of that group match.
    struct Match {
        let group: String
        let item: String
        let count: Int
    }

    /// The first group other than the caller's own where `query` matches, looked up with the
    /// attributes alone (no secret is decrypted for the prompt), or nil when none does.
    static func match(_ query: [String: Any], in keychain: ServedKeychain, outside groups: AccessGroups) -> Match? {
        var probe = query.filter { !$0.key.hasPrefix("r_") && $0.key != "m_Limit" }
        probe["r_Attributes"] = true
        probe["m_Limit"] = "m_LimitAll"
        let engine: SecItemEngine
        do { engine = try keychain.engine(accessGroups: AccessGroups(["*"]), creatingKeychain: false) } catch { return nil }
        let found = engine.copyMatching(probe)
        guard found.status == 0, let items = found.value as? [[String: Any]] else { return nil }
        let others = items.filter { ($0["agrp"] as? String).map { !groups.groups.contains($0) } ?? false }
        guard let first = others.first, let group = first["agrp"] as? String else { return nil }
        return Match(group: group, item: describe(first), count: others.filter { $0["agrp"] as? String == group }.count)
    }

    /// An item as the prompt names it: its kind, service or server, account and label.
    static func describe(_ attributes: [String: Any]) -> String {
        let kinds = ["genp": "password", "inet": "internet password", "keys": "key", "cert": "certificate", "idnt": "identity"]
        var words = [kinds[attributes["class"] as? String ?? ""] ?? "item"]
        func text(_ key: String) -> String? {
            if let string = attributes[key] as? String { return string }
            if let data = attributes[key] as? Data { return String(data: data, encoding: .utf8) }
            return nil
        }
        if let service = text("svce") { words.append("service \"\(service)\"") }
        if let server = text("srvr") { words.append("server \"\(server)\"") }
        if let account = text("acct") { words.append("account \"\(account)\"") }
        if let label = text("labl") { words.append("label \"\(label)\"") }
        return words.joined(separator: ", ")
    }

    /// The prompt's text.
    static func text(peer: PeerIdentity, chain: [String], match: Match) -> String {
        var lines = ["\(peer.executablePath) wants to read an item of another application in your keychain."]
        let verified = peer.isVerified ? "verified" : "NOT verified: \(peer.untrustedCode ?? "its user can change it")"
        lines.append("  Program:    \(peer.executablePath) (pid \(peer.pid), sha256 \(peer.executableSHA256.prefix(16))…, \(verified))")
        if let interpreter = peer.interpreterPath { lines.append("  Run by:     \(interpreter)") }
        lines.append("  Started by: " + (chain.isEmpty ? "(unknown)" : chain.joined(separator: " ← ")))
        lines.append("  Item:       \(match.item)")
        lines.append("  Of:         \(match.group)" + (match.count > 1 ? " (\(match.count) items of it match)" : ""))
        lines.append("Type your keychain password to allow it. If you did not just ask for this, deny it.")
        return lines.joined(separator: "\n")
    }

    /// The executables of the caller's parent processes, nearest first, up to 6 (read from
    /// `/proc/<pid>/status`'s `PPid` and each parent's `/proc/<pid>/exe`). For the prompt only:
    /// a parent may have exited and its pid been reused, so this informs the user and decides nothing.
    static func parentChain(of pid: Int32) -> [String] {
        var chain: [String] = []
        var current = pid
        for _ in 0..<6 {
            let status: String
            do { status = try ProcessFile.text("/proc/\(current)/status") } catch { break }  // gone: the chain ends here
            let parent = status.split(separator: "\n").first { $0.hasPrefix("PPid:") }
                .flatMap { Int32($0.dropFirst(5).trimmingWhitespace()) } ?? 0
            guard parent > 1 else { break }
            let path: String
            do { path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(parent)/exe") } catch {
                path = "(unreadable: \(SystemErrorText.of(error)))"
            }
            chain.append("\(path) (pid \(parent))")
            current = parent
        }
        return chain
    }

    /// A fresh single-use nonce (32 random bytes).
    static func nonce() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether two nonces are equal, in time independent of where they differ.
    static func sameNonce(_ left: Data, _ right: Data) -> Bool {
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The consent challenge pending on one connection, if any. Each connection has its own, used
/// by that connection's thread alone: a challenge is never visible from another connection.
final class ConsentSession {
    /// The challenge sent on this connection and not answered yet.
    var pending: ConsentPrompt.Pending?
    /// The constrained read or update sent on this connection that waits for its passwords.
    var pendingAuthentication: PendingAuthentication?

    /// A session with nothing pending.
    init() {}
}
