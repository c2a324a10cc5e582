#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainStore
import KeychainVocabulary

/// Apple's four SecItem functions on one keychain, with Apple's dictionary semantics: parsing,
/// validation, defaults, access groups, result shapes and status codes. Keys are Apple's string
/// values (`"class"`, `"acct"`, `"r_Data"`, …). Pure Swift and platform-neutral, so it also
/// gives Apple-platform tests a hermetic keychain.
package final class SecItemEngine: Sendable {
    /// The keychain the engine works on.
    package let database: KeychainDatabase
    /// The caller's access groups.
    package let accessGroups: AccessGroups
    /// How the device owner is asked for the keychain password (or an application password).
    package let authenticator: OwnerAuthenticator
    private let accessControlObject: @Sendable (AccessControlPolicy) -> Any

    /// An engine over `database` for a caller entitled to `accessGroups`.
    /// `accessControlObject` builds the value returned under `kSecAttrAccessControl`
    /// (KeychainServices passes its `SecAccessControl`); by default the policy itself.
    /// `authenticator` prompts for passwords: the one of the registry the engine was made from
    /// (``KeychainRegistry/authenticator(for:)``), never one read from the process here.
    package init(database: KeychainDatabase, accessGroups: AccessGroups,
                authenticator: OwnerAuthenticator,
                accessControlObject: @escaping @Sendable (AccessControlPolicy) -> Any = { $0 }) {
        self.database = database
        self.accessGroups = accessGroups
        self.authenticator = authenticator
        self.accessControlObject = accessControlObject
    }

    /// An isolated in-memory keychain (unlocked, no password) entitled to `accessGroups`
    /// (the first is the default group for adds). For tests: it never shows a prompt, whatever
    /// pinentry the environment offers — anything that would need one fails as not interactive.
    package static func ephemeral(accessGroups: [String] = ["test"]) throws -> SecItemEngine {
        SecItemEngine(database: try KeychainDatabase.inMemory(), accessGroups: AccessGroups(accessGroups),
                      authenticator: OwnerAuthenticator(pinentry: nil))
    }

    // MARK: SecItemAdd

    /// `SecItemAdd`. The data of a token-bound (Secure Enclave) key is never returned.
    package func add(_ attributes: [String: Any]) -> SecItemResult {
        add(attributes, releasingTokenKeyMaterial: false)
    }

    /// `SecItemAdd` for the KeychainServices edge, which may receive a token-bound key's bytes to
    /// build the `SecKey` that uses (and never exports) them.
    package func add(_ attributes: [String: Any], releasingTokenKeyMaterial: Bool) -> SecItemResult {
        run { () throws(KeychainStoreError) -> Any? in
            try accessGroups.requireAny()
            let request = try RequestParser.parse(attributes, mode: .add)
            // Apple's iOS path reports success and stores nothing when an add carries a match
            // key or an item list; we refuse instead (documented deviation).
            if request.hasMatchKey || request.hasItemList || request.authenticationUI == .skip {
                throw ParameterRefusal.request("SecItemAdd takes no kSecMatch… key, kSecUseItemList or kSecUseAuthenticationUISkip")
            }
            // Apple's default accessibility: WhenUnlocked, but Always (its private `dk` alias) for
            // certificates, which are public data.
            let defaultProtection: ProtectionClass = request.itemClass == .certificate ? .always : .whenUnlocked
            let protection = try resolveProtection(request, defaultClass: defaultProtection) ?? defaultProtection
            let synchronizable: Bool
            switch request.synchronizable {
            case .absent: synchronizable = false
            case .value(let flag): synchronizable = flag
            case .any: throw ParameterRefusal.value(of: "sync", mustBe: "true or false when adding (kSecAttrSynchronizableAny is for queries)")
            }
            if synchronizable && request.accessControl != nil { throw Self.synchronizableWithAccessControl }
            let group: String
            if let explicit = request.accessGroup { group = explicit } else { group = try accessGroups.defaultGroup() }
            try accessGroups.requireWritable(group)
            var stored = request.attributes
            stored["agrp"] = .string(group)
            stored["sync"] = .number(synchronizable ? 1 : 0)
            stored["cdat"] = nil
            stored["mdat"] = nil
            let gate = AccessControlGate(database: database, authenticator: authenticator, request: request)
            // Bound (or refused, when no enrolled set exists) before anything is asked or stored.
            let policy = try gate.policyForStorage(request.accessControl)
            let data = try gate.protectForStorage(request.data, policy: request.accessControl)
            var item = try database.insert(NewItem(itemClass: request.itemClass, attributes: stored, data: data,
                                                   protection: protection, accessControl: policy))
            item.data = request.data  // results show the caller's secret, not its sealed form
            var results = ResultBuilder(request: request, accessControlObject: accessControlObject)
            results.releasesTokenKeyMaterial = releasingTokenKeyMaterial
            return results.value(for: item)
        }
    }

    // MARK: SecItemCopyMatching

    /// `SecItemCopyMatching`. With `deferringPrivateKeyUsage`, key items whose access control
    /// has `.privateKeyUsage` (and no application password) are returned without authentication:
    /// their constraints guard each private-key operation instead (``authorizePrivateKeyUse``),
    /// as on Apple platforms. Only for a caller that turns the data into such a guarded key.
    /// The data of a token-bound (Secure Enclave) key is never returned (empty data instead).
    package func copyMatching(_ query: [String: Any], deferringPrivateKeyUsage: Bool = false) -> SecItemResult {
        copyMatching(query, deferringPrivateKeyUsage: deferringPrivateKeyUsage, releasingTokenKeyMaterial: false)
    }

    /// `SecItemCopyMatching` for the KeychainServices edge, which may receive a token-bound key's
    /// bytes to build the `SecKey` that uses (and never exports) them.
    package func copyMatching(_ query: [String: Any], deferringPrivateKeyUsage: Bool, releasingTokenKeyMaterial: Bool) -> SecItemResult {
        var unreadable = 0
        var firstUnreadable: KeychainStoreError?
        var outcome = run { () throws(KeychainStoreError) -> Any? in
            try accessGroups.requireAny()
            let request = try RequestParser.parse(query, mode: .copyMatching)
            if request.hasItemList { throw ParameterRefusal.request("kSecUseItemList is not supported in SecItemCopyMatching here") }
            let itemQuery = try makeQuery(request, writing: false)
            let limit = request.limit ?? .one
            var storeQuery = itemQuery
            switch limit {
            case .one: storeQuery.limit = 1
            case .all: storeQuery.limit = nil
            case .count(let count): storeQuery.limit = count
            }
            let needsContents = request.returnData || request.returnAttributes || request.returnRef
            let found = try database.findCountingUnreadable(storeQuery, decrypt: needsContents)
            unreadable = found.unreadable
            firstUnreadable = found.firstUnreadable
            let items = try enforceAccessControl(found.items, request: request, deferringPrivateKeyUsage: deferringPrivateKeyUsage)
            if items.isEmpty { throw KeychainStoreError.itemNotFound }
            var results = ResultBuilder(request: request, accessControlObject: accessControlObject)
            results.releasesTokenKeyMaterial = releasingTokenKeyMaterial
            return results.result(for: items, limitOne: limit == .one)
        }
        outcome.unreadableItems = unreadable
        outcome.firstUnreadableItem = firstUnreadable
        return outcome
    }

    // MARK: SecItemUpdate

    /// `SecItemUpdate`: the status.
    package func update(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> Int32 {
        updateOutcome(query, attributesToUpdate).status
    }

    /// `SecItemUpdate`: the status and, on failure, the error with its reason.
    package func updateOutcome(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> SecItemResult {
        run { () throws(KeychainStoreError) -> Any? in
            try accessGroups.requireAny()
            let request = try RequestParser.parse(query, mode: .update)
            // kSecMatchLimitAll alone is macOS's idiom (wrappers send it off iOS): it asks for what
            // an update does anyway. Other match keys are -50, as on iOS.
            let refusedMatch = request.hasMatchKey && !request.matchKeysOnlyLimitAll
            if request.hasReturnKeyTrue || refusedMatch || request.hasItemList || request.authenticationUI == .skip {
                throw ParameterRefusal.request("SecItemUpdate's query takes no kSecReturn… key set to true, no kSecMatch… key but kSecMatchLimitAll, "
                                               + "no kSecUseItemList and no kSecUseAuthenticationUISkip")
            }
            let changesRequest = try RequestParser.parseChanges(attributesToUpdate, itemClass: request.itemClass)
            // One gate for the whole call: a password or finger is asked for at most once.
            let gate = AccessControlGate(database: database, authenticator: authenticator, request: request)
            var changes = ItemChanges()
            changes.attributes = changesRequest.attributes
            changes.attributes["mdat"] = nil  // the store sets the modification date
            // The token an item lives in is fixed when it is created (a Secure Enclave key never
            // leaves the enclave, a software key never enters it). Apple accepts kSecAttrTokenID in
            // the changes, and code that writes back the attributes it read sends it unchanged: that
            // is accepted; a different token is -50 (checked once the items are found).
            let repeatedTokenID = changes.attributes.removeValue(forKey: "tkid")
            if changesRequest.protection != nil || changesRequest.accessControl != nil {
                changes.protection = try resolveProtection(changesRequest, defaultClass: nil)
            }
            if let group = changesRequest.accessGroup {
                try accessGroups.requireWritable(group)
                changes.attributes["agrp"] = .string(group)
            }
            switch changesRequest.synchronizable {
            case .absent: break
            case .value(let flag):
                if flag && changesRequest.accessControl != nil { throw Self.synchronizableWithAccessControl }
                changes.attributes["sync"] = .number(flag ? 1 : 0)
            case .any: throw ParameterRefusal.value(of: "sync", mustBe: "true or false in the changes (kSecAttrSynchronizableAny is for queries)")
            }
            let itemQuery = try makeQuery(request, writing: true)
            // Last, so that a prompt never precedes a refusal.
            let matched = try database.find(itemQuery, decrypt: true)
            if matched.isEmpty { throw KeychainStoreError.itemNotFound }
            if let repeatedTokenID, matched.contains(where: { $0.attributes["tkid"] != repeatedTokenID }) {
                throw ParameterRefusal.request("kSecAttrTokenID (\"tkid\") is fixed when the item is created: an update may repeat it, not change it")
            }
            if changesRequest.accessControl != nil {
                // Bound (or refused, when no enrolled set exists) before the items' own access
                // control asks for anything.
                changes.accessControl = try gate.policyForStorage(changesRequest.accessControl)
            }
            let satisfied = try satisfyAccessControl(of: matched, gate: gate, request: request)
            changes.data = try protectUpdatedData(changesRequest, matched: matched, gate: gate)
            try database.update(itemQuery, with: changes, satisfiedItems: satisfied)
            return nil
        }
    }

    // MARK: SecItemDelete

    /// `SecItemDelete`: the status.
    package func delete(_ query: [String: Any]) -> Int32 {
        deleteOutcome(query).status
    }

    /// `SecItemDelete`: the status and, on failure, the error with its reason.
    package func deleteOutcome(_ query: [String: Any]) -> SecItemResult {
        run { () throws(KeychainStoreError) -> Any? in
            try accessGroups.requireAny()
            let request = try RequestParser.parse(query, mode: .delete)
            // kSecMatchLimitAll alone is macOS's idiom (KeychainAccess's removeAll off iOS): it asks
            // for what a delete does anyway. kSecMatchLimitOne would delete less on macOS's file
            // keychain and more here, so it stays -50 with every other match key, as on iOS.
            let refusedMatch = request.hasMatchKey && !request.matchKeysOnlyLimitAll
            if refusedMatch || request.authenticationUI == .skip {
                throw ParameterRefusal.request("SecItemDelete's query takes no kSecMatch… key but kSecMatchLimitAll and no kSecUseAuthenticationUISkip")
            }
            let itemQuery = try makeQuery(request, writing: true)
            try database.delete(itemQuery)
            return nil
        }
    }

    // MARK: Several calls as one

    /// Runs `body` — calls on this engine — as one transaction of the keychain: what they change
    /// is kept only when `body` returns `errSecSuccess` and the commit succeeds; otherwise none of
    /// it is (an identity is two items that must never be left half added, changed or deleted).
    /// Returns `body`'s outcome, or the transaction's failure. Other threads' calls on the keychain
    /// wait until it ends.
    package func atomically(_ body: () -> SecItemResult) -> SecItemResult {
        var outcome = SecItemResult(status: KeychainStatus.success.rawValue)
        do {
            try database.atomically {
                outcome = body()
                return outcome.status == KeychainStatus.success.rawValue
            }
        } catch {
            // When `body` failed, its own failure is the one to report (the undoing is secondary).
            guard outcome.status == KeychainStatus.success.rawValue else { return outcome }
            return SecItemResult(failure: error)
        }
        return outcome
    }

    // MARK: Shared steps

    /// Apple refuses a synchronizable item guarded by an access control (`errSecParam`).
    private static let synchronizableWithAccessControl = ParameterRefusal.request(
        "a synchronizable item cannot have kSecAttrAccessControl: access control binds an item to this device")

    /// Adding or removing the application password (`kSecAccessControlApplicationPassword`) changes
    /// how the secret is sealed, so the same update must give the secret, and give it for items that
    /// all end up the same way.
    private static let applicationPasswordChangeNeedsData = ParameterRefusal.request(
        "adding or removing kSecAccessControlApplicationPassword needs kSecValueData in the same update, "
            + "for items that all use it or all do not")

    /// The accessibility of an add or update: from `kSecAttrAccessible` or the access control;
    /// both at once is `errSecParam` (Apple never finds them equal).
    private func resolveProtection(_ request: ParsedRequest, defaultClass: ProtectionClass?) throws(KeychainStoreError) -> ProtectionClass? {
        if request.protection != nil && request.accessControl != nil {
            throw ParameterRefusal.request("give kSecAttrAccessible or kSecAttrAccessControl, not both (the access control carries the accessibility)")
        }
        return request.accessControl?.protection ?? request.protection ?? defaultClass
    }

    /// The store query for a CopyMatching (`writing` false) or Update/Delete (`writing` true)
    /// request. Writes reach only the writable groups: the token group is read-only.
    func makeQuery(_ request: ParsedRequest, writing: Bool) throws(KeychainStoreError) -> ItemQuery {
        if request.persistentID != nil && request.hasAttributeFilter {
            throw ParameterRefusal.request("kSecValuePersistentRef names one item: give no attributes beside it")
        }
        if request.hostOrSubdomainOf != nil && request.itemClass != .internetPassword {
            throw KeychainStoreError(status: .unimplemented)
        }
        let scope: AccessGroupScope
        if let group = request.accessGroup {
            if writing { try accessGroups.requireWritable(group) } else { try accessGroups.require(group) }
            scope = .only([group])
        } else {
            let visible = writing ? accessGroups.writableGroups : accessGroups.groups
            scope = accessGroups.isUnrestricted ? .all : .only(visible)
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

    /// Reveals the secrets of matched items whose access control has constraints, asking for
    /// authentication as their flags require. With `kSecUseAuthenticationUISkip`, items that
    /// would need a prompt are left out, as on Apple platforms.
    private func enforceAccessControl(_ items: [KeychainItem], request: ParsedRequest,
                                      deferringPrivateKeyUsage: Bool) throws(KeychainStoreError) -> [KeychainItem] {
        // Most items have no constraints: they need no gate (nor the allocation of one).
        guard request.returnData, items.contains(where: { $0.accessControl?.hasConstraints == true }) else { return items }
        let gate = AccessControlGate(database: database, authenticator: authenticator, request: request)
        var allowed: [KeychainItem] = []
        for var item in items {
            guard let accessControl = item.accessControl, accessControl.hasConstraints else {
                allowed.append(item)
                continue
            }
            if deferringPrivateKeyUsage && item.itemClass == .key && accessControl.defersToPrivateKeyUse {
                allowed.append(item)
                continue
            }
            do {
                item.data = try gate.revealData(of: item, interactionAllowed: request.authenticationUI == .skip ? false : nil)
                allowed.append(item)
            } catch let failure where request.authenticationUI == .skip && failure != .failed && failure != .cancelled {
                // Skip leaves out every item that would need authentication (not interactive,
                // no biometry, no passcode): Apple decides this before any LocalAuthentication attempt.
                continue
            } catch {
                throw KeychainStoreError(status: error.status)
            }
        }
        return allowed
    }

    /// Before an update: every matched item's own access control is satisfied, as reading its
    /// secret would require (passcode, finger, user presence, and an application password that
    /// must open the sealed secret). Without this, an update could remove or re-bind the
    /// constraint — or change the accessibility — and the secret would then read with no prompt.
    /// An item invalidated by a change of enrolled fingers (`.biometryCurrentSet`) fails here, so
    /// it is never re-bound to the new set. Returns the items whose constraints were satisfied.
    private func satisfyAccessControl(of items: [KeychainItem], gate: AccessControlGate,
                                      request: ParsedRequest) throws(KeychainStoreError) -> Set<UUID> {
        var satisfied: Set<UUID> = []
        for item in items {
            guard let accessControl = item.accessControl, accessControl.hasConstraints else { continue }
            do {
                var revealed = try gate.revealData(of: item)
                if let count = revealed?.count { revealed?.resetBytes(in: 0..<count) }  // only the check was wanted
            } catch {
                throw KeychainStoreError(status: error.status)
            }
            satisfied.insert(item.persistentID)
        }
        return satisfied
    }

    /// The new secret of an update, sealed under the application password when the items it
    /// lands in (or the new access control) require one. Changing whether an item has an
    /// application password without giving its secret again is refused (`errSecParam`): the
    /// stored form of the secret would no longer match its access control.
    private func protectUpdatedData(_ changes: ParsedRequest, matched: [KeychainItem],
                                    gate: AccessControlGate) throws(KeychainStoreError) -> Data? {
        let appPassword = AccessControlPolicy.applicationPassword
        let needsInspection = changes.data != nil || changes.accessControl != nil || changes.protection != nil
        guard needsInspection else { return nil }
        let oldUsesPassword = matched.map { ($0.accessControl?.flags ?? 0) & appPassword != 0 }
        let newUsesPassword: [Bool]
        if let accessControl = changes.accessControl {
            newUsesPassword = matched.map { _ in accessControl.flags & appPassword != 0 }
        } else if changes.protection != nil {
            newUsesPassword = matched.map { _ in false }
        } else {
            newUsesPassword = oldUsesPassword
        }
        guard let data = changes.data else {
            if oldUsesPassword != newUsesPassword { throw Self.applicationPasswordChangeNeedsData }
            return nil
        }
        guard let first = newUsesPassword.first, newUsesPassword.allSatisfy({ $0 == first }) else {
            throw Self.applicationPasswordChangeNeedsData  // one secret cannot be stored sealed and plain at once
        }
        guard first else { return data }
        let policy = changes.accessControl ?? matched.first?.accessControl
        return try gate.protectForStorage(data, policy: policy)
    }

    /// The outcome of `body`: its value, or its error (whose status is what Apple returns).
    func run(_ body: () throws(KeychainStoreError) -> Any?) -> SecItemResult {
        do {
            return SecItemResult(status: KeychainStatus.success.rawValue, value: try body())
        } catch {
            return SecItemResult(failure: error)
        }
    }
}
