import Foundation
import KeychainAudit
import KeychainClient
import KeychainServices
import KeychainServicesExtras

/// Apple's SecItem/SecKeychain calls on one keychain file, with their `OSStatus` turned into
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
    /// Its handle (`SecKeychainOpen` never fails; a missing file is reported by the calls).
    let keychain: SecKeychain
    /// Whether the keychain service holds this keychain (the calls are then forwarded to it).
    let isServedByKeychainService: Bool
    /// Where the items these calls decrypt are counted (nil: not counted).
    let readCount: KeychainItemReadCount?

    init(path: String, readCount: KeychainItemReadCount? = nil) throws(SecretServiceError) {
        self.path = path
        self.readCount = readCount
        var handle: SecKeychain?
        let status = SecKeychainOpen(path, &handle)
        guard status == errSecSuccess, let handle else { throw Self.error(status) }
        keychain = handle
        isServedByKeychainService = SecKeychainServiceRoute.socket(for: path) != nil
    }

    /// The provider's own process, for calls made outside any client's call (a prompt's thread).
    private static let providerProcess = ServiceForwarding.Client(pid: getpid(), startTime: 0)

    /// Runs the SecItem call `body`: through the keychain service, as a call forwarded for the
    /// client being served (else for the provider itself), so that no Secret Service item is ever
    /// stored or read under the provider's own application identifier; embedded, as it is.
    private func itemCall(_ body: () -> OSStatus) -> OSStatus {
        guard isServedByKeychainService, ServiceForwarding.client == nil else { return body() }
        return ServiceForwarding.$client.withValue(Self.providerProcess) { body() }
    }

    /// The error for a failed status of a call on this keychain: as the static `error(_:)`,
    /// except that a keychain the path no longer names (deleted or replaced under us, reported
    /// by the keychain as `errSecNoSuchKeychain`) is `keychainFileGone`, naming the path.
    func error(_ status: OSStatus) -> SecretServiceError {
        status == errSecNoSuchKeychain ? .keychainFileGone(path: path) : Self.error(status)
    }

    /// The error for a failed status.
    static func error(_ status: OSStatus) -> SecretServiceError {
        switch status {
        case errSecItemNotFound, errSecNoSuchKeychain: .noSuchObject
        case errSecDuplicateItem: .alreadyExists
        case errSecInteractionNotAllowed: .isLocked
        case errSecAuthFailed: .wrongPassword
        default: .storage(status: status, reason: KeychainFailureDetails.reason(for: status))
        }
    }

    /// `SecItemCopyMatching` for every generic and internet password: attributes and persistent
    /// reference of each.
    func allPasswordItems() throws(SecretServiceError) -> [[String: Any]] {
        var items: [[String: Any]] = []
        for (itemClass, results) in try everyPassword(returning: [kSecReturnAttributes as String: true]) {
            // The access log's key is never a Secret Service item: a client reading it could forge entries.
            for case let item as [String: Any] in results where !AccessLog.isLogKeyItem(item) {
                var attributes = item
                attributes[kSecClass as String] = itemClass
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
        var mark: CFData?
        let status = SecKeychainCopyChangeMark(keychain, &mark)
        if status == errSecUnimplemented { return nil }
        guard status == errSecSuccess, let mark else { throw error(status == errSecSuccess ? errSecInternal : status) }
        return Data(copyingBytesOf: mark)
    }

    /// The passwords of the class and primary key `natural` names (an internet password's account,
    /// server and protocol; a generic password's service and account), with their attributes and
    /// persistent references: one query the keychain answers from its index of those keys, not by
    /// decrypting every item. The access log's key and the access record are left out.
    func passwordItems(inSlotOf natural: [String: Any]) throws(SecretServiceError) -> [[String: Any]] {
        guard let itemClass = natural[kSecClass as String] as? String else { return [] }
        let keys: [CFString] = itemClass == kSecClassInternetPassword as String
            ? [kSecAttrAccount, kSecAttrServer, kSecAttrProtocol]
            : [kSecAttrService, kSecAttrAccount]
        var query: [String: Any] = [
            kSecClass as String: itemClass,
            kSecMatchLimit as String: kSecMatchLimitAll as String,
            kSecReturnAttributes as String: true,
            kSecReturnPersistentRef as String: true,
            kSecUseKeychain as String: keychain,
        ]
        for key in keys { query[key as String] = natural[key as String] }
        var result: CFTypeRef?
        let status = itemCall { SecItemCopyMatching(query as CFDictionary, &result) }
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess else { throw error(status) }
        var items: [[String: Any]] = []
        for case let item as [String: Any] in (result as? [Any]) ?? [] where !AccessLog.isLogKeyItem(item) {
            var attributes = item
            attributes[kSecClass as String] = itemClass
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
            for case let reference as NSData in results {
                references.append(Data(copyingBytesOf: reference))
            }
        }
        return references
    }

    /// One `SecItemCopyMatching` per password class (generic, internet) for all its items, with
    /// their persistent references and what `returning` adds; each class with its results (none
    /// when it has no item).
    private func everyPassword(returning: [String: Any]) throws(SecretServiceError) -> [(itemClass: String, results: [Any])] {
        var answers: [(itemClass: String, results: [Any])] = []
        for itemClass in [kSecClassGenericPassword as String, kSecClassInternetPassword as String] {
            var query: [String: Any] = [
                kSecClass as String: itemClass,
                kSecMatchLimit as String: kSecMatchLimitAll as String,
                kSecReturnPersistentRef as String: true,
                kSecUseKeychain as String: keychain,
            ]
            query.merge(returning) { _, added in added }
            var result: CFTypeRef?
            let status = itemCall { SecItemCopyMatching(query as CFDictionary, &result) }
            if status == errSecItemNotFound { continue }
            guard status == errSecSuccess else { throw error(status) }
            answers.append((itemClass, (result as? [Any]) ?? []))
        }
        return answers
    }

    /// One item's attributes by persistent reference.
    func attributes(of reference: Data) throws(SecretServiceError) -> [String: Any] {
        var result: CFTypeRef?
        let query: [String: Any] = [
            kSecValuePersistentRef as String: reference,
            kSecReturnAttributes as String: true,
            kSecUseKeychain as String: keychain,
        ]
        let status = itemCall { SecItemCopyMatching(query as CFDictionary, &result) }
        guard status == errSecSuccess, var attributes = result as? [String: Any] else { throw error(status) }
        readCount?.count(decrypted: 1)
        // The class is the reference's first four bytes (Apple's persistent-reference form).
        attributes[kSecClass as String] = String(decoding: reference.prefix(4), as: UTF8.self)
        return attributes
    }

    /// One item's attributes and secret by persistent reference, in one `SecItemCopyMatching`
    /// (`kSecReturnAttributes` and `kSecReturnData`: the item's dictionary with `kSecValueData`).
    func attributesAndData(of reference: Data) throws(SecretServiceError) -> (attributes: [String: Any], data: Data) {
        var result: CFTypeRef?
        let query: [String: Any] = [
            kSecValuePersistentRef as String: reference,
            kSecReturnAttributes as String: true,
            kSecReturnData as String: true,
            kSecUseKeychain as String: keychain,
        ]
        let status = itemCall { SecItemCopyMatching(query as CFDictionary, &result) }
        guard status == errSecSuccess, var attributes = result as? [String: Any],
              let data = attributes[kSecValueData as String] as? NSData else { throw error(status == errSecSuccess ? errSecInternal : status) }
        readCount?.count(decrypted: 1)
        attributes[kSecValueData as String] = nil
        attributes[kSecClass as String] = String(decoding: reference.prefix(4), as: UTF8.self)
        // Not `as? Data`: Foundation builds that `Data` a byte at a time (`Data(copyingBytesOf:)`).
        return (attributes, Data(copyingBytesOf: data))
    }

    /// `SecItemAdd`; returns the new item's persistent reference.
    func add(_ attributes: [String: Any], label: String, secret: Data) throws(SecretServiceError) -> Data {
        var query = attributes
        query[kSecAttrLabel as String] = label
        query[kSecValueData as String] = secret
        query[kSecReturnPersistentRef as String] = true
        query[kSecUseKeychain as String] = keychain
        var result: CFTypeRef?
        let status = itemCall { SecItemAdd(query as CFDictionary, &result) }
        guard status == errSecSuccess, let reference = result as? NSData else { throw error(status) }
        return Data(copyingBytesOf: reference)
    }

    /// `SecItemUpdate` of one item.
    func update(_ reference: Data, _ changes: [String: Any]) throws(SecretServiceError) {
        let query: [String: Any] = [kSecValuePersistentRef as String: reference, kSecUseKeychain as String: keychain]
        let status = itemCall { SecItemUpdate(query as CFDictionary, changes as CFDictionary) }
        guard status == errSecSuccess else { throw error(status) }
    }

    /// `SecItemDelete` of one item.
    func delete(_ reference: Data) throws(SecretServiceError) {
        let query: [String: Any] = [kSecValuePersistentRef as String: reference, kSecUseKeychain as String: keychain]
        let status = itemCall { SecItemDelete(query as CFDictionary) }
        guard status == errSecSuccess else { throw error(status) }
    }

    /// Whether the keychain is unlocked (`SecKeychainGetStatus`).
    func isUnlocked() throws(SecretServiceError) -> Bool {
        var status: SecKeychainStatus = 0
        let result = SecKeychainGetStatus(keychain, &status)
        guard result == errSecSuccess else { throw error(result) }
        return status & kSecUnlockStateStatus != 0
    }

    /// `SecKeychainUnlock`: with a password, or without one (a keychain without password, or
    /// `KEYCHAINKIT_PASSWORD_FILE`); `isLocked` when a password would be needed.
    func unlock(password: Data?) throws(SecretServiceError) {
        let status: OSStatus
        if let password {
            status = password.withUnsafeBytes { SecKeychainUnlock(keychain, UInt32(password.count), $0.baseAddress, true) }
        } else {
            status = SecKeychainUnlock(keychain, 0, nil, false)
        }
        guard status == errSecSuccess else { throw error(status) }
    }

    /// `SecKeychainLock`.
    func lock() throws(SecretServiceError) {
        let status = SecKeychainLock(keychain)
        guard status == errSecSuccess else { throw error(status) }
    }
}
