#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The `session` collection, as gnome-keyring has it: items kept in the provider's memory only,
/// never written to a file, gone when the provider stops. libsecret names it
/// (`SECRET_COLLECTION_SESSION`, the `session` alias) and Python keyring's own tests store in it.
///
/// It is never locked, so its items are read and changed as soon as per-application access allows
/// (``SessionCollectionBackend`` gives it the login keychain's policy). What one client can put in
/// it is bounded (``SecretServiceLimits/sessionItems``, ``SecretServiceLimits/sessionBytes``):
/// the provider's memory is not the keychain's disk. Safe to use from several threads.
package final class SessionCollection: @unchecked Sendable {
    /// The collection's name (and path element), and the alias that always names it.
    package static let name = "session"

    /// One item: what a client stored and its list of trusted applications.
    package struct Item {
        var label: String
        var attributes: [String: String]
        var secret: SecretPayload
        var created: UInt64
        var modified: UInt64
        var applications: ItemApplicationList?

        /// The bytes the item holds, for the collection's memory bound.
        fileprivate var size: Int {
            label.utf8.count + secret.value.count + secret.contentType.utf8.count
                + attributes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        }
    }

    private let lock = ThreadLock()
    /// Items by id, and the ids in creation order (the order `Items` lists them in).
    private var items: [String: Item] = [:]
    private var order: [String] = []
    private var bytes = 0
    private var label = ""
    private let created: UInt64
    private var modified: UInt64

    /// An empty session collection, created now.
    package init() {
        created = Self.now()
        modified = created
    }

    /// The collection's properties (never locked).
    package var snapshot: SecretCollectionSnapshot {
        lock.withLock { SecretCollectionSnapshot(label: label, created: created, modified: modified, locked: false) }
    }

    /// Changes the label.
    package func setLabel(_ newLabel: String) {
        lock.withLock {
            label = newLabel
            modified = Self.now()
        }
    }

    /// The items' ids, oldest first.
    package var itemIDs: [String] { lock.withLock { order } }

    /// The ids of the items whose attributes include every one of `attributes` (exactly).
    package func search(_ attributes: [String: String]) -> [String] {
        lock.withLock {
            order.filter { id in
                guard let item = items[id] else { return false }
                return attributes.allSatisfy { item.attributes[$0.key] == $0.value }
            }
        }
    }

    /// An item's properties.
    package func item(_ id: String) throws(DBusError) -> SecretItemSnapshot {
        let item = try existing(id)
        return SecretItemSnapshot(label: item.label, attributes: item.attributes, created: item.created,
                                  modified: item.modified, locked: false)
    }

    /// An item's secret with its label and attributes.
    package func secretAndNames(of id: String) throws(DBusError) -> (secret: SecretPayload, label: String, attributes: [String: String]) {
        let item = try existing(id)
        return (item.secret, item.label, item.attributes)
    }

    /// The item `createItem(… replace: true)` would overwrite: the first with exactly these attributes.
    package func replacementTarget(attributes: [String: String]) -> String? {
        lock.withLock { order.first { items[$0]?.attributes == attributes } }
    }

    /// Adds an item, or with `replace` overwrites the one with exactly the same attributes
    /// (keeping its id and list); returns its id. `LimitsExceeded` beyond the collection's bounds.
    package func createItem(label: String, attributes: [String: String], secret: SecretPayload, replace: Bool) throws(DBusError) -> String {
        try locked { () throws(DBusError) -> String in
            let now = Self.now()
            if replace, let id = order.first(where: { items[$0]?.attributes == attributes }), var item = items[id] {
                let oldSize = item.size
                item.label = label
                item.secret = secret
                item.modified = now
                try reserve(item.size - oldSize, newItems: 0)
                items[id] = item
                modified = now
                return id
            }
            let item = Item(label: label, attributes: attributes, secret: secret, created: now, modified: now, applications: nil)
            try reserve(item.size, newItems: 1)
            var generator = SystemRandomNumberGenerator()
            let id = HexEncoding.string((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            items[id] = item
            order.append(id)
            modified = now
            return id
        }
    }

    /// Changes an item: `change` gets it and may change its label, attributes, secret and list.
    package func update(_ id: String, _ change: (inout Item) -> Void) throws(DBusError) {
        try locked { () throws(DBusError) in
            guard var item = items[id] else { throw .noSuchObject("no item \(id) in the session collection") }
            let oldSize = item.size
            change(&item)
            item.modified = Self.now()
            try reserve(item.size - oldSize, newItems: 0)
            items[id] = item
        }
    }

    /// Removes an item.
    package func deleteItem(_ id: String) throws(DBusError) {
        try locked { () throws(DBusError) in
            guard let item = items.removeValue(forKey: id) else { throw .noSuchObject("no item \(id) in the session collection") }
            order.removeAll { $0 == id }
            bytes -= item.size
            modified = Self.now()
        }
    }

    /// Removes every item (deleting the collection: it stays, empty, as the `session` alias
    /// must always name one).
    package func removeAll() {
        lock.withLock {
            items = [:]
            order = []
            bytes = 0
            modified = Self.now()
        }
    }

    /// The lists of trusted applications, by item id.
    package var applicationLists: [String: ItemApplicationList] {
        lock.withLock { items.compactMapValues(\.applications) }
    }

    /// Runs `body` holding the lock, keeping its typed error.
    private func locked<T>(_ body: () throws(DBusError) -> T) throws(DBusError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func existing(_ id: String) throws(DBusError) -> Item {
        guard let item = lock.withLock({ items[id] }) else { throw .noSuchObject("no item \(id) in the session collection") }
        return item
    }

    /// Counts `added` bytes and `newItems` items in, or throws `LimitsExceeded` when the
    /// collection would pass its bounds. Called with the lock held.
    private func reserve(_ added: Int, newItems: Int) throws(DBusError) {
        guard order.count + newItems <= SecretServiceLimits.sessionItems else {
            throw .limitsExceeded("the session collection holds \(SecretServiceLimits.sessionItems) items; delete some first")
        }
        guard bytes + added <= SecretServiceLimits.sessionBytes else {
            throw .limitsExceeded("the session collection holds \(SecretServiceLimits.sessionBytes >> 20) MiB; delete some items first")
        }
        bytes += added
    }

    private static func now() -> UInt64 {
        UInt64(max(0, Date().timeIntervalSince1970))
    }
}
