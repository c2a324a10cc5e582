import Foundation
import KeychainStore

/// Apple's four SecItem functions on one keychain, with Apple's dictionary semantics: parsing,
/// validation, defaults, access groups, result shapes and status codes. Keys are Apple's string
/// values (`"class"`, `"acct"`, `"r_Data"`, …). Pure Swift and platform-neutral, so it also
/// gives Apple-platform tests a hermetic keychain.
public final class SecItemEngine: Sendable {
    /// The keychain the engine works on.
    public let database: KeychainDatabase
    /// The caller's access groups.
    public let accessGroups: AccessGroups
    private let accessControlObject: @Sendable (AccessControlPolicy) -> Any

    /// An engine over `database` for a caller entitled to `accessGroups`.
    /// `accessControlObject` builds the value returned under `kSecAttrAccessControl`
    /// (KeychainServices passes its `SecAccessControl`); by default the policy itself.
    public init(database: KeychainDatabase, accessGroups: AccessGroups,
                accessControlObject: @escaping @Sendable (AccessControlPolicy) -> Any = { $0 }) {
        self.database = database
        self.accessGroups = accessGroups
        self.accessControlObject = accessControlObject
    }

    /// An isolated in-memory keychain (unlocked, no password) entitled to `accessGroups`
    /// (the first is the default group for adds). For tests.
    public static func ephemeral(accessGroups: [String] = ["test"]) throws -> SecItemEngine {
        SecItemEngine(database: try KeychainDatabase.inMemory(), accessGroups: AccessGroups(accessGroups))
    }

    // MARK: SecItemAdd

    /// `SecItemAdd`.
    public func add(_ attributes: [String: Any]) -> SecItemResult {
        run { () throws(EngineFailure) -> Any? in
            try accessGroups.requireAny()
            let request = try RequestParser.parse(attributes, mode: .add)
            // Apple's iOS path reports success and stores nothing when an add carries a match
            // key or an item list; we refuse instead (documented deviation).
            if request.hasMatchKey || request.hasItemList || request.authenticationUI == .skip {
                throw EngineFailure(Status.param)
            }
            let protection = try resolveProtection(request, defaultClass: .whenUnlocked) ?? .whenUnlocked
            let synchronizable: Bool
            switch request.synchronizable {
            case .absent: synchronizable = false
            case .value(let flag): synchronizable = flag
            case .any: throw EngineFailure(Status.param)
            }
            if synchronizable && request.accessControl != nil { throw EngineFailure(Status.param) }
            let group: String
            if let explicit = request.accessGroup { group = explicit } else { group = try accessGroups.defaultGroup() }
            try accessGroups.require(group)
            var stored = request.attributes
            stored["agrp"] = .string(group)
            stored["sync"] = .number(synchronizable ? 1 : 0)
            stored["cdat"] = nil
            stored["mdat"] = nil
            let item = try perform { () throws(KeychainStoreError) in
                try database.insert(NewItem(itemClass: request.itemClass, attributes: stored, data: request.data,
                                            protection: protection, accessControl: request.accessControl))
            }
            return ResultBuilder(request: request, accessControlObject: accessControlObject).value(for: item)
        }
    }

    // MARK: SecItemCopyMatching

    /// `SecItemCopyMatching`.
    public func copyMatching(_ query: [String: Any]) -> SecItemResult {
        run { () throws(EngineFailure) -> Any? in
            try accessGroups.requireAny()
            let request = try RequestParser.parse(query, mode: .copyMatching)
            if request.hasItemList { throw EngineFailure(Status.param) }
            let itemQuery = try makeQuery(request)
            let limit = request.limit ?? .one
            var storeQuery = itemQuery
            switch limit {
            case .one: storeQuery.limit = 1
            case .all: storeQuery.limit = nil
            case .count(let count): storeQuery.limit = count
            }
            let needsContents = request.returnData || request.returnAttributes || request.returnRef
            var items = try perform { () throws(KeychainStoreError) in try database.find(storeQuery, decrypt: needsContents) }
            items = try enforceAccessControl(items, request: request)
            if items.isEmpty { throw EngineFailure(Status.itemNotFound) }
            return ResultBuilder(request: request, accessControlObject: accessControlObject)
                .result(for: items, limitOne: limit == .one)
        }
    }

    // MARK: SecItemUpdate

    /// `SecItemUpdate`.
    public func update(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> Int32 {
        run { () throws(EngineFailure) -> Any? in
            try accessGroups.requireAny()
            let request = try RequestParser.parse(query, mode: .update)
            if request.hasReturnKeyTrue || request.hasMatchKey || request.hasItemList || request.authenticationUI == .skip {
                throw EngineFailure(Status.param)
            }
            let changesRequest = try RequestParser.parseChanges(attributesToUpdate, itemClass: request.itemClass)
            var changes = ItemChanges()
            changes.attributes = changesRequest.attributes
            changes.attributes["mdat"] = nil  // the store sets the modification date
            changes.data = changesRequest.data
            if changesRequest.protection != nil || changesRequest.accessControl != nil {
                let protection = try resolveProtection(changesRequest, defaultClass: nil)
                changes.accessControl = changesRequest.accessControl
                changes.protection = protection
            }
            if let group = changesRequest.accessGroup {
                try accessGroups.require(group)
                changes.attributes["agrp"] = .string(group)
            }
            switch changesRequest.synchronizable {
            case .absent: break
            case .value(let flag):
                if flag && changesRequest.accessControl != nil { throw EngineFailure(Status.param) }
                changes.attributes["sync"] = .number(flag ? 1 : 0)
            case .any: throw EngineFailure(Status.param)
            }
            let itemQuery = try makeQuery(request)
            try perform { () throws(KeychainStoreError) in try database.update(itemQuery, with: changes) }
            return nil
        }.status
    }

    // MARK: SecItemDelete

    /// `SecItemDelete`.
    public func delete(_ query: [String: Any]) -> Int32 {
        run { () throws(EngineFailure) -> Any? in
            try accessGroups.requireAny()
            let request = try RequestParser.parse(query, mode: .delete)
            if request.hasMatchKey || request.authenticationUI == .skip { throw EngineFailure(Status.param) }
            let itemQuery = try makeQuery(request)
            try perform { () throws(KeychainStoreError) in try database.delete(itemQuery) }
            return nil
        }.status
    }

    // MARK: Shared steps

    /// The accessibility of an add or update: from `kSecAttrAccessible` or the access control;
    /// both at once is `errSecParam` (Apple never finds them equal).
    private func resolveProtection(_ request: ParsedRequest, defaultClass: ProtectionClass?) throws(EngineFailure) -> ProtectionClass? {
        if request.protection != nil && request.accessControl != nil { throw EngineFailure(Status.param) }
        return request.accessControl?.protection ?? request.protection ?? defaultClass
    }

    /// The store query for a CopyMatching/Update/Delete request.
    private func makeQuery(_ request: ParsedRequest) throws(EngineFailure) -> ItemQuery {
        if request.persistentID != nil && !request.attributes.isEmpty { throw EngineFailure(Status.param) }
        if request.hostOrSubdomainOf != nil && request.itemClass != .internetPassword {
            throw EngineFailure(Status.unimplemented)
        }
        let scope: AccessGroupScope
        if let group = request.accessGroup {
            try accessGroups.require(group)
            scope = .only([group])
        } else {
            scope = accessGroups.isUnrestricted ? .all : .only(accessGroups.groups)
        }
        var query = ItemQuery(itemClass: request.itemClass, accessGroups: scope)
        query.persistentID = request.persistentID
        query.filters = request.attributes
        query.protection = request.protection
        query.hostOrSubdomainOf = request.hostOrSubdomainOf
        switch request.synchronizable {
        case .absent: query.synchronizable = request.persistentID == nil ? false : nil
        case .value(let flag): query.synchronizable = flag
        case .any: query.synchronizable = nil
        }
        return query
    }

    /// Items whose access control has constraints are guarded: until prompts exist on this
    /// platform, reading their contents is refused as "interaction not allowed", or the items
    /// are left out with `kSecUseAuthenticationUISkip`, as Apple does when no UI may be shown.
    private func enforceAccessControl(_ items: [KeychainItem], request: ParsedRequest) throws(EngineFailure) -> [KeychainItem] {
        guard request.returnData else { return items }
        var allowed: [KeychainItem] = []
        for item in items {
            guard let accessControl = item.accessControl, accessControl.hasConstraints else {
                allowed.append(item)
                continue
            }
            if request.authenticationUI == .skip { continue }
            throw EngineFailure(Status.interactionNotAllowed)
        }
        return allowed
    }

    private func perform<T>(_ body: () throws(KeychainStoreError) -> T) throws(EngineFailure) -> T {
        do {
            return try body()
        } catch {
            throw EngineFailure(error.osStatus)
        }
    }

    private func run(_ body: () throws(EngineFailure) -> Any?) -> SecItemResult {
        do {
            return SecItemResult(status: Status.success, value: try body())
        } catch {
            return SecItemResult(status: error.status)
        }
    }
}
