#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// `keychainctl app-access` with the keychain service: the Secret Service's per-application
/// access the service keeps for the caller's uid, read (the policy, each item with its names, its
/// creator and trusted applications) and changed — every change proved with the keychain password,
/// which the service verifies itself, with the wait after wrong ones that grants have.
extension ServiceRequestHandler {
    /// The reply to a read or a change of the Secret Service's per-application access.
    func secretServiceAccessReply(to request: ServiceRequest, from peer: PeerIdentity) -> ServiceReply {
        let fields = WireEntry.dictionary(request.query)
        do throws(KeychainStoreError) {
            switch request.operation {
            case .readSecretServiceAccess:
                let record = try accessRecord(of: peer.uid)
                return ServiceReply(status: 0, result: Self.wireValue(record, items: try secretServiceItems(of: peer.uid)))
            case .readSecretServicePolicy:
                try requireUnlockedKeychain(of: peer.uid)
                let policy = try accessRecord(of: peer.uid).policy
                return ServiceReply(status: 0, result: .dictionary([WireEntry(key: SecretServiceAccessRequest.policyKey,
                                                                              value: .string(policy.rawValue))]))
            case .changeSecretServiceAccess:
                var password = fields[SecretServiceAccessRequest.passwordKey] as? Data ?? Data()
                defer { password.resetBytes(in: 0..<password.count) }
                do {
                    try proofs.verify(password, uid: peer.uid)
                } catch {
                    // A change without the password is a refused attempt to loosen (or tighten) access: logged.
                    let application = CallerEntitlements(peer: peer, grants: grants).applicationIdentifier
                    appendDecisionEvents(ServiceAccessRecording.decisionEvents(.update, items: [], peer: peer, application: application,
                                                                               channel: .keychainService, provider: nil, decision: .deniedByUser),
                                         uid: peer.uid)
                    throw error
                }
                try change(fields, uid: peer.uid)
                return ServiceReply(status: 0)
            default:
                return ServiceReply(status: KeychainStatus.param.rawValue, failureReason: "not a call on the Secret Service's access")
            }
        } catch {
            return ServiceReply(status: error.osStatus, failureReason: Self.reason(error))
        }
    }

    /// Refuses (`errSecInteractionNotAllowed`) while the user's keychain is locked, as the read of
    /// the whole access, which lists the items, is refused then: the provider's own decisions (its
    /// `session` collection) fall back to asking while the keychain is locked, as in the embedded
    /// mode, where the policy is in the keychain. No keychain yet: nothing is locked.
    private func requireUnlockedKeychain(of uid: UInt32) throws(KeychainStoreError) {
        let keychain: ServedKeychain
        do { keychain = try keychains.keychain(of: uid, creating: false) } catch { return }
        let isLocked: Bool
        do {
            isLocked = try KeychainLifecycle(registry: keychain.registry).existingKeychain(keychain.keychainPath).isLocked
        } catch {
            throw error.failure ?? KeychainStoreError(.notAvailable("your keychain's state cannot be read (status \(error.status))"),
                                                      status: KeychainStatus(rawValue: error.status))
        }
        if isLocked {
            throw KeychainStoreError(.notAvailable("your keychain is locked"), status: .interactionNotAllowed)
        }
    }

    private func accessRecord(of uid: UInt32) throws(KeychainStoreError) -> SecretServiceAccessLists.Record {
        do { return try secretServiceAccess.record(of: uid) } catch { throw KeychainStoreError(.io(error.description)) }
    }

    /// Applies one change the user proved with the password.
    private func change(_ fields: [String: Any], uid: UInt32) throws(KeychainStoreError) {
        let action = fields[SecretServiceAccessRequest.actionKey] as? String ?? ""
        let item = fields[SecretServiceAccessRequest.itemKey] as? String
        let executable = fields[SecretServiceAccessRequest.executableKey] as? String
        let update: (inout SecretServiceAccessLists.Record) -> Void
        switch action {
        case SecretServiceAccessRequest.setPolicy:
            guard let policy = (fields[SecretServiceAccessRequest.policyKey] as? String).flatMap({ SecretServiceAccessLists.Policy(rawValue: $0) }) else {
                throw .invalidParameter("name the policy: allow, confirm or deny")
            }
            update = { $0.policy = policy }
        case SecretServiceAccessRequest.trust, SecretServiceAccessRequest.untrust:
            guard let item, let executable, executable.hasPrefix("/") else {
                throw .invalidParameter("name the item and the application's absolute path")
            }
            if action == SecretServiceAccessRequest.trust {
                guard try secretServiceItems(of: uid).contains(where: { ServiceRequestHandler.itemID($0) == item }) else {
                    throw KeychainStoreError(.notAvailable("no Secret Service item \(item) in your keychain (keychainctl app-access list shows the ids)"),
                                             status: .itemNotFound)
                }
                update = { record in
                    var list = record.items[item] ?? SecretServiceAccessLists.ItemList(creator: nil, trusted: [])
                    if !list.trusts(executable) { list.trusted.append(executable) }
                    record.items[item] = list
                }
            } else {
                guard try accessRecord(of: uid).items[item]?.trusts(executable) == true else {
                    throw KeychainStoreError(.notAvailable("\(executable) is not on the list of the item \(item); nothing changed"),
                                             status: .itemNotFound)
                }
                update = { record in
                    guard var list = record.items[item] else { return }
                    list.trusted.removeAll { $0 == executable }
                    if list.creator == executable { list.creator = nil }
                    record.items[item] = list
                }
            }
        default:
            throw .invalidParameter("unknown change \(action)")
        }
        do { try secretServiceAccess.change(of: uid, update) } catch { throw KeychainStoreError(.io(error.description)) }
    }

    /// The user's Secret Service items (generic and internet passwords of its group), with their
    /// attributes and persistent references; none when the user has no keychain yet.
    private func secretServiceItems(of uid: UInt32) throws(KeychainStoreError) -> [[String: Any]] {
        let keychain: ServedKeychain
        do { keychain = try keychains.keychain(of: uid, creating: false) } catch { return [] }
        let engine = try keychain.engine(accessGroups: AccessGroups([ServiceRequest.secretServiceAccessGroup]), creatingKeychain: false)
        var items: [[String: Any]] = []
        for itemClass in ["genp", "inet"] {
            let found = engine.copyMatching(["class": itemClass, "r_Attributes": true, "r_PersistentRef": true, "m_Limit": "m_LimitAll"])
            if found.status == KeychainStatus.itemNotFound.rawValue { continue }
            if let failure = found.failure { throw failure }
            for var item in (found.value as? [[String: Any]]) ?? [] {
                // The records an older provider kept of its own are not Secret Service items.
                if item["svce"] as? String == Self.providerRecordService { continue }
                item["class"] = itemClass
                items.append(item)
            }
        }
        return items
    }

    /// The service of the hidden records in which the provider kept per-application access before
    /// the service decided it.
    static let providerRecordService = "org.keychainkit.SecretService.ApplicationAccess"

    private func appendDecisionEvents(_ events: [AccessEvent], uid: UInt32) {
        let keychain: ServedKeychain
        do { keychain = try keychains.keychain(of: uid, creating: false) } catch { return }  // no keychain: nothing to log into
        // The refusal stands whether or not its record could be written: nothing was changed.
        _ = Result { () throws(AccessLogError) in try accessLogs.log(of: uid, keychain: keychain).recordTogether(events) }
    }

    /// The record and the items as `app-access list` receives them.
    static func wireValue(_ record: SecretServiceAccessLists.Record, items: [[String: Any]]) -> WireValue {
        var entries: [WireValue] = []
        for item in items {
            guard let id = itemID(item) else { continue }
            var fields = [WireEntry(key: SecretServiceAccessRequest.itemKey, value: .string(id))]
            func add(_ key: String, _ value: String?) { if let value { fields.append(WireEntry(key: key, value: .string(value))) } }
            add(SecretServiceAccessRequest.labelKey, item["labl"] as? String)
            add(SecretServiceAccessRequest.serviceKey, (item["svce"] as? String) ?? (item["srvr"] as? String))
            add(SecretServiceAccessRequest.accountKey, item["acct"] as? String)
            let list = record.items[id]
            add(SecretServiceAccessRequest.creatorKey, list?.creator)
            fields.append(WireEntry(key: SecretServiceAccessRequest.trustedKey, value: .array((list?.trusted ?? []).map(WireValue.string))))
            entries.append(.dictionary(fields))
        }
        return .dictionary([WireEntry(key: SecretServiceAccessRequest.policyKey, value: .string(record.policy.rawValue)),
                            WireEntry(key: SecretServiceAccessRequest.itemsKey, value: .array(entries))])
    }
}
