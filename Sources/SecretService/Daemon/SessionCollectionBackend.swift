#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A backend with the in-memory `session` collection (``SessionCollection``) beside the keychain
/// collections of `base`: calls naming `session` are answered from memory, all others go to
/// `base`. The `session` alias always names it; it cannot be moved, and no other alias can name it
/// (an alias is saved to disk, the collection is not).
///
/// Per-application access: the items' lists live with the items (in memory); the policy is the
/// login keychain's — with the keychain service, the one the service keeps for the user — or
/// `confirm` while the login keychain is locked (its policy cannot be read then, and nothing looser
/// may be assumed). Accesses are recorded in the login keychain's access log (``keychainPath(of:)``
/// names its file).
package final class SessionCollectionBackend: SecretServiceBackend {
    private let base: any SecretServiceBackend
    private let session = SessionCollection()
    private static let name = SessionCollection.name
    /// The collection whose policy and access log the session collection shares.
    private static let login = SecretCollectionID.login.rawValue

    /// `base`'s collections and the session collection.
    package init(wrapping base: any SecretServiceBackend) {
        self.base = base
    }

    package func collectionNames() throws(DBusError) -> [String] {
        try base.collectionNames() + [Self.name]
    }

    package func collection(_ name: String) throws(DBusError) -> SecretCollectionSnapshot {
        name == Self.name ? session.snapshot : try base.collection(name)
    }

    package func keychainPath(of collection: String) throws(DBusError) -> String {
        try base.keychainPath(of: collection == Self.name ? Self.login : collection)
    }

    package func createCollection(label: String) throws(DBusError) -> String {
        try base.createCollection(label: label)
    }

    package func deleteCollection(_ name: String) throws(DBusError) {
        guard name == Self.name else { return try base.deleteCollection(name) }
        session.removeAll()
    }

    package func setCollectionLabel(_ label: String, of name: String) throws(DBusError) {
        guard name == Self.name else { return try base.setCollectionLabel(label, of: name) }
        session.setLabel(label)
    }

    package func readAlias(_ alias: String) throws(DBusError) -> String? {
        alias == Self.name ? Self.name : try base.readAlias(alias)
    }

    package func setAlias(_ alias: String, to name: String?) throws(DBusError) {
        guard alias != Self.name else {
            guard name == Self.name else { throw .notSupported("the session alias always names the session collection") }
            return
        }
        guard name != Self.name else {
            throw .notSupported("only the session alias names the session collection (it is kept in memory, aliases on disk)")
        }
        try base.setAlias(alias, to: name)
    }

    package func itemNames(in collection: String) throws(DBusError) -> [String] {
        collection == Self.name ? session.itemIDs : try base.itemNames(in: collection)
    }

    package func searchItems(_ attributes: [String: String]) throws(DBusError) -> (unlocked: [SecretItemAddress], locked: [SecretItemAddress]) {
        let found = try base.searchItems(attributes)
        let inSession = session.search(attributes).map { SecretItemAddress(collection: Self.name, item: $0) }
        return (found.unlocked + inSession, found.locked)
    }

    package func item(_ address: SecretItemAddress) throws(DBusError) -> SecretItemSnapshot {
        address.collection == Self.name ? try session.item(address.item) : try base.item(address)
    }

    package func isItemLocked(_ address: SecretItemAddress) throws(DBusError) -> Bool {
        guard address.collection == Self.name else { return try base.isItemLocked(address) }
        _ = try session.item(address.item)
        return false
    }

    package func secret(of address: SecretItemAddress) throws(DBusError) -> SecretPayload {
        address.collection == Self.name ? try session.secretAndNames(of: address.item).secret : try base.secret(of: address)
    }

    package func secretAndNames(of address: SecretItemAddress) throws(DBusError) -> (secret: SecretPayload, label: String, attributes: [String: String]) {
        address.collection == Self.name ? try session.secretAndNames(of: address.item) : try base.secretAndNames(of: address)
    }

    package func createItem(in collection: String, label: String, attributes: [String: String], secret: SecretPayload,
                            replace: Bool) throws(DBusError) -> SecretItemAddress {
        guard collection == Self.name else {
            return try base.createItem(in: collection, label: label, attributes: attributes, secret: secret, replace: replace)
        }
        let id = try session.createItem(label: label, attributes: attributes, secret: secret, replace: replace)
        return SecretItemAddress(collection: Self.name, item: id)
    }

    package func setSecret(_ secret: SecretPayload, of address: SecretItemAddress) throws(DBusError) {
        guard address.collection == Self.name else { return try base.setSecret(secret, of: address) }
        try session.update(address.item) { $0.secret = secret }
    }

    package func setItemLabel(_ label: String, of address: SecretItemAddress) throws(DBusError) {
        guard address.collection == Self.name else { return try base.setItemLabel(label, of: address) }
        try session.update(address.item) { $0.label = label }
    }

    package func setItemAttributes(_ attributes: [String: String], of address: SecretItemAddress) throws(DBusError) {
        guard address.collection == Self.name else { return try base.setItemAttributes(attributes, of: address) }
        try session.update(address.item) { $0.attributes = attributes }
    }

    package func deleteItem(_ address: SecretItemAddress) throws(DBusError) {
        guard address.collection == Self.name else { return try base.deleteItem(address) }
        try session.deleteItem(address.item)
    }

    /// The session collection is never locked (as gnome-keyring's): locking it changes nothing.
    package func lock(_ collection: String) throws(DBusError) {
        guard collection != Self.name else { return }
        try base.lock(collection)
    }

    package func unlockWithoutPrompt(_ collection: String) throws(DBusError) -> Bool {
        collection == Self.name ? true : try base.unlockWithoutPrompt(collection)
    }

    package func unlock(_ collection: String, password: Data) throws(DBusError) {
        guard collection != Self.name else { return }
        try base.unlock(collection, password: password)
    }

    package func openTransferSession(algorithm: String, input: [UInt8]) throws(DBusError) -> (session: any SecretTransferCoding, output: [UInt8]) {
        try base.openTransferSession(algorithm: algorithm, input: input)
    }

    package func applicationAccessRecord(of collection: String, items: [String]) throws(DBusError) -> ApplicationAccessRecord {
        guard collection == Self.name else { return try base.applicationAccessRecord(of: collection, items: items) }
        let policy: ApplicationAccessPolicy
        do {
            policy = try base.applicationAccessRecord(of: Self.login, items: []).policy
        } catch where error.name == DBusError.isLockedName {
            policy = .confirm
        }
        return ApplicationAccessRecord(policy: policy, items: session.applicationLists)
    }

    package func changeApplicationList(of address: SecretItemAddress, _ change: @escaping (inout ItemApplicationList?) -> Void) throws(DBusError) {
        guard address.collection == Self.name else { return try base.changeApplicationList(of: address, change) }
        do {
            try session.update(address.item) { change(&$0.applications) }
        } catch where error.name == DBusError.noSuchObjectName {
            // A deleted item's list went with it.
        }
    }

    package func replacementTarget(in collection: String, attributes: [String: String], contentType: String) throws(DBusError) -> SecretItemAddress? {
        guard collection == Self.name else { return try base.replacementTarget(in: collection, attributes: attributes, contentType: contentType) }
        return session.replacementTarget(attributes: attributes).map { SecretItemAddress(collection: Self.name, item: $0) }
    }
}
