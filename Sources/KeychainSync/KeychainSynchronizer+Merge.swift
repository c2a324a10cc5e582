import Crypto
import Foundation
import KeychainStore

extension KeychainSynchronizer {
    /// Merges this keychain's synchronizable items with the circle's records once (completing a
    /// sponsored join and catching up with membership changes first). A record is applied only
    /// if it verifies (``SyncRecord/init(opening:name:circleID:bundle:roster:now:)``) and is newer
    /// than what this device has; a record that does not verify is counted as refused and replaced
    /// by this device's version when it has one.
    public func synchronize() throws(SyncError) -> SyncReport {
        let session = try Session(self)
        let (roster, bundle) = try session.state.membership()
        let identity = try session.state.identity
        var report = SyncReport()
        report.refused = session.refused
        report.epoch = roster.epoch

        // Remote: every record, opened (or refused).
        var remote: [Data: RemoteRecordState] = [:]
        for record in try session.list(CircleLayout.itemsPrefix) {
            guard let name = CircleLayout.name(fromItem: record.name) else { continue }
            remote[name] = open(record, name: name, session: session, roster: roster, bundle: bundle)
        }

        // Local: every synchronizable item and tombstone, named.
        let (entries, locked) = try Self.keychain { () throws(KeychainStoreError) in try database.synchronizableEntries(of: Self.classes) }
        report.locked = locked
        var local: [Data: LocalItemState] = [:]
        let nameByIdentity = Dictionary(session.state.synced.compactMap { name, synced in
            SyncHex.bytes(name).map { (synced.localIdentity, $0) }
        }, uniquingKeysWith: { first, _ in first })
        for entry in entries {
            if let item = entry.item {
                let name = item.primaryKeyName(using: bundle.namingKey)
                local[name] = LocalItemState(entry: entry, version: localVersion(of: item, name: name, state: session.state))
            } else if let name = nameByIdentity[entry.localIdentity], let synced = session.state.synced[HexEncoding.string(name)] {
                // A deletion of an item this device synchronized before.
                let version = synced.isDeletion ? synced.version
                    : RecordVersion(time: (entry.deletedAt ?? Date()).timeIntervalSinceReferenceDate, device: session.state.deviceID)
                local[name] = LocalItemState(entry: entry, version: version)
            }
        }

        var merger = Merger(synchronizer: self, session: session, roster: roster, bundle: bundle, identity: identity, report: report)
        do throws(SyncError) {
            for name in Set(remote.keys).union(local.keys).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                try merger.merge(name: name, local: local[name], remote: remote[name])
            }
        } catch {
            // What was merged before the failure is remembered, so the next pass does not mistake
            // those copies for local changes; the failure is the one to report.
            do { try merger.session.state.save(to: database) } catch {}
            throw error
        }
        try merger.session.state.save(to: database)
        return merger.report
    }

    /// A record read from the transport: opened, or refused (kept for its version token, to be
    /// overwritten).
    struct RemoteRecordState {
        var record: SyncRecord?
        var token: String
        /// Refused because it is of an epoch after this device's (its keys are not here yet):
        /// left alone rather than overwritten, since it may be a newer write.
        var isOfLaterEpoch = false
    }

    struct LocalItemState {
        var entry: SynchronizableEntry
        var version: RecordVersion
    }

    func open(_ transportRecord: SyncTransportRecord, name: Data, session: Session, roster: Roster, bundle: KeyBundle) -> RemoteRecordState {
        do {
            let record = try SyncRecord(opening: transportRecord.bytes, name: name, circleID: session.state.circleID, bundle: bundle,
                                        roster: roster)
            return RemoteRecordState(record: record, token: transportRecord.version)
        } catch {
            var refused = RemoteRecordState(record: nil, token: transportRecord.version)
            do {
                refused.isOfLaterEpoch = try SyncRecord.Envelope(decoding: transportRecord.bytes).epoch > bundle.epoch
            } catch {
                refused.isOfLaterEpoch = false  // undecodable: garbage, to be replaced
            }
            return refused
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

    /// One pass's merging of records, name by name.
    struct Merger {
        let synchronizer: KeychainSynchronizer
        var session: Session
        let roster: Roster
        let bundle: KeyBundle
        let identity: DeviceIdentity
        var report: SyncReport

        mutating func merge(name: Data, local: LocalItemState?, remote: RemoteRecordState?) throws(SyncError) {
            var remote = remote
            if remote != nil && remote?.record == nil { report.refused += 1 }
            for attempt in 0..<8 {
                let remoteVersion = remote?.record?.version
                if let record = remote?.record, local.map({ record.version > $0.version }) ?? true {
                    do {
                        try apply(record, local: local)
                    } catch .locked {
                        report.locked += 1  // its class is locked here: applied at a pass after the unlock
                        return
                    }
                    report.pulled += 1
                    return
                }
                guard let local else { return }  // only a refused record, and nothing here to replace it with
                if remote?.isOfLaterEpoch == true { return }  // possibly newer: taken once this device has that epoch's keys
                if let remoteVersion, remoteVersion == local.version {
                    session.state.synced[HexEncoding.string(name)] = .init(version: local.version, localIdentity: local.entry.localIdentity,
                                                                           isDeletion: local.entry.item == nil)
                    return
                }
                let record = SyncRecord(name: name, protection: local.entry.item?.protection ?? .whenUnlocked,
                                        version: local.version, isDeletion: local.entry.item == nil, itemClass: local.entry.itemClass,
                                        payload: local.entry.item.map { ItemPayload(attributes: $0.attributes, data: $0.data, accessControlFlags: nil) })
                let sealed = try record.sealed(circleID: session.state.circleID, bundle: bundle, writer: identity)
                let expected: String?? = .some(remote?.token)
                do {
                    try session.transport.publish([SyncTransportChange(name: CircleLayout.item(name), operation: .write(sealed), expected: expected)])
                    session.state.synced[HexEncoding.string(name)] = .init(version: local.version, localIdentity: local.entry.localIdentity,
                                                                           isDeletion: local.entry.item == nil)
                    report.pushed += 1
                    return
                } catch .conflict {
                    // Another device wrote this record since it was read: read it again and merge again.
                    report.retried += 1
                } catch {
                    throw .transport(error)
                }
                if attempt == 7 { break }
                remote = try session.read(CircleLayout.item(name)).map {
                    synchronizer.open($0, name: name, session: session, roster: roster, bundle: bundle)
                }
            }
            throw .transport(.unreachable("a record kept changing while it was merged; try again"))
        }

        private mutating func apply(_ record: SyncRecord, local: LocalItemState?) throws(SyncError) {
            let nameHex = HexEncoding.string(record.name)
            let database = synchronizer.database
            if record.isDeletion {
                // The local item is the one whose own name is the record's: found by name, never by
                // what the record claims.
                if let local, local.entry.item != nil {
                    try KeychainSynchronizer.keychain { () throws(KeychainStoreError) in
                        try database.applySynchronizedDeletion(itemClass: local.entry.itemClass, localIdentity: local.entry.localIdentity,
                                                               deletedAt: Date(timeIntervalSinceReferenceDate: record.version.time))
                    }
                }
                session.state.synced[nameHex] = .init(version: record.version, localIdentity: local?.entry.localIdentity ?? Data(),
                                                      isDeletion: true)
                return
            }
            guard let payload = record.payload else { throw .tampered("a record") }
            let identity = try KeychainSynchronizer.keychain { () throws(KeychainStoreError) -> Data in
                try database.applySynchronizedItem(NewItem(itemClass: record.itemClass, attributes: payload.attributes, data: payload.data,
                                                           protection: record.protection))
            }
            session.state.synced[nameHex] = .init(version: record.version, localIdentity: identity, isDeletion: false)
        }
    }
}
