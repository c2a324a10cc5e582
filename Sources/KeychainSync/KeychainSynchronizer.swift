import Crypto
import Foundation
import KeychainStore

/// Synchronizable items of one keychain kept in step with the other devices of its circle,
/// through etcd, end to end encrypted (docs/ARCHITECTURE.md, "Sync").
///
/// - `create` starts a circle and returns its code (show it once: joining needs it);
/// - `join` adds this keychain to the circle named by a code;
/// - `synchronize` merges once: for every record name, the newest version (time, then device id)
///   wins on both sides; deletions are records too (tombstones), so a delete is never undone by
///   an older copy, and every write to etcd is a compare-and-swap against the revision read, so
///   no device overwrites another's newer write without merging it first;
/// - `removeDevice` re-keys the circle without a device: a new epoch, sealed to each remaining
///   member's public key, every record re-encrypted, and a new code.
public final class KeychainSynchronizer {
    /// Item classes that synchronize.
    static let classes: [ItemClass] = [.genericPassword, .internetPassword]

    private let database: KeychainDatabase

    /// A synchronizer for `database` (which must be in a circle for anything but `create`/`join`).
    public init(database: KeychainDatabase) {
        self.database = database
    }

    // MARK: Membership

    /// Starts a circle on `endpoints` with this keychain as its first member; returns its code.
    public func create(endpoints: [String]) throws(SyncError) -> CircleCode {
        guard try CircleState.load(from: database) == nil else { throw .alreadyInCircle }
        let client = try Self.client(endpoints)
        let code = CircleCode.random()
        let bundle = KeyBundle.first()
        let layout = CircleLayout(circleID: code.circleID)
        let sealedKeys = try CircleKeys.sealBundle(bundle, code: code)
        let keysRevision = try Self.etcd { () throws(EtcdError) in try client.put(layout.keys, sealedKeys) }
        try register(code: code, bundle: bundle, keysRevision: keysRevision, endpoints: endpoints, client: client)
        return code
    }

    /// Joins the circle `code` names, on `endpoints`.
    public func join(code: CircleCode, endpoints: [String]) throws(SyncError) {
        guard try CircleState.load(from: database) == nil else { throw .alreadyInCircle }
        let client = try Self.client(endpoints)
        let layout = CircleLayout(circleID: code.circleID)
        guard let keys = try Self.etcd({ () throws(EtcdError) in try client.get(layout.keys) }) else { throw .circleNotFound }
        let bundle: KeyBundle
        do {
            bundle = try CircleKeys.openBundle(keys.value, code: code)
        } catch .tampered {
            throw .circleNotFound  // a wrong (or outdated) secret for this circle
        }
        try register(code: code, bundle: bundle, keysRevision: keys.modRevision, endpoints: endpoints, client: client)
    }

    private func register(code: CircleCode, bundle: KeyBundle, keysRevision: Int64, endpoints: [String], client: EtcdClient) throws(SyncError) {
        let deviceID = Data(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
        let privateKey = Curve25519.KeyAgreement.PrivateKey()
        let layout = CircleLayout(circleID: code.circleID)
        try Self.etcd { () throws(EtcdError) in
            try client.put(layout.member(deviceID), CircleKeys.memberRecord(deviceID: deviceID, publicKey: privateKey.publicKey, code: code))
        }
        let state = CircleState(endpoints: endpoints, circleID: code.circleID, secret: SyncSealing.bytes(of: code.secret),
                                deviceID: deviceID, memberPrivateKey: privateKey.rawRepresentation, bundle: bundle.encoded,
                                keysRevision: keysRevision, synced: [:])
        try state.save(to: database)
    }

    /// This device's id in its circle (hex), for `removeDevice` on another device.
    public func deviceID() throws(SyncError) -> String { try status().deviceID }

    /// The ids (hex) of the circle's members.
    public func members() throws(SyncError) -> [String] {
        let state = try requireState()
        let layout = CircleLayout(circleID: state.circleID)
        let client = try Self.client(state.endpoints)
        let records = try Self.etcd { () throws(EtcdError) in try client.range(prefix: layout.membersPrefix).keyValues }
        return records.map { String(decoding: $0.key.dropFirst(layout.membersPrefix.count), as: UTF8.self) }.sorted()
    }

    /// Re-keys the circle without the device `removedID` (hex): a new epoch sealed to every
    /// remaining member, the removed device's records deleted, every record re-encrypted under
    /// the new epoch, and a new code (the old one no longer joins). Returns the new code.
    public func removeDevice(_ removedID: String) throws(SyncError) -> CircleCode {
        var state = try requireState()
        let client = try Self.client(state.endpoints)
        try refreshKeys(&state, client: client)
        // Re-keying needs the current secret: it vouches for the members that stay.
        guard let code = state.code else { throw .removedFromCircle }
        let layout = CircleLayout(circleID: state.circleID)
        let newCode = code.rekeyed()
        let newBundle = try state.keyBundle.rotated()
        let memberRecords = try Self.etcd { () throws(EtcdError) in try client.range(prefix: layout.membersPrefix).keyValues }
        for record in memberRecords {
            let idHex = String(decoding: record.key.dropFirst(layout.membersPrefix.count), as: UTF8.self)
            guard let deviceID = SyncHex.bytes(idHex) else { continue }
            if idHex == removedID {
                try Self.etcd { () throws(EtcdError) in
                    _ = try client.compareAndDelete(record.key, expectedModRevision: record.modRevision)
                    _ = try client.compareAndDelete(layout.wrap(deviceID), expectedModRevision: try client.get(layout.wrap(deviceID))?.modRevision ?? 0)
                }
                continue
            }
            // Vouched for with the current secret (or re-vouched at an earlier re-key by a member).
            let publicKey = try CircleKeys.memberKey(record.value, deviceID: deviceID, code: code)
            let wrapped = try CircleKeys.wrap(newBundle, to: publicKey, deviceID: deviceID, circleID: state.circleID)
            try Self.etcd { () throws(EtcdError) in
                try client.put(layout.wrap(deviceID), wrapped)
                try client.put(record.key, CircleKeys.memberRecord(deviceID: deviceID, publicKey: publicKey, code: newCode))
            }
        }
        // Last: the announcement. Members that see the new epoch read their wrap, written above.
        let sealedKeys = try CircleKeys.sealBundle(newBundle, code: newCode)
        let keysRevision = try Self.etcd { () throws(EtcdError) in try client.put(layout.keys, sealedKeys) }
        state.secret = SyncSealing.bytes(of: newCode.secret)
        state.bundle = newBundle.encoded
        state.keysRevision = keysRevision
        try state.save(to: database)
        try reencryptRecords(state: state, client: client)
        return newCode
    }

    /// Leaves the circle: this device's member record and its local circle state are removed.
    /// (Its keys are rotated out when another member runs `removeDevice` for it.)
    public func leave() throws(SyncError) {
        let state = try requireState()
        let layout = CircleLayout(circleID: state.circleID)
        let client = try Self.client(state.endpoints)
        try Self.etcd { () throws(EtcdError) in
            if let record = try client.get(layout.member(state.deviceID)) {
                _ = try client.compareAndDelete(record.key, expectedModRevision: record.modRevision)
            }
        }
        try CircleState.remove(from: database)
    }

    // MARK: Synchronizing

    /// Merges this keychain's synchronizable items with the circle's records once.
    public func synchronize() throws(SyncError) -> SyncReport {
        var state = try requireState()
        let client = try Self.client(state.endpoints)
        try refreshKeys(&state, client: client)
        let bundle = try state.keyBundle
        let layout = CircleLayout(circleID: state.circleID)
        var report = SyncReport()

        // Remote: every record, opened (or refused).
        let (keyValues, revision) = try Self.etcd { () throws(EtcdError) in try client.range(prefix: layout.itemsPrefix) }
        report.revision = revision
        var remote: [Data: RemoteRecordState] = [:]
        for keyValue in keyValues {
            guard let name = layout.name(fromItemKey: keyValue.key) else { continue }
            remote[name] = open(keyValue, name: name, state: state, bundle: bundle)
        }

        // Local: every synchronizable item and tombstone, named.
        let (entries, locked) = try Self.keychain { () throws(KeychainStoreError) in try database.synchronizableEntries(of: Self.classes) }
        report.locked = locked
        var local: [Data: LocalItemState] = [:]
        let nameByIdentity = Dictionary(state.synced.compactMap { name, synced in
            SyncHex.bytes(name).map { (synced.localIdentity, $0) }
        }, uniquingKeysWith: { first, _ in first })
        for entry in entries {
            if let item = entry.item {
                let name = item.primaryKeyName(using: bundle.namingKey)
                local[name] = LocalItemState(entry: entry, version: localVersion(of: item, name: name, state: state))
            } else if let name = nameByIdentity[entry.localIdentity], let synced = state.synced[HexEncoding.string(name)] {
                // A deletion of an item this device synchronized before.
                let version = synced.isDeletion ? synced.version
                    : RecordVersion(time: (entry.deletedAt ?? Date()).timeIntervalSinceReferenceDate, device: state.deviceID)
                local[name] = LocalItemState(entry: entry, version: version)
            }
        }

        do throws(SyncError) {
            for name in Set(remote.keys).union(local.keys).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                try merge(name: name, local: local[name], remote: remote[name], state: &state, bundle: bundle,
                          client: client, layout: layout, report: &report)
            }
        } catch {
            // What was merged before the failure is remembered, so the next pass does not mistake
            // those copies for local changes; the failure is the one to report.
            do { try state.save(to: database) } catch {}
            throw error
        }
        try state.save(to: database)
        return report
    }

    /// A record read from etcd: opened, or refused (kept for its revision, to be overwritten).
    private struct RemoteRecordState {
        var record: SyncRecord?
        var modRevision: Int64
    }

    private struct LocalItemState {
        var entry: SynchronizableEntry
        var version: RecordVersion
    }

    private func open(_ keyValue: EtcdKeyValue, name: Data, state: CircleState, bundle: KeyBundle) -> RemoteRecordState {
        do {
            // Written with a past epoch's keys after the re-key: only a removed device (or a
            // member that had not seen the re-key yet, which rewrites it) does that.
            if try SyncRecord.epoch(of: keyValue.value) < bundle.epoch, keyValue.modRevision > state.keysRevision {
                return RemoteRecordState(record: nil, modRevision: keyValue.modRevision)
            }
            return RemoteRecordState(record: try SyncRecord(opening: keyValue.value, name: name, circleID: state.circleID, bundle: bundle),
                               modRevision: keyValue.modRevision)
        } catch {
            return RemoteRecordState(record: nil, modRevision: keyValue.modRevision)
        }
    }

    /// A live local item's version: the agreed one if the item is unchanged since the last sync
    /// (same modification date), otherwise a change made here.
    private func localVersion(of item: KeychainItem, name: Data, state: CircleState) -> RecordVersion {
        let modified: Double
        if case .date(let date)? = item.attributes["mdat"] { modified = date.timeIntervalSinceReferenceDate } else { modified = 0 }
        if let synced = state.synced[HexEncoding.string(name)], !synced.isDeletion, synced.version.time == modified {
            return synced.version
        }
        return RecordVersion(time: modified, device: state.deviceID)
    }

    private func merge(name: Data, local: LocalItemState?, remote: RemoteRecordState?, state: inout CircleState, bundle: KeyBundle,
                       client: EtcdClient, layout: CircleLayout, report: inout SyncReport) throws(SyncError) {
        var remote = remote
        if remote != nil && remote?.record == nil { report.refused += 1 }
        for attempt in 0..<8 {
            let remoteVersion = remote?.record?.version
            if let record = remote?.record, local.map({ record.version > $0.version }) ?? true {
                do {
                    try apply(record, local: local, state: &state)
                } catch .keychain(.locked) {
                    report.locked += 1  // its class is locked here: applied at a pass after the unlock
                    return
                }
                report.pulled += 1
                return
            }
            guard let local else { return }  // only a refused record, and nothing here to replace it with
            if let remoteVersion, remoteVersion == local.version {
                state.synced[HexEncoding.string(name)] = .init(version: local.version, localIdentity: local.entry.localIdentity,
                                                               isDeletion: local.entry.item == nil)
                return
            }
            let record = SyncRecord(name: name, protection: local.entry.item?.protection ?? .whenUnlocked,
                                    version: local.version, isDeletion: local.entry.item == nil, itemClass: local.entry.itemClass,
                                    payload: local.entry.item.map { ItemPayload(attributes: $0.attributes, data: $0.data, accessControlFlags: nil) })
            let sealed = try record.sealed(circleID: state.circleID, bundle: bundle)
            let written = try Self.etcd { () throws(EtcdError) in
                try client.compareAndPut(layout.item(name), sealed, expectedModRevision: remote?.modRevision ?? 0)
            }
            if written {
                state.synced[HexEncoding.string(name)] = .init(version: local.version, localIdentity: local.entry.localIdentity,
                                                               isDeletion: local.entry.item == nil)
                report.pushed += 1
                return
            }
            // Another device wrote this record since it was read: read it again and merge again.
            report.retried += 1
            if attempt == 7 { break }
            remote = try Self.etcd({ () throws(EtcdError) in try client.get(layout.item(name)) })
                .map { open($0, name: name, state: state, bundle: bundle) }
        }
        throw .store(.unavailable("a record kept changing while it was merged; try again"))
    }

    private func apply(_ record: SyncRecord, local: LocalItemState?, state: inout CircleState) throws(SyncError) {
        let nameHex = HexEncoding.string(record.name)
        if record.isDeletion {
            if let local, local.entry.item != nil {
                try Self.keychain { () throws(KeychainStoreError) in
                    try database.applySynchronizedDeletion(itemClass: record.itemClass, localIdentity: local.entry.localIdentity,
                                                           deletedAt: Date(timeIntervalSinceReferenceDate: record.version.time))
                }
            }
            state.synced[nameHex] = .init(version: record.version, localIdentity: local?.entry.localIdentity ?? Data(), isDeletion: true)
            return
        }
        guard let payload = record.payload else { throw .tampered("a record") }
        let identity = try Self.keychain { () throws(KeychainStoreError) -> Data in
            try database.applySynchronizedItem(NewItem(itemClass: record.itemClass, attributes: payload.attributes, data: payload.data,
                                                       protection: record.protection))
        }
        state.synced[nameHex] = .init(version: record.version, localIdentity: identity, isDeletion: false)
    }

    // MARK: Keys

    /// Picks up a re-key: a newer epoch announced in `keys` is read with the circle secret if this
    /// device still has the current one, otherwise from this device's wrap. A device whose member
    /// record is gone was removed.
    private func refreshKeys(_ state: inout CircleState, client: EtcdClient) throws(SyncError) {
        let layout = CircleLayout(circleID: state.circleID)
        let (keys, member) = try Self.etcd { () throws(EtcdError) in
            (try client.get(layout.keys), try client.get(layout.member(state.deviceID)))
        }
        guard let keys else { throw .circleNotFound }
        guard member != nil else { throw .removedFromCircle }
        let current = try state.keyBundle
        let announced = try CircleKeys.announcedEpoch(keys.value)
        guard announced > current.epoch else { return }
        var bundle: KeyBundle?
        if let code = state.code {
            do {
                bundle = try CircleKeys.openBundle(keys.value, code: code)
            } catch .tampered {
                bundle = nil  // re-keyed with a new secret: the wrap below
            }
        }
        if bundle == nil {
            guard let wrap = try Self.etcd({ () throws(EtcdError) in try client.get(layout.wrap(state.deviceID)) }) else {
                throw .removedFromCircle
            }
            bundle = try CircleKeys.unwrap(wrap.value, privateKey: try state.privateKey, deviceID: state.deviceID, circleID: state.circleID)
            state.secret = nil  // the new secret went to whoever re-keyed; this device needs only the keys
        }
        guard let bundle, bundle.epoch >= announced, bundle.namingKey == current.namingKey else { throw .removedFromCircle }
        state.bundle = bundle.encoded
        state.keysRevision = keys.modRevision
        try state.save(to: database)
    }

    /// After a re-key: every record this device can open is written again under the new epoch.
    private func reencryptRecords(state: CircleState, client: EtcdClient) throws(SyncError) {
        let bundle = try state.keyBundle
        let layout = CircleLayout(circleID: state.circleID)
        let records = try Self.etcd { () throws(EtcdError) in try client.range(prefix: layout.itemsPrefix).keyValues }
        for keyValue in records {
            guard let name = layout.name(fromItemKey: keyValue.key),
                  let record = open(keyValue, name: name, state: state, bundle: bundle).record
            else { continue }
            let sealed = try record.sealed(circleID: state.circleID, bundle: bundle)
            // A record changed meanwhile was written by a member that has the new keys already.
            _ = try Self.etcd { () throws(EtcdError) in try client.compareAndPut(keyValue.key, sealed, expectedModRevision: keyValue.modRevision) }
        }
    }

    // MARK: Plumbing

    func requireState() throws(SyncError) -> CircleState {
        guard let state = try CircleState.load(from: database) else { throw .notInCircle }
        return state
    }

    static func client(_ endpoints: [String]) throws(SyncError) -> EtcdClient {
        do {
            return try EtcdClient(endpoints: endpoints)
        } catch {
            throw .store(error)
        }
    }

    @discardableResult  // a put's revision is often not needed
    static func etcd<T>(_ body: () throws(EtcdError) -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch {
            throw .store(error)
        }
    }

    private static func keychain<T>(_ body: () throws(KeychainStoreError) -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch {
            throw .keychain(error)
        }
    }

}

extension KeychainSynchronizer {
    /// Keeps synchronizing until `shouldContinue` returns false: a pass, then a watch on the
    /// circle's records until another device writes (or `pollInterval` passes, which is when local
    /// changes are picked up), then the next pass. A failure (etcd down, a network error) is
    /// reported and retried with exponential backoff from 1 s up to 30 s; being removed from the
    /// circle, or not being in one, ends the loop.
    public func watch(pollInterval: Duration = .seconds(5), shouldContinue: () -> Bool,
                      onResult: (Result<SyncReport, SyncError>) -> Void) {
        var backoff = Duration.seconds(1)
        while shouldContinue() {
            do throws(SyncError) {
                let report = try synchronize()
                onResult(.success(report))
                backoff = .seconds(1)
                let state = try requireState()
                let client = try Self.client(state.endpoints)
                try Self.etcd { () throws(EtcdError) in
                    try client.watch(prefix: CircleLayout(circleID: state.circleID).prefix, startRevision: report.revision + 1,
                                     deadline: .now + pollInterval) { _, _ in false }
                }
            } catch {
                onResult(.failure(error))
                switch error {
                case .removedFromCircle, .notInCircle, .circleNotFound: return
                default: break
                }
                Self.sleep(backoff, while: shouldContinue)
                backoff = min(backoff * 2, .seconds(30))
            }
        }
    }

    /// Sleeps `duration` in short slices, ending early when `shouldContinue` turns false.
    private static func sleep(_ duration: Duration, while shouldContinue: () -> Bool) {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end, shouldContinue() { usleep(100_000) }
    }
}

/// Where this keychain stands in its circle (no secret in it).
public struct CircleStatus: Sendable, Equatable {
    /// The circle's id (hex).
    public var circleID: String
    /// This device's id in the circle (hex).
    public var deviceID: String
    /// The etcd endpoints.
    public var endpoints: [String]
    /// The key epoch this device holds (raised by each re-key).
    public var epoch: UInt32
    /// How many records this device has agreed on with the circle.
    public var syncedRecords: Int
}

extension KeychainSynchronizer {
    /// This keychain's circle, from its local state (no network).
    public func status() throws(SyncError) -> CircleStatus {
        let state = try requireState()
        return CircleStatus(circleID: HexEncoding.string(state.circleID), deviceID: HexEncoding.string(state.deviceID),
                            endpoints: state.endpoints, epoch: try state.keyBundle.epoch, syncedRecords: state.synced.count)
    }
}
