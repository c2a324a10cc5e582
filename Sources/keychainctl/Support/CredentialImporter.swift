import CredentialFiles
import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif
import KeychainToolSupport

/// Puts `PlainTextCredential`s into the default keychain as the items the tools look up:
/// internet passwords as `keychainctl git-credential` and `docker-credential-keychainkit` store
/// them (through `InternetCredentialStore`), `.env` variables as generic passwords.
struct CredentialImporter {
    /// The default keychain (for unlocking at a prompt when it is locked).
    let target: KeychainTarget

    /// A credential as the keychain item it becomes.
    enum Item {
        case internet(InternetCredential)
        case generic(service: String, account: String, secret: Data)

        /// The secret the item is to hold.
        var secret: Data {
            switch self {
            case .internet(let credential): return credential.secret ?? Data()
            case .generic(_, _, let secret): return secret
            }
        }

        /// What identifies the item in the keychain (its primary key), without the secret.
        var identity: String {
            switch self {
            case .internet(let credential):
                return "inet \(credential.scheme) \(credential.host) \(credential.port ?? 0) \(credential.path ?? "") \(credential.account ?? "")"
            case .generic(let service, let account, _):
                return "genp \(service) \(account)"
            }
        }
    }

    /// The item `credential` becomes; nil for a Docker registry name the Docker helper could not
    /// look up either.
    static func item(for credential: PlainTextCredential) -> Item? {
        switch credential.location {
        case .url(let scheme, let host, let port, let path):
            let hostLabel = (host.contains(":") ? "[\(host)]" : host) + (port.map { ":\($0)" } ?? "")
            return .internet(InternetCredential(scheme: scheme, host: host, port: port, path: path, account: credential.account,
                                                secret: credential.secret, label: hostLabel))
        case .dockerRegistry(let server):
            guard let address = ServerAddress.parseURL(server) else { return nil }
            // As docker-credential-keychainkit stores: its label, the server as Docker wrote it in the comment.
            return .internet(InternetCredential(scheme: address.scheme, host: address.host, port: address.port, path: address.path,
                                                account: credential.account, secret: credential.secret,
                                                label: "Docker Credentials", comment: server, accessGroup: dockerHelperAccessGroup))
        case .generic(let service):
            return .generic(service: service, account: credential.account ?? "", secret: credential.secret)
        }
    }

    /// The access group `docker-credential-keychainkit` stores in and searches (its default group:
    /// the first of `KEYCHAINKIT_ACCESS_GROUPS`, else `KEYCHAINKIT_APP_ID`, else its executable's
    /// name), so that Docker finds what is imported for it.
    static var dockerHelperAccessGroup: String {
        Keychainctl.environment.defaultAccessGroup(ofExecutable: "docker-credential-keychainkit")
    }

    /// The secret the keychain holds now for `item`'s primary key, or nil if there is no such item.
    func currentSecret(of item: Item) throws -> Data? {
        switch item {
        case .internet(let credential):
            var query = credential
            query.secret = nil
            query.label = nil
            query.comment = nil
            let found = try unlocking { try InternetCredentialStore.find(query, exactLocation: true) }
            return found.first(where: { ($0.account ?? "") == (credential.account ?? "") })?.secret
        case .generic(let service, let account, _):
            let query: [String: Any] = [SecItemKey.itemClass: SecItemKey.genericPassword, SecItemKey.service: service,
                                        SecItemKey.account: account]
            let items = try ItemSearch.items(query, in: target, all: true, withData: true)
            return items.first?[SecItemKey.valueData] as? Data
        }
    }

    /// Stores `item` (adding it, or replacing the secret of the item with its primary key).
    func store(_ item: Item) throws {
        switch item {
        case .internet(let credential):
            let existed = try currentSecret(of: item) != nil
            try AccessRecording.prepareToRecord(in: target)  // a keychain that cannot log refuses before storing
            try unlocking { try InternetCredentialStore.save(credential) }
            try AccessRecording.record(existed ? .update : .create, [names(of: credential)], in: target)
        case .generic(let service, let account, let secret):
            let key: [String: Any] = [SecItemKey.itemClass: SecItemKey.genericPassword, SecItemKey.service: service,
                                      SecItemKey.account: account]
            try ItemWriter.add(key.merging([SecItemKey.label: service]) { old, _ in old }, secret: secret, accessible: nil,
                               update: true, primaryKey: key, changes: [:], in: target)
        }
    }

    /// Puts the keychain back as it was before `store(item)`: the previous secret, or no item.
    func restore(_ item: Item, previous: Data?) throws {
        if let previous {
            switch item {
            case .internet(var credential):
                credential.secret = previous
                try store(.internet(credential))
            case .generic(let service, let account, _):
                try store(.generic(service: service, account: account, secret: previous))
            }
            return
        }
        switch item {
        case .internet(var credential):
            credential.secret = nil
            credential.label = nil
            credential.comment = nil
            let query = credential
            let deleted = try unlocking { try InternetCredentialStore.delete(query, exactLocation: true) }
            if deleted > 0 { try AccessRecording.record(.delete, [names(of: query)], in: target) }
        case .generic(let service, let account, _):
            let query: [String: Any] = [SecItemKey.itemClass: SecItemKey.genericPassword, SecItemKey.service: service,
                                        SecItemKey.account: account]
            try target.performUnlocking("SecItemDelete") { KeychainItems.delete(query, in: target) }
            try AccessRecording.record(.delete, [.init(label: nil, service: service, account: account)], in: target)
        }
    }

    /// An internet credential's names as the access log keeps them.
    private func names(of credential: InternetCredential) -> AccessRecording.ItemNames {
        .init(label: credential.label, service: credential.host, account: credential.account)
    }

    /// Runs `operation`; if the keychain is locked and a terminal is there, asks for the password
    /// once, unlocks, and runs it again (as `KeychainTarget.performUnlocking`).
    private func unlocking<T>(_ operation: () throws -> T) throws -> T {
        do {
            return try operation()
        } catch let error as KeychainCallError {
            guard error.status == StatusCode.interactionNotAllowed, SecretInput.isInteractive, try target.isLocked() else { throw error }
            try target.unlockInteractively()
            return try operation()
        }
    }
}
