#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit

/// The rule by which the service decides a D-Bus client's access to Secret Service items, on the
/// identity the service read from the kernel (the same semantics the provider applies to its
/// embedded keychain files):
/// - a verified client that created the item, or that the user allowed always, is trusted;
/// - the `deny` policy refuses every other client;
/// - the `allow` policy (which the user sets with the keychain password) lets any other verified
///   client through, logged as allowed by policy;
/// - everything else — the default `confirm` policy, and every unverifiable client whatever the
///   policy — needs the user, who answers with the keychain password.
enum SecretServiceAccessDecision {
    /// The outcome for one call's items.
    enum Verdict: Equatable {
        /// Allowed without asking, logged with this decision.
        case allowed(AccessEvent.Decision)
        /// Refused by the `deny` policy.
        case denied
        /// The user must allow it: these items' ids need the answer.
        case needsConsent([String])
    }

    /// The name a list gives `client`: its executable's (or script's) path when the service can
    /// verify it; nil for an unverifiable client, which no list can trust.
    static func application(of client: PeerIdentity) -> String? {
        client.isVerified ? client.executablePath : nil
    }

    /// The verdict on `client` using the items `itemIDs` under `record`.
    static func decide(client: PeerIdentity, itemIDs: [String], record: SecretServiceAccessLists.Record) -> Verdict {
        let application = application(of: client)
        var asking: [String] = []
        var byPolicy = false
        for id in itemIDs {
            if let application, record.items[id]?.trusts(application) == true { continue }
            switch record.policy {
            case .deny: return .denied
            case .allow where application != nil: byPolicy = true
            case .allow, .confirm: asking.append(id)
            }
        }
        if !asking.isEmpty { return .needsConsent(asking) }
        return .allowed(byPolicy ? .allowedByPolicy : .trusted)
    }

    /// The prompt's text: the client as the service identified it, its parents, what it asks to do
    /// with which items, and the provider it came through.
    static func promptText(client: PeerIdentity, chain: [String], provider: PeerIdentity, operation: AccessEvent.Operation,
                           items: [[String: Any]]) -> String {
        let verb: String
        switch operation {
        case .read: verb = "read the secret of"
        case .delete: verb = "delete"
        default: verb = "change"
        }
        let described = items.prefix(4).map(ConsentPrompt.describe)
        var lines = ["\(client.executablePath) asks the Secret Service to \(verb) an item it is not trusted by."]
        let verified = client.isVerified ? "verified" : "NOT verified: \(client.untrustedCode ?? "its user can change it")"
        lines.append("  Program:    \(client.executablePath) (pid \(client.pid), sha256 \(client.executableSHA256.prefix(16))…, \(verified))")
        if let interpreter = client.interpreterPath { lines.append("  Run by:     \(interpreter)") }
        lines.append("  Started by: " + (chain.isEmpty ? "(unknown)" : chain.joined(separator: " ← ")))
        lines.append("  Item:       " + (described.isEmpty ? "(none)" : described.joined(separator: "; "))
                     + (items.count > described.count ? " and \(items.count - described.count) more" : ""))
        lines.append("  Through:    \(provider.executablePath) (the Secret Service provider, pid \(provider.pid))")
        lines.append("Type your keychain password to allow it. If you did not just ask for this, deny it.")
        return lines.joined(separator: "\n")
    }
}
