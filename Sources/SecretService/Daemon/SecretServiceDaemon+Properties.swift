#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux

/// `org.freedesktop.DBus.Properties` for the service, collections and items.
extension SecretServiceDaemon {
    /// As gnome-keyring answers (the specification is silent on `Properties`): a path that names no
    /// object, or a collection, alias or item that does not exist, is `UnknownMethod` whatever
    /// the property; an unknown property (or interface) of an existing object is `InvalidArgs`.
    func handleProperties(_ member: String, _ arguments: DBusArguments, path: String, call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        if path == Self.portalPath { return try handlePortalProperties(member, arguments) }
        guard let object = SecretObjectPath(path) else { throw .unknownMethod("no object at \(path)") }
        do throws(DBusError) {
            return try handleProperties(member, arguments, object: object, call: call)
        } catch where error.name == DBusError.noSuchObjectName {
            throw .unknownMethod("no object at \(path)")
        }
    }

    /// `Get` and `GetAll` of the portal object (its one property is read-only).
    private func handlePortalProperties(_ member: String, _ arguments: DBusArguments) throws(DBusError) -> [DBusValue] {
        switch member {
        case "Get":
            try arguments.require("ss")
            guard let value = try portalProperties(interface: try arguments.string(0))[try arguments.string(1)] else {
                throw .invalidArgs("no property \(try arguments.string(1))")
            }
            return [.variant(value)]
        case "GetAll":
            try arguments.require("s")
            let all = try portalProperties(interface: try arguments.string(0))
            return [.array(elementSignature: "{sv}", all.sorted { $0.key < $1.key }.map { .dictEntry(key: .string($0.key), value: .variant($0.value)) })]
        case "Set":
            throw .propertyReadOnly("the portal's properties are read-only")
        default:
            throw .unknownMethod("Properties has no method \(member)")
        }
    }

    private func handleProperties(_ member: String, _ arguments: DBusArguments, object: SecretObjectPath, call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        switch member {
        case "Get":
            try arguments.require("ss")
            let name = try arguments.string(1)
            switch object {
            case .item where name == "Locked", .aliasItem where name == "Locked":
                // Asked before every GetSecret by secretstorage: answered without reading the item.
                let locked = try backend.isItemLocked(try itemAddress(of: object))
                try expect(try arguments.string(0), Self.itemInterface)
                return [.variant(.boolean(locked))]
            default:
                break
            }
            let all = try properties(of: object, interface: try arguments.string(0), only: name)
            guard let value = all[name] else { throw .invalidArgs("no property \(name)") }
            return [.variant(value)]
        case "GetAll":
            try arguments.require("s")
            let all = try properties(of: object, interface: try arguments.string(0))
            let entries = all.sorted { $0.key < $1.key }.map { DBusValue.dictEntry(key: .string($0.key), value: .variant($0.value)) }
            return [.array(elementSignature: "{sv}", entries)]
        case "Set":
            try arguments.require("ssv")
            return try setProperty(of: object, interface: try arguments.string(0), name: try arguments.string(1),
                                   value: try arguments.variant(2), call: call)
        default:
            throw .unknownMethod("Properties has no method \(member)")
        }
    }

    /// The properties of `object` under `interface` (empty interface: the object's own); with
    /// `only`, a collection's `Items` (one entry per item) is listed only when that is the one
    /// asked for: secretstorage asks a collection's `Locked` before every `CreateItem`.
    private func properties(of object: SecretObjectPath, interface: String, only: String? = nil) throws(DBusError) -> [String: DBusValue] {
        switch object {
        case .service:
            try expect(interface, Self.serviceInterface)
            let paths = try backend.collectionNames().map { SecretObjectPath.collection($0).path }
            return ["Collections": .objectPaths(paths)]
        case .collection, .alias:
            // Whether the object exists is answered first: a missing one is UnknownMethod whatever was asked.
            let name = try collectionName(of: object)
            let snapshot = try backend.collection(name)
            try expect(interface, Self.collectionInterface)
            var all: [String: DBusValue] = ["Label": .string(snapshot.label), "Locked": .boolean(snapshot.locked),
                                            "Created": .uint64(snapshot.created), "Modified": .uint64(snapshot.modified)]
            if only == nil || only == "Items" { all["Items"] = .objectPaths(try itemPaths(in: name)) }
            return all
        case .item, .aliasItem:
            let snapshot = try backend.item(try itemAddress(of: object))
            try expect(interface, Self.itemInterface)
            return ["Locked": .boolean(snapshot.locked), "Attributes": .stringDictionary(snapshot.attributes),
                    "Label": .string(snapshot.label), "Created": .uint64(snapshot.created), "Modified": .uint64(snapshot.modified)]
        case .session, .prompt:
            return [:]
        }
    }

    /// Sets a property: nil when a prompt thread answers (an item's change waiting for a person).
    private func setProperty(of object: SecretObjectPath, interface: String, name: String, value: DBusValue,
                             call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        switch (object, name) {
        case (.collection, "Label"), (.alias, "Label"):
            try expect(interface, Self.collectionInterface)
            guard case .string(let label) = value else { throw .invalidArgs("Label is a string") }
            let collection = try collectionName(of: object)
            try backend.setCollectionLabel(label, of: collection)
            emit(Self.serviceInterface, "CollectionChanged", from: SecretObjectPath.servicePath,
                 [.objectPath(SecretObjectPath.collection(collection).path)])
            return []
        case (.item, "Label"), (.aliasItem, "Label"):
            try expect(interface, Self.itemInterface)
            guard case .string(let label) = value else { throw .invalidArgs("Label is a string") }
            let address = try itemAddress(of: object)
            return try authorize(ItemAccess(address: address, operation: .update), caller: caller(call.sender ?? ""), call: call) { [self] () throws(DBusError) in
                try backend.setItemLabel(label, of: address)
                itemChanged(address)
                return []
            }
        case (.item, "Attributes"), (.aliasItem, "Attributes"):
            try expect(interface, Self.itemInterface)
            guard let attributes = DBusArguments.stringDictionary(value) else { throw .invalidArgs("Attributes is a{ss}") }
            let address = try itemAddress(of: object)
            return try authorize(ItemAccess(address: address, operation: .update), caller: caller(call.sender ?? ""), call: call) { [self] () throws(DBusError) in
                try backend.setItemAttributes(attributes, of: address)
                itemChanged(address)
                return []
            }
        case (.item, _), (.aliasItem, _), (.collection, _), (.alias, _), (.service, _):
            throw .propertyReadOnly("\(name) cannot be set")
        case (.session, _), (.prompt, _):
            throw .invalidArgs("no property \(name)")
        }
    }

    /// The paths of a collection's items; none while it is locked (the keychain cannot list the
    /// items of a locked keychain without their keys: docs/SECRET-SERVICE.md).
    func itemPaths(in collection: String) throws(DBusError) -> [String] {
        do {
            return try backend.itemNames(in: collection).map { SecretObjectPath.item(collection: collection, item: $0).path }
        } catch where error.name == DBusError.isLockedName {
            return []
        }
    }

    private func itemChanged(_ address: SecretItemAddress) {
        emit(Self.collectionInterface, "ItemChanged", from: SecretObjectPath.collection(address.collection).path,
             [.objectPath(Self.path(of: address))])
    }

    private func expect(_ interface: String, _ expected: String) throws(DBusError) {
        guard interface.isEmpty || interface == expected else { throw .invalidArgs("the object has no interface \(interface)") }
    }
}
