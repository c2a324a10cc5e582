import Foundation
import KeychainLinux

/// `org.freedesktop.Secret.Collection` on `/org/freedesktop/secrets/collection/<c>` (and alias paths).
extension SecretServiceDaemon {
    static let collectionInterface = "org.freedesktop.Secret.Collection"

    func handleCollection(_ member: String, interface: String?, _ arguments: DBusArguments,
                          collection: String, sender: String) throws(DBusError) -> [DBusValue] {
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
            try backend.deleteCollection(collection)
            emit(Self.serviceInterface, "CollectionDeleted", from: SecretObjectPath.servicePath, [.objectPath(path)])
            return [.objectPath(SecretObjectPath.none)]
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
            let address = try backend.createItem(in: collection, label: label, attributes: attributes, secret: secret,
                                                 replace: try arguments.boolean(2))
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
                    item address: SecretItemAddress, sender: String) throws(DBusError) -> [DBusValue] {
        guard interface == nil || interface == Self.itemInterface else {
            throw .unknownMethod("an item has no interface \(interface ?? "")")
        }
        let path = Self.path(of: address)
        let collectionPath = SecretObjectPath.collection(address.collection).path
        switch member {
        case "Delete":
            try arguments.require("")
            try backend.deleteItem(address)
            emit(Self.collectionInterface, "ItemDeleted", from: collectionPath, [.objectPath(path)])
            return [.objectPath(SecretObjectPath.none)]
        case "GetSecret":
            try arguments.require("o")
            let session = try arguments.objectPath(0)
            let coding = try transferSession(session, sender: sender)
            return [try secretStructure(try backend.secret(of: address), session: session, coding: coding)]
        case "SetSecret":
            try arguments.require("(oayays)")
            try backend.setSecret(try payload(from: arguments.values[0], sender: sender), of: address)
            emit(Self.collectionInterface, "ItemChanged", from: collectionPath, [.objectPath(path)])
            return []
        default:
            throw .unknownMethod("an item has no method \(member)")
        }
    }
}
