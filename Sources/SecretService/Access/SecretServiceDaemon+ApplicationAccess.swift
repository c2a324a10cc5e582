#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainLinux

/// Per-application access: before a client reads an item's secret or changes or deletes an
/// existing item, the item's list of trusted applications (its creator and the applications
/// allowed since) and its collection's policy decide; every decision is recorded (a failed
/// record fails the access) before the secret is handed out or the change made.
extension SecretServiceDaemon {
    /// One access to one item that needs a decision.
    struct ItemAccess {
        var address: SecretItemAddress
        var operation: AccessEvent.Operation
    }

    /// Items one call may have confirmed at once (`GetSecrets` of many items the person would be
    /// asked about one by one): beyond it the call is refused with `LimitsExceeded`.
    static let confirmationsPerCall = 8

    /// The caller `sender`, identified once per connection (see ``SecretServiceCallerRegistry``);
    /// throws ``clientLeft`` when it left the bus: a call of a client that is gone is not carried
    /// out (nobody would see its answer, and nobody could be named in the log).
    func caller(_ sender: String) throws(DBusError) -> SecretServiceCaller {
        guard !calls.hasLeft(sender) else { throw Self.clientLeft }
        return try callers.caller(sender, bus: busCalls)
    }

    /// Decides one access and then runs `body`, as ``authorize(_:caller:call:then:)`` does; an item
    /// whose collection was locked when it was decided is `IsLocked` (it was not decided, so it is
    /// not touched even if another client unlocks it meanwhile).
    func authorize(_ access: ItemAccess, caller: SecretServiceCaller, call: DBusMessage,
                   then body: @escaping @Sendable () throws(DBusError) -> [DBusValue]) throws(DBusError) -> [DBusValue]? {
        try authorize([access], caller: caller, call: call) { (grant) throws(DBusError) in
            guard grant.allows(access.address) else { throw .isLocked("the collection is locked") }
            return try body()
        }
    }

    /// Reads an item's secret for a call ``authorize(_:caller:call:then:)`` allowed, recording the
    /// read (by the names the same query returned) before the secret can be handed out.
    func readSecret(of address: SecretItemAddress, _ grant: AccessGrant) throws(DBusError) -> SecretPayload {
        let read = try backend.secretAndNames(of: address)
        // The keychain service decided this read for the client it identified, and logged it.
        if grant.decidedByKeychainService { return read.secret }
        guard let decision = grant.reads[address] else { throw .isLocked("the collection is locked") }
        try record(ItemAccess(address: address, operation: .read), decision, caller: grant.caller,
                   item: Self.eventItem(label: read.label, attributes: read.attributes))
        return read.secret
    }

    /// Reads the secrets of `addresses` for a call ``authorize(_:caller:call:then:)`` allowed, and
    /// records every read in one go (one durable append) before any secret can be handed out;
    /// items whose collection is locked are left out. When recording fails none is handed out.
    func readSecrets(of addresses: [SecretItemAddress], _ grant: AccessGrant) throws(DBusError) -> [SecretItemAddress: SecretPayload] {
        var payloads: [SecretItemAddress: SecretPayload] = [:]
        var events: [AccessEvent] = []
        for address in addresses where payloads[address] == nil {
            let read: (secret: SecretPayload, label: String, attributes: [String: String])
            do throws(DBusError) {
                read = try backend.secretAndNames(of: address)
            } catch where error.name == DBusError.isLockedName {
                continue
            }
            if grant.decidedByKeychainService {
                payloads[address] = read.secret
                continue
            }
            guard let decision = grant.reads[address] else { continue }
            payloads[address] = read.secret
            events.append(try event(ItemAccess(address: address, operation: .read), decision, caller: grant.caller,
                                    item: Self.eventItem(label: read.label, attributes: read.attributes)))
        }
        do {
            try recorder.record(events)
        } catch {
            throw .failed("the access could not be recorded in the access log, so it was not done: \(error)")
        }
        return payloads
    }

    /// Decides `accesses` for `caller` and then runs `body` (the read or the change) with the
    /// items it may touch, returning its reply; or, when a person must be asked, asks on a prompt
    /// thread that answers `call` itself (nil returned). Items of collections locked at the time
    /// of the decision are not decided and not given to `body` (`GetSecrets` leaves them out). A
    /// refusal is `AccessDenied`, naming the item and the reason.
    func authorize(_ accesses: [ItemAccess], caller: SecretServiceCaller, call: DBusMessage,
                   then body: @escaping @Sendable (_ grant: AccessGrant) throws(DBusError) -> [DBusValue]) throws(DBusError) -> [DBusValue]? {
        // With the keychain service, the service decides each item call for the client it identified
        // (asking the user through ``ServiceForwarding/prompter`` when it must) and logs it: the
        // provider decides and records nothing of its own for those items.
        if accesses.allSatisfy({ isDecidedByKeychainService($0.address) }) {
            return try body(AccessGrant(addresses: Set(accesses.map(\.address)), reads: [:], caller: caller, decidedByKeychainService: true))
        }
        var decided: [(ItemAccess, AccessEvent.Decision)] = []
        var asking: [ItemAccess] = []
        // One read of each collection's settings, for the items of this call only.
        var itemsByCollection: [String: [String]] = [:]
        for access in accesses { itemsByCollection[access.address.collection, default: []].append(access.address.item) }
        var records: [String: ApplicationAccessRecord] = [:]
        for (collection, items) in itemsByCollection {
            do {
                records[collection] = try backend.applicationAccessRecord(of: collection, items: items)
            } catch where error.name == DBusError.isLockedName {
                continue
            }
        }
        for access in accesses {
            guard let record = records[access.address.collection] else { continue }
            if let executable = caller.executable, record.list(of: access.address.item).trusts(executable) {
                decided.append((access, .trusted))
                continue
            }
            switch record.policy {
            case .allow: decided.append((access, .allowedByPolicy))
            case .deny: decided.append((access, .deniedByPolicy))
            case .confirm: asking.append(access)
            }
        }
        if asking.isEmpty || decided.contains(where: { $0.1.isRefusal }) {
            return try finish(decided, caller: caller, body)
        }
        guard asking.count <= Self.confirmationsPerCall else {
            throw .limitsExceeded("\(asking.count) items need a confirmation; ask for at most \(Self.confirmationsPerCall) at once")
        }
        guard let askApplicationAccess else {
            // Nobody can be asked (no terminal, no display): denied at once, never left waiting.
            return try finish(decided + asking.map { ($0, .deniedByUser) }, caller: caller, body,
                              reason: "the policy is confirm and no prompt can be shown (no terminal or display)")
        }
        let client = call.sender ?? ""
        try reservePromptThread(for: client)
        runOnPromptThread(for: client) { [self, decided, asking] in
            var all = decided
            for access in asking {
                let decision = ask(askApplicationAccess, about: access, caller: caller)
                all.append((access, decision))
                if decision.isRefusal { break }
            }
            do throws(DBusError) {
                send(try finish(all, caller: caller, body), to: call)
            } catch {
                send(error, to: call)
            }
        }
        return nil
    }

    /// Records `decisions` and, unless one refused, runs `body`.
    private func finish(_ decisions: [(ItemAccess, AccessEvent.Decision)], caller: SecretServiceCaller,
                        _ body: (AccessGrant) throws(DBusError) -> [DBusValue], reason: String? = nil) throws(DBusError) -> [DBusValue] {
        let refused = decisions.filter { $0.1.isRefusal }
        // A refused call reads or changes nothing: only its refusals are recorded. A change is
        // recorded before it is made; a read by ``readSecret(of:_:)``, once the secret is read and
        // before it is handed out.
        for (access, decision) in refused.isEmpty ? decisions.filter({ $0.0.operation != .read }) : refused {
            try record(access, decision, caller: caller)
        }
        if let (access, decision) = refused.first {
            let why = reason ?? (decision == .deniedByPolicy
                ? "the keychain's per-application policy is deny"
                : "the person denied it at the prompt")
            throw .accessDenied("\(caller.executable.map { DisplayText.clean($0, limit: 512) } ?? "an unidentified application") is not trusted by the item "
                                + "\(Self.path(of: access.address)): \(why); allow it with keychainctl app-access trust")
        }
        var reads: [SecretItemAddress: AccessEvent.Decision] = [:]
        for (access, decision) in decisions where access.operation == .read { reads[access.address] = decision }
        return try body(AccessGrant(addresses: Set(decisions.map(\.0.address)), reads: reads, caller: caller))
    }

    /// Asks the person about one access; `always` puts the caller on the item's list first (an
    /// unidentified caller cannot be put on a list: always counts as once).
    private func ask(_ asker: ApplicationAccessAsker, about access: ItemAccess, caller: SecretServiceCaller) -> AccessEvent.Decision {
        let what: String
        switch access.operation {
        case .read: what = "read the secret of"
        case .delete: what = "delete"
        case .keyUse: what = "use the key of"
        case .create, .update, .syncPull, .syncPullDelete, .syncPublish, .syncRestore: what = "change"
        }
        let item = eventItem(access.address)
        let keychain: String
        do {
            keychain = try backend.keychainPath(of: access.address.collection)
        } catch {
            return .deniedByUser
        }
        let question = "The application \(caller.summary)\nasks to \(what) the item "
            + "\u{201C}\(DisplayText.clean(item.label ?? ""))\u{201D}"
            + (item.service.map { " (service \u{201C}\(DisplayText.clean($0))\u{201D})" } ?? "")
            + "\nKeychain file: \(keychain)\nIt is not on this item's list of trusted applications."
        switch asker(question) {
        case .deny:
            return .deniedByUser
        case .once:
            return .confirmedOnce
        case .always:
            guard let executable = caller.executable else { return .confirmedOnce }
            do {
                try backend.changeApplicationList(of: access.address) { list in
                    var changed = list ?? ItemApplicationList(creator: nil)
                    if !changed.trusts(executable) { changed.trusted.append(executable) }
                    list = changed
                }
            } catch {
                report("could not add \(executable) to the trusted applications of \(Self.path(of: access.address)): \(error.message)")
                return .confirmedOnce
            }
            return .confirmedAlways
        }
    }

    /// Whether the keychain service decides the accesses to `address`: an item of a collection it
    /// holds (with the service, every collection but the in-memory `session` one).
    func isDecidedByKeychainService(_ address: SecretItemAddress) -> Bool {
        forwardsToKeychainService && address.collection != SessionCollection.name
    }

    /// Records one decision (`item`: the item's names, read from the keychain when not given); a
    /// failure to record fails the access (nothing is read unlogged).
    func record(_ access: ItemAccess, _ decision: AccessEvent.Decision, caller: SecretServiceCaller,
                item: AccessEvent.Item? = nil) throws(DBusError) {
        // The keychain service logs the accesses it decides (a creation included), once, itself.
        guard !isDecidedByKeychainService(access.address) else { return }
        let event = try event(access, decision, caller: caller, item: item)
        do {
            try recorder.record(event)
        } catch {
            throw .failed("the access could not be recorded in the access log, so it was not done: \(error)")
        }
    }

    /// The event of one decision, naming the item's own keychain file (the recorder keeps one
    /// access log per keychain).
    private func event(_ access: ItemAccess, _ decision: AccessEvent.Decision, caller: SecretServiceCaller,
                       item: AccessEvent.Item?) throws(DBusError) -> AccessEvent {
        let keychainPath = try backend.keychainPath(of: access.address.collection)
        return AccessEvent(time: Date(), operation: access.operation, item: item ?? eventItem(access.address), caller: caller.lineage,
                           callerUID: caller.uid ?? UInt32.max, channel: .secretService, decision: decision,
                           keychainPath: keychainPath)
    }

    /// The item's non-secret names for the log (empty when it cannot be read, e.g. locked).
    private func eventItem(_ address: SecretItemAddress) -> AccessEvent.Item {
        do {
            let snapshot = try backend.item(address)
            return Self.eventItem(label: snapshot.label, attributes: snapshot.attributes)
        } catch {
            return AccessEvent.Item(label: nil, service: nil, account: nil)
        }
    }

    /// An item's names for the log: its label, and the service (or server) and account (or user)
    /// attributes that Python keyring, secret-tool and git's libsecret helper set.
    static func eventItem(label: String, attributes: [String: String]) -> AccessEvent.Item {
        AccessEvent.Item(label: label, service: attributes["service"] ?? attributes["server"],
                         account: attributes["username"] ?? attributes["user"])
    }

    /// Puts the creator of a new item on its list; when that fails the item is removed again (an
    /// item its creator could not use is no success).
    func recordCreator(_ caller: SecretServiceCaller, of address: SecretItemAddress) throws(DBusError) {
        // The keychain service records the creator itself, from the client it identified.
        guard !isDecidedByKeychainService(address), let executable = caller.executable else { return }
        do {
            try backend.changeApplicationList(of: address) { $0 = ItemApplicationList(creator: executable) }
        } catch {
            do {
                try backend.deleteItem(address)
            } catch let removal {
                report("a new item \(Self.path(of: address)) has no creator recorded and could not be removed: \(removal.message)")
            }
            throw .failed("the item's creator could not be recorded, so it was not stored: \(error.message)")
        }
    }

    /// Removes a deleted item's list (ids are never reused, so a leftover list only takes room).
    func forgetApplicationList(of address: SecretItemAddress) {
        guard !isDecidedByKeychainService(address) else { return }
        do {
            try backend.changeApplicationList(of: address) { $0 = nil }
        } catch {
            report("the list of trusted applications of the deleted item \(Self.path(of: address)) was not removed: \(error.message)")
        }
    }
}

/// What a call may touch once per-application access has decided: the items decided (not refused),
/// and for reads the decision each read is recorded with.
struct AccessGrant: Sendable {
    /// The items decided and allowed.
    let addresses: Set<SecretItemAddress>
    /// The reads among them, with their decisions.
    let reads: [SecretItemAddress: AccessEvent.Decision]
    /// Who asked.
    let caller: SecretServiceCaller
    /// Whether the keychain service decides (and logs) each of the call's item calls itself.
    var decidedByKeychainService = false

    /// Whether the call may touch `address`.
    func allows(_ address: SecretItemAddress) -> Bool { addresses.contains(address) }
}

extension AccessEvent.Decision {
    /// Whether the access was refused.
    var isRefusal: Bool { self == .deniedByPolicy || self == .deniedByUser }
}
