#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainAudit
import KeychainClient
import KeychainVocabulary

/// Apple's SecItem/SecKeychain calls on one keychain file (KeychainClient's, on Swift
/// dictionaries and paths: no CF layer), with their `OSStatus` turned into
/// ``SecretServiceError`` (item not found → `noSuchObject`, duplicate → `alreadyExists`,
/// interaction not allowed → `isLocked`; anything else kept as `storage(status:)`).
///
/// Two backends behind the same calls: the embedded keychain file this process opens, or — when
/// the keychain service is in use and the file is the default keychain — the user's keychain held
/// by the service. Then every SecItem call is forwarded for the D-Bus client being served
/// (``ServiceForwarding``; the provider itself when none is), so that the service decides and logs
/// it under that client's identity, in the Secret Service's access group; the `SecKeychain…`
/// calls (lock, unlock, status) go to the service as any program's do.
struct KeychainCalls {
    /// The keychain's path.
    let path: String
    /// The keychain the SecItem calls name (Apple's `kSecUseKeychain`); a missing file is
    /// reported by the calls.
    var keychain: KeychainClient.Keychain { .file(path: path) }
    /// Whether the keychain service holds this keychain (the calls are then forwarded to it).
    let isServedByKeychainService: Bool
    /// Where the items these calls decrypt are counted (nil: not counted).
    let readCount: KeychainItemReadCount?

    init(path: String, readCount: KeychainItemReadCount? = nil) throws(SecretServiceError) {
        self.path = path
        self.readCount = readCount
        isServedByKeychainService = LoginKeychainServiceRoute.socket(for: path) != nil
    }

    /// The provider's own process, for calls made outside any client's call (a prompt's thread).
    private static let providerProcess = ServiceForwarding.Client(pid: getpid(), startTime: 0)

    /// Runs the SecItem call `body`: through the keychain service, as a call forwarded for the
    /// client being served (else for the provider itself), so that no Secret Service item is ever
    /// stored or read under the provider's own application identifier; embedded, as it is.
    private func itemCall<Result>(_ body: () -> Result) -> Result {
        guard isServedByKeychainService, ServiceForwarding.client == nil else { return body() }
        return ServiceForwarding.$client.withValue(Self.providerProcess) { body() }
    }

    /// The error for a failed status of a call on this keychain: as the static `error(_:)`,
    /// except that a keychain the path no longer names (deleted or replaced under us, reported
    /// by the keychain as `errSecNoSuchKeychain`) is `keychainFileGone`, naming the path.
    func error(_ status: Int32) -> SecretServiceError {
        status == KeychainStatus.noSuchKeychain.rawValue ? .keychainFileGone(path: path) : Self.error(status)
    }

    /// The error for a failed status.
    static func error(_ status: Int32) -> SecretServiceError {
        switch KeychainStatus(rawValue: status) {
        case .itemNotFound, .noSuchKeychain: .noSuchObject
        case .duplicateItem: .alreadyExists
        case .interactionNotAllowed: .isLocked
        case .authFailed: .wrongPassword
        default: .storage(status: status, reason: KeychainClient.failureReason(for: status))
        }
    }

    /// `SecItemCopyMatching` for every generic and internet password: attributes and persistent
    /// reference of each.
    func allPasswordItems() throws(SecretServiceError) -> [[String: Any]] {
        var items: [[String: Any]] = []
        for (itemClass, results) in try everyPassword(returning: [SecItemKey.returnAttributes: true]) {
            // The access log's key is never a Secret Service item: a client reading it could forge entries.
            for case let item as [String: Any] in results where !AccessLog.isLogKeyItem(item) {
                var attributes = item
                attributes[SecItemKey.itemClass] = itemClass
                // The per-application access record is the provider's own, never a client's item.
                guard !ApplicationAccessStore.isRecord(attributes) else { continue }
                items.append(attributes)
            }
        }
        readCount?.count(decrypted: items.count)
        return items
    }

    /// The keychain's change mark (`SecKeychainCopyChangeMark`): equal marks, nothing committed in
    /// between; nil for a keychain held by the keychain service, which has none here.
    func changeMark() throws(SecretServiceError) -> Data? {
        let (status, mark) = KeychainClient.keychainChangeMark(path)
        if status == KeychainStatus.unimplemented.rawValue { return nil }
        guard status == KeychainStatus.success.rawValue, let mark else { throw error(status) }
        return mark
    }

    /// The passwords of the class and primary key `natural` names (an internet password's account,
    /// server and protocol; a generic password's service and account), with their attributes and
    /// persistent references: one query the keychain answers from its index of those keys, not by
    /// decrypting every item. The access log's key and the access record are left out.
    func passwordItems(inSlotOf natural: [String: Any]) throws(SecretServiceError) -> [[String: Any]] {
        guard let itemClass = natural[SecItemKey.itemClass] as? String else { return [] }
        let keys = itemClass == SecItemKey.internetPassword
            ? [SecItemKey.account, SecItemKey.server, SecItemKey.protocol]
            : [SecItemKey.service, SecItemKey.account]
        var query: [String: Any] = [
            SecItemKey.itemClass: itemClass,
            SecItemKey.matchLimit: SecItemKey.matchLimitAll,
            SecItemKey.returnAttributes: true,
            SecItemKey.returnPersistentRef: true,
        ]
        for key in keys { query[key] = natural[key] }
        let (status, result) = itemCall { KeychainClient.copyMatching(query, in: keychain) }
        if status == KeychainStatus.itemNotFound.rawValue { return [] }
        guard status == KeychainStatus.success.rawValue else { throw error(status) }
        var items: [[String: Any]] = []
        for case let item as [String: Any] in (result as? [Any]) ?? [] where !AccessLog.isLogKeyItem(item) {
            var attributes = item
            attributes[SecItemKey.itemClass] = itemClass
            guard !ApplicationAccessStore.isRecord(attributes) else { continue }
            items.append(attributes)
        }
        readCount?.count(decrypted: items.count)
        return items
    }

    /// The persistent reference of every generic and internet password, without their
    /// attributes: the keychain answers it from the items' identities, decrypting nothing (what
    /// keeps ``CollectionAttributeIndex`` in step with other processes cheaply). Includes the
    /// access log's key and the access record, which callers tell apart by their attributes.
    func allPasswordReferences() throws(SecretServiceError) -> [Data] {
        var references: [Data] = []
        for (_, results) in try everyPassword(returning: [:]) {
            for case let reference as Data in results {
                references.append(reference)
            }
        }
        return references
    }

    /// One `SecItemCopyMatching` per password class (generic, internet) for all its items, with
    /// their persistent references and what `returning` adds; each class with its results (none
    /// when it has no item).
    private func everyPassword(returning: [String: Any]) throws(SecretServiceError) -> [(itemClass: String, results: [Any])] {
        var answers: [(itemClass: String, results: [Any])] = []
        for itemClass in [SecItemKey.genericPassword, SecItemKey.internetPassword] {
            var query: [String: Any] = [
                SecItemKey.itemClass: itemClass,
                SecItemKey.matchLimit: SecItemKey.matchLimitAll,
                SecItemKey.returnPersistentRef: true,
            ]
            query.merge(returning) { _, added in added }
            let (status, result) = itemCall { KeychainClient.copyMatching(query, in: keychain) }
            if status == KeychainStatus.itemNotFound.rawValue { continue }
            guard status == KeychainStatus.success.rawValue else { throw error(status) }
            answers.append((itemClass, (result as? [Any]) ?? []))
        }
        return answers
    }

    /// One item's attributes by persistent reference.
    func attributes(of reference: Data) throws(SecretServiceError) -> [String: Any] {
        let query: [String: Any] = [
            SecItemKey.valuePersistentRef: reference,
            SecItemKey.returnAttributes: true,
        ]
        let (status, result) = itemCall { KeychainClient.copyMatching(query, in: keychain) }
        guard status == KeychainStatus.success.rawValue, var attributes = result as? [String: Any] else { throw error(status) }
        readCount?.count(decrypted: 1)
        // The class is the reference's first four bytes (Apple's persistent-reference form).
        attributes[SecItemKey.itemClass] = String(decoding: reference.prefix(4), as: UTF8.self)
        return attributes
    }

    /// One item's attributes and secret by persistent reference, in one `SecItemCopyMatching`
    /// (`kSecReturnAttributes` and `kSecReturnData`: the item's dictionary with `kSecValueData`).
    func attributesAndData(of reference: Data) throws(SecretServiceError) -> (attributes: [String: Any], data: Data) {
        let query: [String: Any] = [
            SecItemKey.valuePersistentRef: reference,
            SecItemKey.returnAttributes: true,
            SecItemKey.returnData: true,
        ]
        let (status, result) = itemCall { KeychainClient.copyMatching(query, in: keychain) }
        let success = KeychainStatus.success.rawValue
        guard status == success, var attributes = result as? [String: Any],
              let data = attributes[SecItemKey.valueData] as? Data else {
            throw error(status == success ? KeychainStatus.internal.rawValue : status)
        }
        readCount?.count(decrypted: 1)
        attributes[SecItemKey.valueData] = nil
        attributes[SecItemKey.itemClass] = String(decoding: reference.prefix(4), as: UTF8.self)
        return (attributes, data)
    }

    /// `SecItemAdd`; returns the new item's persistent reference.
    func add(_ attributes: [String: Any], label: String, secret: Data) throws(SecretServiceError) -> Data {
        var query = attributes
        query[SecItemKey.label] = label
        query[SecItemKey.valueData] = secret
        query[SecItemKey.returnPersistentRef] = true
        let (status, result) = itemCall { KeychainClient.add(query, in: keychain) }
        guard status == KeychainStatus.success.rawValue, let reference = result as? Data else { throw error(status) }
        return reference
    }

    /// `SecItemUpdate` of one item.
    func update(_ reference: Data, _ changes: [String: Any]) throws(SecretServiceError) {
        let query: [String: Any] = [SecItemKey.valuePersistentRef: reference]
        let status = itemCall { KeychainClient.update(query, changes, in: keychain) }
        guard status == KeychainStatus.success.rawValue else { throw error(status) }
    }

    /// `SecItemDelete` of one item.
    func delete(_ reference: Data) throws(SecretServiceError) {
        let query: [String: Any] = [SecItemKey.valuePersistentRef: reference]
        let status = itemCall { KeychainClient.delete(query, in: keychain) }
        guard status == KeychainStatus.success.rawValue else { throw error(status) }
    }

    /// Whether the keychain is unlocked (`SecKeychainGetStatus`).
    func isUnlocked() throws(SecretServiceError) -> Bool {
        let (status, unlocked) = KeychainClient.keychainIsUnlocked(path)
        guard status == KeychainStatus.success.rawValue else { throw error(status) }
        return unlocked
    }

    /// `SecKeychainUnlock`: with a password, or without one (a keychain without password, or
    /// `KEYCHAINKIT_PASSWORD_FILE`); `isLocked` when a password would be needed.
    func unlock(password: Data?) throws(SecretServiceError) {
        let status = KeychainClient.unlockKeychain(path, password: password)
        guard status == KeychainStatus.success.rawValue else { throw error(status) }
    }

    /// `SecKeychainLock`.
    func lock() throws(SecretServiceError) {
        let status = KeychainClient.lockKeychain(path)
        guard status == KeychainStatus.success.rawValue else { throw error(status) }
    }
}
