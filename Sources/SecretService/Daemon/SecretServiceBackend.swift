#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An item's place: its collection's name and its own name (both D-Bus path elements).
package struct SecretItemAddress: Hashable, Sendable {
    /// The collection's name.
    package var collection: String
    /// The item's name within the collection.
    package var item: String

    /// The item `item` of `collection`.
    package init(collection: String, item: String) {
        self.collection = collection
        self.item = item
    }
}

/// A collection's properties.
package struct SecretCollectionSnapshot: Equatable, Sendable {
    /// The displayable label.
    package var label: String
    /// Creation time, seconds since 1970.
    package var created: UInt64
    /// Last modification time, seconds since 1970.
    package var modified: UInt64
    /// Whether the collection's secrets are unreadable until an unlock.
    package var locked: Bool

    /// A snapshot with these properties.
    package init(label: String, created: UInt64, modified: UInt64, locked: Bool) {
        self.label = label
        self.created = created
        self.modified = modified
        self.locked = locked
    }
}

/// An item's properties (not its secret).
package struct SecretItemSnapshot: Equatable, Sendable {
    /// The displayable label.
    package var label: String
    /// The lookup attributes.
    package var attributes: [String: String]
    /// Creation time, seconds since 1970.
    package var created: UInt64
    /// Last modification time, seconds since 1970.
    package var modified: UInt64
    /// Whether the item's collection is locked.
    package var locked: Bool

    /// A snapshot with these properties.
    package init(label: String, attributes: [String: String], created: UInt64, modified: UInt64, locked: Bool) {
        self.label = label
        self.attributes = attributes
        self.created = created
        self.modified = modified
        self.locked = locked
    }
}

/// A secret and its MIME content type, as clients store it.
package struct SecretPayload: Sendable {
    /// The secret's bytes.
    package var value: Data
    /// Its content type (`text/plain` when the client gave none).
    package var contentType: String

    /// A payload of `value` typed `contentType`.
    package init(value: Data, contentType: String) {
        self.value = value
        self.contentType = contentType
    }
}

/// Encryption of secrets between the service and one client (a Secret Service "session").
package protocol SecretTransferCoding: AnyObject, Sendable {
    /// The secret as sent to the client: (parameters, value).
    func encode(_ secret: Data) throws(DBusError) -> (parameters: [UInt8], value: [UInt8])
    /// The secret a client sent, from its parameters and value; a value that does not decode
    /// throws (`InvalidArgs`), without detail on why.
    func decode(parameters: [UInt8], value: [UInt8]) throws(DBusError) -> Data
}

/// What the D-Bus objects need from the keychain: collections (keychain files), items, secrets,
/// locking and transfer sessions. The store layer implements it on the Security API; every
/// failure is thrown as the D-Bus error clients should see.
package protocol SecretServiceBackend: AnyObject {
    /// The collections' names.
    func collectionNames() throws(DBusError) -> [String]
    /// A collection's properties (`NoSuchObject` if there is none).
    func collection(_ name: String) throws(DBusError) -> SecretCollectionSnapshot
    /// The path of a collection's keychain file (shown in prompts beside its label, which any
    /// client may set).
    func keychainPath(of collection: String) throws(DBusError) -> String
    /// Creates a collection labelled `label` (its keychain unlocked by the device key, no password)
    /// and returns its name.
    func createCollection(label: String) throws(DBusError) -> String
    /// Deletes a collection and its items.
    func deleteCollection(_ name: String) throws(DBusError)
    /// Changes a collection's label.
    func setCollectionLabel(_ label: String, of name: String) throws(DBusError)
    /// The collection `alias` names, or nil.
    func readAlias(_ alias: String) throws(DBusError) -> String?
    /// Points `alias` at a collection, or removes it (nil).
    func setAlias(_ alias: String, to name: String?) throws(DBusError)

    /// The items of a collection; `IsLocked` while it is locked (a locked keychain cannot list
    /// its items without their keys: the daemon shows such a collection with no items).
    func itemNames(in collection: String) throws(DBusError) -> [String]
    /// Items of every collection whose attributes include all of `attributes`.
    func searchItems(_ attributes: [String: String]) throws(DBusError) -> (unlocked: [SecretItemAddress], locked: [SecretItemAddress])
    /// An item's properties.
    func item(_ address: SecretItemAddress) throws(DBusError) -> SecretItemSnapshot
    /// An item's secret (`IsLocked` while its collection is locked).
    func secret(of address: SecretItemAddress) throws(DBusError) -> SecretPayload
    /// An item's secret with its label and attributes, read together (`IsLocked` while its
    /// collection is locked).
    func secretAndNames(of address: SecretItemAddress) throws(DBusError) -> (secret: SecretPayload, label: String, attributes: [String: String])
    /// Creates an item, or with `replace` replaces the one with the same attributes; returns it.
    func createItem(in collection: String, label: String, attributes: [String: String], secret: SecretPayload,
                    replace: Bool) throws(DBusError) -> SecretItemAddress
    /// Whether the item's collection is locked (its `Locked` property), without reading the item.
    func isItemLocked(_ address: SecretItemAddress) throws(DBusError) -> Bool
    /// Replaces an item's secret.
    func setSecret(_ secret: SecretPayload, of address: SecretItemAddress) throws(DBusError)
    /// Changes an item's label.
    func setItemLabel(_ label: String, of address: SecretItemAddress) throws(DBusError)
    /// Replaces an item's attributes.
    func setItemAttributes(_ attributes: [String: String], of address: SecretItemAddress) throws(DBusError)
    /// Deletes an item.
    func deleteItem(_ address: SecretItemAddress) throws(DBusError)

    /// Locks a collection (its password-protected secrets become unreadable).
    func lock(_ collection: String) throws(DBusError)
    /// Unlocks a collection without asking anybody (no password, a password file, an unlock shared
    /// by the session); returns whether it is unlocked now.
    func unlockWithoutPrompt(_ collection: String) throws(DBusError) -> Bool
    /// Unlocks a collection with its password; a wrong password throws.
    func unlock(_ collection: String, password: Data) throws(DBusError)

    /// Opens a transfer session for `algorithm` (`plain`, `dh-ietf1024-sha256-aes128-cbc-pkcs7`)
    /// with the client's input; returns the session and the output for the client.
    func openTransferSession(algorithm: String, input: [UInt8]) throws(DBusError) -> (session: any SecretTransferCoding, output: [UInt8])

    /// The collection's per-application access settings: its policy and the lists of trusted
    /// applications of the items `items` (ids; an item without a list has no entry). `IsLocked`
    /// while the collection is locked.
    func applicationAccessRecord(of collection: String, items: [String]) throws(DBusError) -> ApplicationAccessRecord
    /// Changes the item's list (nil: the item has none).
    func changeApplicationList(of address: SecretItemAddress, _ change: @escaping (inout ItemApplicationList?) -> Void) throws(DBusError)
    /// The item `createItem(… replace: true)` would overwrite, or nil when it would add one.
    func replacementTarget(in collection: String, attributes: [String: String], contentType: String) throws(DBusError) -> SecretItemAddress?
}
