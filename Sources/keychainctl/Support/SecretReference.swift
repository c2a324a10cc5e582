import KeychainPrimitives
import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif

/// An item named on the command line of `exec`: `service`, `service/account` (a generic
/// password, else an internet password of that server) or `internet:scheme://[user@]host[:port][/path]`.
struct SecretReference: CustomStringConvertible {
    enum Kind {
        /// A generic password of the service (and account), else an internet password of that server.
        case serviceOrServer(name: String, account: String?)
        /// An internet password at exactly this protocol, host, port and path (nil: none).
        case internet(scheme: String, host: String, port: Int?, path: String?, account: String?)
    }

    let kind: Kind
    /// The reference as the user wrote it (for messages; never a secret).
    let description: String

    /// Parses `text`; the service is everything before the first `/` (service names cannot hold one).
    init(_ text: String) throws(UsageFailure) {
        description = text
        if text.hasPrefix("internet:") {
            let url = String(text.dropFirst("internet:".count))
            guard url.contains("://"), let address = ServerAddress.parseURL(url), InternetProtocolCode.code(for: address.scheme) != nil else {
                throw UsageFailure(message: "\"\(text)\" is not internet:scheme://[user@]host[:port][/path]")
            }
            // parseURL drops user info (a key never holds it); here it names the account.
            let authority = url[url.firstRange(ofText: "://")!.upperBound...].prefix(while: { $0 != "/" })
            let account = authority.lastIndex(of: "@").map { PercentEncoding.decodeUTF8(authority[..<$0]) ?? String(authority[..<$0]) }
            // git keeps paths without the leading slash (as `keychainctl git-credential` stores them).
            let path = address.path.map { String($0.drop(while: { $0 == "/" })) }.flatMap { $0.isEmpty ? nil : $0 }
            kind = .internet(scheme: address.scheme, host: address.host, port: address.port, path: path, account: account)
            return
        }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let service = parts.first, !service.isEmpty, parts.count == 1 || !parts[1].isEmpty else {
            throw UsageFailure(message: "\"\(text)\" is not service, service/account or internet:https://host/path")
        }
        kind = .serviceOrServer(name: String(service), account: parts.count == 2 ? String(parts[1]) : nil)
    }

    /// The secret, and the attributes, of the one item this reference names in `target`: nil when there is none;
    /// `errSecDuplicateItem` (exit 45) when it names several (the account tells them apart).
    /// A locked keychain is unlocked at a terminal prompt (once: later lookups find it unlocked).
    func secret(in target: KeychainTarget) throws -> (secret: Data, item: [String: Any])? {
        switch kind {
        case .serviceOrServer(let name, let account):
            var generic: [String: Any] = [SecItemKey.itemClass: SecItemKey.genericPassword, SecItemKey.service: name]
            generic[SecItemKey.account] = account
            if let found = try only(ItemSearch.items(generic, in: target, all: true, withData: true)) { return found }
            var internet: [String: Any] = [SecItemKey.itemClass: SecItemKey.internetPassword, SecItemKey.server: name]
            internet[SecItemKey.account] = account
            return try only(ItemSearch.items(internet, in: target, all: true, withData: true))
        case .internet(let scheme, let host, let port, let path, let account):
            var query: [String: Any] = [SecItemKey.itemClass: SecItemKey.internetPassword, SecItemKey.server: host]
            query[SecItemKey.protocol] = InternetProtocolCode.code(for: scheme)
            query[SecItemKey.account] = account
            // Exact location, as the git and Docker helpers match: no port means none, not any.
            let items = try ItemSearch.items(query, in: target, all: true, withData: true).filter { item in
                let itemPort = item[SecItemKey.port] as? Int ?? 0
                let itemPath = (item[SecItemKey.path] as? String).map { String($0.drop(while: { $0 == "/" })) } ?? ""
                return itemPort == (port ?? 0) && itemPath == (path ?? "")
            }
            return try only(items)
        }
    }

    /// The secret (and attributes) of the single item in `items`, nil for none, an error for several.
    private func only(_ items: [[String: Any]]) throws -> (secret: Data, item: [String: Any])? {
        guard items.count <= 1 else {
            throw UsageFailure(message: "\"\(description)\" names \(items.count) items; add the account (service/account, or user@ in the URL)",
                               exitCode: Int32(UInt8(truncatingIfNeeded: StatusCode.duplicateItem)))
        }
        guard let item = items.first else { return nil }
        guard let data = item[SecItemKey.valueData] as? Data else { throw KeychainCallError(StatusCode.internalError, in: "SecItemCopyMatching") }
        return (data, item)
    }
}
