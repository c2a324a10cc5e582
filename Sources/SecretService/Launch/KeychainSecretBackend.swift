#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainClient
import KeychainVocabulary

/// The daemon's backend on the keychain: ``SecretStore`` for collections and items,
/// ``SecretTransferSession`` for the transfer encryption, each failure turned into the D-Bus
/// error clients see.
package final class KeychainSecretBackend: SecretServiceBackend {
    private let store: SecretStore

    /// A backend on the default keychain's directory (`KEYCHAINKIT_KEYCHAIN`, else the XDG path).
    package init() throws(DBusError) {
        do {
            store = try SecretStore()
        } catch {
            throw error.dbusError
        }
    }

    /// A backend on `store`.
    package init(store: SecretStore) {
        self.store = store
    }

    /// Whether the keychain service holds the keychain (it then decides and logs every item call).
    package var isServedByKeychainService: Bool { store.isServedByKeychainService }

    /// For ``KeychainAccessLogs``: the calls through which the provider's access log of a keychain
    /// (by path) reaches its key item, made through the store, so that the log's checkpoint keeps
    /// the search index current (``SecretStore/accessLogKeyItems(forKeychainAt:)``).
    package var accessLogKeyItems: @Sendable (String) -> AccessLogKeyItems {
        let store = self.store
        return { store.accessLogKeyItems(forKeychainAt: $0) }
    }

    package func collectionNames() throws(DBusError) -> [String] {
        store.collectionIDs().map(\.rawValue)
    }

    package func collection(_ name: String) throws(DBusError) -> SecretCollectionSnapshot {
        let info = try mapped { () throws(SecretServiceError) in try store.collection(try Self.collectionID(name)) }
        return SecretCollectionSnapshot(label: info.label, created: Self.seconds(info.created),
                                        modified: Self.seconds(info.modified), locked: info.isLocked)
    }

    package func keychainPath(of collection: String) throws(DBusError) -> String {
        try mapped { () throws(SecretServiceError) in try store.keychainPath(of: try Self.collectionID(collection)) }
    }

    package func createCollection(label: String) throws(DBusError) -> String {
        try mapped { () throws(SecretServiceError) in try store.createCollection(label: label, password: nil).rawValue }
    }

    package func deleteCollection(_ name: String) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in try store.deleteCollection(try Self.collectionID(name)) }
    }

    package func setCollectionLabel(_ label: String, of name: String) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in try store.setLabel(label, of: try Self.collectionID(name)) }
    }

    package func readAlias(_ alias: String) throws(DBusError) -> String? {
        store.readAlias(alias)?.rawValue
    }

    package func setAlias(_ alias: String, to name: String?) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in
            try store.setAlias(alias, to: try name.map { (name) throws(SecretServiceError) in try Self.collectionID(name) })
        }
    }

    package func itemNames(in collection: String) throws(DBusError) -> [String] {
        try mapped { () throws(SecretServiceError) in try store.itemIDs(in: try Self.collectionID(collection)).map(\.rawValue) }
    }

    package func searchItems(_ attributes: [String: String]) throws(DBusError) -> (unlocked: [SecretItemAddress], locked: [SecretItemAddress]) {
        let result = try mapped { () throws(SecretServiceError) in try store.search(attributes: attributes) }
        return (result.unlocked.map(Self.address(of:)), result.locked.map(Self.address(of:)))
    }

    package func item(_ address: SecretItemAddress) throws(DBusError) -> SecretItemSnapshot {
        let ref = try mapped { () throws(SecretServiceError) in try Self.itemRef(address) }
        do {
            let info = try store.item(ref)
            return SecretItemSnapshot(label: info.label, attributes: info.attributes, created: Self.seconds(info.created),
                                      modified: Self.seconds(info.modified), locked: false)
        } catch .isLocked {
            // A locked collection's items keep their label and attributes sealed: the item shows
            // as locked with nothing else until an unlock.
            return SecretItemSnapshot(label: "", attributes: [:], created: 0, modified: 0, locked: true)
        } catch {
            throw error.dbusError
        }
    }

    package func isItemLocked(_ address: SecretItemAddress) throws(DBusError) -> Bool {
        try mapped { () throws(SecretServiceError) in try store.isItemLocked(try Self.itemRef(address)) }
    }

    package func secret(of address: SecretItemAddress) throws(DBusError) -> SecretPayload {
        let value = try mapped { () throws(SecretServiceError) in try store.secret(try Self.itemRef(address)) }
        return SecretPayload(value: Data(value.bytes), contentType: value.contentType)
    }

    package func secretAndNames(of address: SecretItemAddress) throws(DBusError) -> (secret: SecretPayload, label: String, attributes: [String: String]) {
        let read = try mapped { () throws(SecretServiceError) in try store.secretAndInfo(try Self.itemRef(address)) }
        return (SecretPayload(value: Data(read.secret.bytes), contentType: read.secret.contentType), read.label, read.attributes)
    }

    package func createItem(in collection: String, label: String, attributes: [String: String], secret: SecretPayload,
                            replace: Bool) throws(DBusError) -> SecretItemAddress {
        let ref = try mapped { () throws(SecretServiceError) in
            try store.createItem(in: try Self.collectionID(collection), label: label, attributes: attributes,
                                 secret: SecretValue(bytes: Array(secret.value), contentType: secret.contentType), replace: replace)
        }
        return Self.address(of: ref)
    }

    package func setSecret(_ secret: SecretPayload, of address: SecretItemAddress) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in
            try store.setSecret(try Self.itemRef(address), SecretValue(bytes: Array(secret.value), contentType: secret.contentType))
        }
    }

    package func setItemLabel(_ label: String, of address: SecretItemAddress) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in try store.setLabel(label, of: try Self.itemRef(address)) }
    }

    package func setItemAttributes(_ attributes: [String: String], of address: SecretItemAddress) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in try store.setAttributes(attributes, of: try Self.itemRef(address)) }
    }

    package func deleteItem(_ address: SecretItemAddress) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in try store.deleteItem(try Self.itemRef(address)) }
    }

    package func lock(_ collection: String) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in try store.lock(try Self.collectionID(collection)) }
    }

    package func unlockWithoutPrompt(_ collection: String) throws(DBusError) -> Bool {
        let id = try mapped { () throws(SecretServiceError) in try Self.collectionID(collection) }
        do {
            try store.unlock(id, password: nil)
        } catch .isLocked, .wrongPassword {
            return false
        } catch {
            throw error.dbusError
        }
        return try mapped { () throws(SecretServiceError) in try !store.isLocked(id) }
    }

    package func unlock(_ collection: String, password: Data) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in try store.unlock(try Self.collectionID(collection), password: password) }
    }

    package func openTransferSession(algorithm: String, input: [UInt8]) throws(DBusError) -> (session: any SecretTransferCoding, output: [UInt8]) {
        let opened = try mapped { () throws(SecretServiceError) in try SecretTransferSession.open(algorithm: algorithm, input: input) }
        return (TransferCoding(session: opened.session), opened.output)
    }

    /// With the keychain service, the service decides every call on the keychain's items itself
    /// (their lists are its own): what the provider still decides (the in-memory `session`
    /// collection, ``SessionCollectionBackend``) follows the policy the service keeps for the user,
    /// with no lists. The provider's old hidden records are not read: that read would be a client's
    /// call the service decides (and may ask the user about), and the user sets the policy in the
    /// service now (`keychainctl app-access policy`).
    package func applicationAccessRecord(of collection: String, items: [String]) throws(DBusError) -> ApplicationAccessRecord {
        if let socket = LoginKeychainServiceRoute.socket(for: try keychainPath(of: collection)) {
            let named: String
            do {
                named = try SecretServicePolicyRoute.policy(socket: socket)
            } catch {
                // Locked: the caller decides as it does for a locked keychain (the session collection asks).
                if error.status == KeychainStatus.interactionNotAllowed.rawValue { throw .isLocked("the keychain is locked: \(error)") }
                throw .failed("the per-application policy could not be read from the keychain service, so nothing was decided: \(error)")
            }
            guard let policy = ApplicationAccessPolicy(rawValue: named) else {
                throw .failed("the keychain service named the per-application policy \(named), which this provider does not know")
            }
            return ApplicationAccessRecord(policy: policy, items: [:])
        }
        return try mapped { () throws(SecretServiceError) in try store.applicationAccessRecord(of: try Self.collectionID(collection), items: items) }
    }

    package func changeApplicationList(of address: SecretItemAddress, _ change: @escaping (inout ItemApplicationList?) -> Void) throws(DBusError) {
        try mapped { () throws(SecretServiceError) in try store.changeApplicationList(of: try Self.itemRef(address), change) }
    }

    package func replacementTarget(in collection: String, attributes: [String: String], contentType: String) throws(DBusError) -> SecretItemAddress? {
        try mapped { () throws(SecretServiceError) in
            try store.replacementTarget(in: try Self.collectionID(collection), attributes: attributes, contentType: contentType).map(Self.address(of:))
        }
    }

    /// Runs `body`, turning a store failure into its D-Bus error.
    private func mapped<T>(_ body: () throws(SecretServiceError) -> T) throws(DBusError) -> T {
        do {
            return try body()
        } catch {
            throw error.dbusError
        }
    }

    private static func collectionID(_ name: String) throws(SecretServiceError) -> SecretCollectionID {
        guard let id = SecretCollectionID(rawValue: name) else { throw .noSuchObject }
        return id
    }

    private static func itemRef(_ address: SecretItemAddress) throws(SecretServiceError) -> SecretItemRef {
        guard let item = SecretItemID(rawValue: address.item) else { throw .noSuchObject }
        return SecretItemRef(collection: try collectionID(address.collection), item: item)
    }

    private static func address(of ref: SecretItemRef) -> SecretItemAddress {
        SecretItemAddress(collection: ref.collection.rawValue, item: ref.item.rawValue)
    }

    private static func seconds(_ date: Date) -> UInt64 {
        UInt64(max(0, date.timeIntervalSince1970))
    }
}

/// A transfer session as the daemon uses it.
private final class TransferCoding: SecretTransferCoding {
    let session: SecretTransferSession

    init(session: SecretTransferSession) {
        self.session = session
    }

    func encode(_ secret: Data) throws(DBusError) -> (parameters: [UInt8], value: [UInt8]) {
        do {
            return try session.encrypt(Array(secret))
        } catch {
            throw error.dbusError
        }
    }

    func decode(parameters: [UInt8], value: [UInt8]) throws(DBusError) -> Data {
        do {
            return Data(try session.decrypt(parameters: parameters, value: value))
        } catch {
            throw error.dbusError
        }
    }
}

extension SecretServiceError {
    /// The D-Bus error a client sees for this failure.
    var dbusError: DBusError {
        switch self {
        case .noSuchObject: return .noSuchObject(description)
        case .isLocked: return .isLocked(description)
        case .noSession: return .noSession(description)
        case .invalidArgument: return .invalidArgs(description)
        // The keychain service refused a client an item does not trust (the user denied it, could
        // not be asked, or the policy is deny): the client is told so, as a refusal, not a failure.
        case .storage(let status, _) where status == KeychainStatus.userCanceled.rawValue || status == KeychainStatus.missingEntitlement.rawValue:
            return DBusError("org.freedesktop.DBus.Error.AccessDenied", description)
        case .alreadyExists, .storage, .keychainFileGone: return .failed(description)
        case .wrongPassword: return DBusError("org.freedesktop.DBus.Error.AccessDenied", description)
        case .notSupported: return .notSupported(description)
        }
    }
}
