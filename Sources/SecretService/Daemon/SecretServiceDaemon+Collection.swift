#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux

/// `org.freedesktop.Secret.Collection` on `/org/freedesktop/secrets/collection/<c>` (and alias paths).
extension SecretServiceDaemon {
    static let collectionInterface = "org.freedesktop.Secret.Collection"

    func handleCollection(_ member: String, interface: String?, _ arguments: DBusArguments,
                          collection: String, call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        let sender = call.sender ?? ""
        guard interface == nil || interface == Self.collectionInterface else {
            throw .unknownMethod("a collection has no interface \(interface ?? "")")
        }
        let path = SecretObjectPath.collection(collection).path
        switch member {
        case "Delete":
            try arguments.require("")
            // A locked collection's contents are behind its password: deleting them must not be
            // easier than reading them.
            guard !(try backend.collection(collection).locked) else {
                throw .isLocked("the collection is locked: unlock it (Service.Unlock) before deleting it")
            }
            // Deleting a collection deletes each of its items: per-application access decides for each.
            let items = try backend.itemNames(in: collection).map { ItemAccess(address: SecretItemAddress(collection: collection, item: $0), operation: .delete) }
            return try authorize(items, caller: caller(sender), call: call) { [self] (_) throws(DBusError) in
                try backend.deleteCollection(collection)
                emit(Self.serviceInterface, "CollectionDeleted", from: SecretObjectPath.servicePath, [.objectPath(path)])
                return [.objectPath(SecretObjectPath.none)]
            }
        case "SearchItems":
            try arguments.require("a{ss}")
            let found = try backend.searchItems(try arguments.stringDictionary(0))
            let inCollection = (found.unlocked + found.locked).filter { $0.collection == collection }
            return [.objectPaths(inCollection.map(Self.path(of:)))]
        case "CreateItem":
            try arguments.require("a{sv}(oayays)b")
            let properties = try arguments.variantDictionary(0)
            let label = properties["org.freedesktop.Secret.Item.Label"]?.text ?? ""
            var attributes: [String: String] = [:]
            if let value = properties["org.freedesktop.Secret.Item.Attributes"] {
                guard let dictionary = DBusArguments.stringDictionary(value) else {
                    throw .invalidArgs("org.freedesktop.Secret.Item.Attributes must be a{ss}")
                }
                attributes = dictionary
            }
            let secret = try payload(from: arguments.values[1], sender: sender)
            guard !(try backend.collection(collection).locked) else { throw .isLocked("the collection is locked") }
            let replace = try arguments.boolean(2)
            let caller = try caller(sender)
            let requested = attributes
            // Replacing an existing item is a change to it: its list and policy decide, as for SetSecret.
            if replace, let target = try backend.replacementTarget(in: collection, attributes: attributes, contentType: secret.contentType) {
                return try authorize(ItemAccess(address: target, operation: .update), caller: caller, call: call) { [self] () throws(DBusError) in
                    let address = try backend.createItem(in: collection, label: label, attributes: requested, secret: secret, replace: true)
                    let itemPath = Self.path(of: address)
                    emit(Self.collectionInterface, address == target ? "ItemChanged" : "ItemCreated", from: path, [.objectPath(itemPath)])
                    return [.objectPath(itemPath), .objectPath(SecretObjectPath.none)]
                }
            }
            let address = try backend.createItem(in: collection, label: label, attributes: attributes, secret: secret, replace: replace)
            try recordCreator(caller, of: address)
            do throws(DBusError) {
                try record(ItemAccess(address: address, operation: .create), .trusted, caller: caller)
            } catch {
                // Not recorded, so not kept: nothing reaches the keychain unlogged.
                do { try backend.deleteItem(address) } catch let removal {
                    report("a new item \(Self.path(of: address)) was not recorded and could not be removed: \(removal.message)")
                }
                throw error
            }
            let itemPath = Self.path(of: address)
            emit(Self.collectionInterface, "ItemCreated", from: path, [.objectPath(itemPath)])
            return [.objectPath(itemPath), .objectPath(SecretObjectPath.none)]
        default:
            throw .unknownMethod("a collection has no method \(member)")
        }
    }
}

/// `org.freedesktop.Secret.Item` on `/org/freedesktop/secrets/collection/<c>/<i>`.
extension SecretServiceDaemon {
    static let itemInterface = "org.freedesktop.Secret.Item"

    func handleItem(_ member: String, interface: String?, _ arguments: DBusArguments,
                    item address: SecretItemAddress, call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        let sender = call.sender ?? ""
        guard interface == nil || interface == Self.itemInterface else {
            throw .unknownMethod("an item has no interface \(interface ?? "")")
        }
        let path = Self.path(of: address)
        let collectionPath = SecretObjectPath.collection(address.collection).path
        switch member {
        case "Delete":
            try arguments.require("")
            return try authorize(ItemAccess(address: address, operation: .delete), caller: caller(sender), call: call) { [self] () throws(DBusError) in
                try backend.deleteItem(address)
                forgetApplicationList(of: address)
                emit(Self.collectionInterface, "ItemDeleted", from: collectionPath, [.objectPath(path)])
                return [.objectPath(SecretObjectPath.none)]
            }
        case "GetSecret":
            try arguments.require("o")
            let session = try arguments.objectPath(0)
            let coding = try transferSession(session, sender: sender)
            return try authorize([ItemAccess(address: address, operation: .read)], caller: caller(sender), call: call) { [self] (grant) throws(DBusError) in
                guard grant.allows(address) else { throw .isLocked("the collection is locked") }
                return [try secretStructure(try readSecret(of: address, grant), session: session, coding: coding)]
            }
        case "SetSecret":
            try arguments.require("(oayays)")
            let secret = try payload(from: arguments.values[0], sender: sender)
            return try authorize(ItemAccess(address: address, operation: .update), caller: caller(sender), call: call) { [self] () throws(DBusError) in
                try backend.setSecret(secret, of: address)
                emit(Self.collectionInterface, "ItemChanged", from: collectionPath, [.objectPath(path)])
                return []
            }
        default:
            throw .unknownMethod("an item has no method \(member)")
        }
    }
}
