import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainItemCodec
import KeychainVocabulary

extension KeychainSynchronizer {
    /// Merges this keychain's synchronizable items with the circle's records once (completing a
    /// sponsored join and catching up with membership changes first). A record is applied only
    /// if it verifies (``SyncRecord/init(opening:name:circleID:bundle:roster:now:)``) and is newer
    /// than what this device has; a record that does not verify is counted as refused and replaced
    /// by this device's version when it has one.
    package func synchronize() throws(SyncError) -> SyncReport {
        let session = try Session(self)
        let (roster, bundle) = try session.state.membership()
        let identity = try session.state.identity
        var report = SyncReport()
        report.refused = session.refused
        report.epoch = roster.epoch

        // Remote: every record, opened (or refused).
        var remote: [Data: RemoteRecordState] = [:]
        let listing = try session.listing(CircleLayout.itemsPrefix, resumingAfter: session.state.listingCursor)
        // Names over the listing limits were not read: absent from `remote` but present on the
        // transport, so they are neither overwritten nor deleted this pass.
        let unread = Set(listing.unread.compactMap(CircleLayout.name(fromItem:)))
        report.unread = listing.unread.count
        for record in listing.records {
            guard let name = CircleLayout.name(fromItem: record.name) else { continue }
            let candidate = open(record, name: name, session: session, roster: roster, bundle: bundle)
            // A transport may hold several candidates under one name (a shared folder's conflict
            // copies): the merge sees the one its own authenticated fields rank first.
            remote[name] = remote[name].map { candidate.ranks(before: $0) ? candidate : $0 } ?? candidate
        }

        // Local: every synchronizable item and tombstone, named.
        let (entries, locked) = try Self.keychain { () throws(KeychainStoreError) in try database.portableEntries(of: Self.classes) }
        report.locked = locked
        var local: [Data: LocalItemState] = [:]
        let nameByIdentity = Dictionary(session.state.synced.compactMap { name, synced in
            HexEncoding.bytes(name).map { (synced.localIdentity, $0) }
        }, uniquingKeysWith: { first, _ in first })
        for entry in entries {
            if let item = entry.item {
                let name = item.primaryKeyName(using: bundle.namingKey)
                local[name] = LocalItemState(entry: entry, version: localVersion(of: item, name: name, state: session.state))
            } else if let name = nameByIdentity[entry.localIdentity], let synced = session.state.synced[HexEncoding.string(name)] {
                // A deletion of an item this device synchronized before.
                let version = synced.isDeletion ? synced.version
                    : RecordVersion(time: Self.hybridTime((entry.deletedAt ?? database.currentDate()).timeIntervalSinceReferenceDate, after: synced.version),
                                    device: session.state.deviceID)
                local[name] = LocalItemState(entry: entry, version: version)
            }
        }

        var merger = Merger(synchronizer: self, session: session, roster: roster, bundle: bundle, identity: identity, report: report)
        do throws(SyncError) {
            for name in Set(remote.keys).union(local.keys).subtracting(unread).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                try merger.merge(name: name, local: local[name], remote: remote[name])
            }
            try merger.publishPending()
            try merger.recordAccesses()
        } catch {
            // What was merged before the failure is remembered, so the next pass does not mistake
            // those copies for local changes; the failure is the one to report.
            do { try merger.session.state.save(to: database) } catch {}
            throw error
        }
        merger.session.state.listingCursor = listing.resumeAfter
        merger.session.state.lastPass = SyncPassFindings(merger.report)
        try merger.session.state.save(to: database)
        return merger.report
    }

    /// A record read from the transport: opened, or refused (kept for its version token, to be
    /// overwritten).
    struct RemoteRecordState {
        var record: SyncRecord?
        var token: String
        /// The sealed bytes as read (kept in history when a newer version replaces them).
        var bytes = Data()
        /// Refused because it is of an epoch after this device's (its keys are not here yet) and
        /// signed by a current member: left alone rather than overwritten, since it may be a newer
        /// write. A later-epoch record no current member signed is replaced like any refused one.
        var isOfLaterEpoch = false
        /// Of an epoch after this device's, whoever signed it (``isOfLaterEpoch`` when a member did).
        var isOfUnknownEpoch = false

        /// Whether this candidate is preferred to `other` for the same name: a verified record over
        /// one that is not, the newer verified version between two, and a record of a later epoch
        /// (possibly newer, not verifiable yet) over a refused one. Never the transport's order.
        func ranks(before other: RemoteRecordState) -> Bool {
            switch (record, other.record) {
            case let (mine?, theirs?): return theirs.version < mine.version
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return isOfLaterEpoch && !other.isOfLaterEpoch
            }
        }
    }

    struct LocalItemState {
        var entry: PortableEntry
        var version: RecordVersion
    }

    func open(_ transportRecord: SyncTransportRecord, name: Data, session: Session, roster: Roster, bundle: KeyBundle) -> RemoteRecordState {
        do {
            let record = try SyncRecord(opening: transportRecord.bytes, name: name, circleID: session.state.circleID, bundle: bundle,
                                        roster: roster, now: database.currentDate())
            return RemoteRecordState(record: record, token: transportRecord.version, bytes: transportRecord.bytes)
        } catch {
            // Left alone only if a current member signed it: a record parked at an unknown epoch by
            // anyone else (a removed device, a transport writer) would otherwise freeze the item.
            var refused = RemoteRecordState(record: nil, token: transportRecord.version)
            refused.isOfLaterEpoch = SyncRecord.isPendingLaterEpoch(transportRecord.bytes, name: name, circleID: session.state.circleID,
                                                                    bundle: bundle, roster: roster)
            refused.isOfUnknownEpoch = SyncRecord.isOfLaterEpoch(transportRecord.bytes, than: bundle)
            return refused
        }
    }

    /// A live local item's version: the agreed one if the item is unchanged since the last sync
    /// (same modification date), otherwise a change made here, ordered after the agreed version.
    private func localVersion(of item: KeychainItem, name: Data, state: CircleState) -> RecordVersion {
        let modified = Self.modificationTime(item.attributes) ?? 0
        guard let synced = state.synced[HexEncoding.string(name)] else { return RecordVersion(time: modified, device: state.deviceID) }
        if !synced.isDeletion, (synced.localModified ?? synced.version.time) == modified { return synced.version }
        return RecordVersion(time: Self.hybridTime(modified, after: synced.version), device: state.deviceID)
    }

    /// An item's modification date (seconds since 2001; its creation date when it has none, as
    /// the keychain does when it applies a record), if it has one.
    static func modificationTime(_ attributes: [String: AttributeValue]) -> Double? {
        if case .date(let date)? = attributes["mdat"] ?? attributes["cdat"] { return date.timeIntervalSinceReferenceDate }
        return nil
    }

    /// The time of a change made here after this device agreed on `agreed`: its wall-clock time,
    /// but never earlier than just after `agreed` — a hybrid logical clock per item. A change
    /// made after seeing a version is newer than it even when this device's clock is behind the
    /// writer's, so a slow clock never makes its owner's later edit lose; concurrent changes
    /// (neither device saw the other's) are ordered by their wall-clock times. How far ahead a
    /// clock can push a version is capped where records are opened (``SyncRecord/futureAllowance``).
    static func hybridTime(_ wallClock: Double, after agreed: RecordVersion) -> Double {
        max(wallClock, agreed.time.nextUp)
    }

    /// One pass's merging of records, name by name.
    struct Merger {
        let synchronizer: KeychainSynchronizer
        var session: Session
        let roster: Roster
        let bundle: KeyBundle
        let identity: DeviceIdentity
        var report: SyncReport
        /// Local versions to publish at the end of the pass, together (one git commit rather than
        /// one per item); until ``publishPending()`` runs, merges collect them here.
        var pending: [PendingWrite] = []
        var collectsWrites = true
        /// Items written or deleted here since the access log last recorded this pass's changes.
        var pulledAccesses: [SyncItemAccess] = []

        struct PendingWrite {
            var name: Data
            var local: LocalItemState
            var changes: [SyncTransportChange]
        }

        /// How many items one publish carries.
        static let publishBatch = 200

        /// Publishes the collected writes in batches. A batch that meets a conflict (another
        /// device wrote one of its records meanwhile) is merged again item by item, each record
        /// read afresh: a transport may have applied part of it (etcd writes one key at a time),
        /// and merging again finds those already in place.
        mutating func publishPending() throws(SyncError) {
            collectsWrites = false
            let writes = pending
            pending = []
            for start in stride(from: 0, to: writes.count, by: Self.publishBatch) {
                let batch = writes[start..<min(start + Self.publishBatch, writes.count)]
                try recordAccesses(publishing: batch.map(\.local))
                do {
                    try session.transport.publish(batch.flatMap(\.changes))
                } catch .conflict {
                    report.retried += 1
                    for write in batch {
                        let remote = try session.read(CircleLayout.item(write.name)).map {
                            synchronizer.open($0, name: write.name, session: session, roster: roster, bundle: bundle)
                        }
                        try merge(name: write.name, local: write.local, remote: remote)
                    }
                    continue
                } catch {
                    throw .transport(error)
                }
                for write in batch { recordPushed(write.local, name: write.name) }
            }
        }

        private mutating func recordPushed(_ local: LocalItemState, name: Data) {
            session.state.synced[HexEncoding.string(name)] = .init(version: local.version, localIdentity: local.entry.localIdentity,
                                                                   isDeletion: local.entry.item == nil,
                                                                   localModified: local.entry.item.flatMap { KeychainSynchronizer.modificationTime($0.attributes) })
            report.pushed += 1
        }

        mutating func merge(name: Data, local: LocalItemState?, remote: RemoteRecordState?) throws(SyncError) {
            var remote = remote
            if let remote, remote.record == nil {
                report.refused += 1
                if remote.isOfUnknownEpoch { report.unknownEpoch += 1 }
                if remote.isOfLaterEpoch { report.awaitingKeys += 1 }
            }
            for attempt in 0..<8 {
                let remoteVersion = remote?.record?.version
                if let record = remote?.record, local.map({ record.version > $0.version }) ?? true {
                    do {
                        if let local, try keepIfLosing(local, name: name) { report.kept += 1 }
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
                                                                           isDeletion: local.entry.item == nil,
                                                                           localModified: local.entry.item.flatMap { KeychainSynchronizer.modificationTime($0.attributes) })
                    return
                }
                let record = SyncRecord(name: name, protection: local.entry.item?.protection ?? .whenUnlocked,
                                        version: local.version, isDeletion: local.entry.item == nil, itemClass: local.entry.itemClass,
                                        payload: local.entry.item.map { ItemPayload(attributes: $0.attributes, data: $0.data, accessControlFlags: nil) })
                let sealed = try record.sealed(circleID: session.state.circleID, bundle: bundle, writer: identity)
                let expected: String?? = .some(remote?.token)
                var changes = [SyncTransportChange(name: CircleLayout.item(name), operation: .write(sealed), expected: expected)]
                if let replaced = remote, let replacedRecord = replaced.record {
                    changes += try historyChanges(name: name, replaced: replaced.bytes, version: replacedRecord.version)
                }
                if collectsWrites {
                    pending.append(PendingWrite(name: name, local: local, changes: changes))
                    return
                }
                try recordAccesses(publishing: [local])
                do {
                    try session.transport.publish(changes)
                    recordPushed(local, name: name)
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

        /// Before a remote version replaces `local`: if `local` is a change made here that the
        /// circle never had (it lost to a concurrent, newer version), it is sealed into the item's
        /// history, so the losing edit is kept, never dropped. True when it was kept.
        private mutating func keepIfLosing(_ local: LocalItemState, name: Data) throws(SyncError) -> Bool {
            guard session.state.synced[HexEncoding.string(name)]?.version != local.version else { return false }
            let losing = SyncRecord(name: name, protection: local.entry.item?.protection ?? .whenUnlocked,
                                    version: local.version, isDeletion: local.entry.item == nil, itemClass: local.entry.itemClass,
                                    payload: local.entry.item.map { ItemPayload(attributes: $0.attributes, data: $0.data, accessControlFlags: nil) })
            let sealed = try losing.sealed(circleID: session.state.circleID, bundle: bundle, writer: identity)
            let changes = try historyChanges(name: name, replaced: sealed, version: local.version)
            try recordAccesses(publishing: [local])
            try session.publish(changes)
            return true
        }

        /// The changes that put `replaced` into the item's history and trim it to the depth.
        private func historyChanges(name: Data, replaced: Data, version: RecordVersion) throws(SyncError) -> [SyncTransportChange] {
            let existing = try session.list(CircleLayout.history(of: name)).map { entry -> (transportName: String, version: RecordVersion?) in
                let opened = synchronizer.open(entry, name: name, session: session, roster: roster, bundle: bundle)
                return (entry.name, opened.record?.version)
            }
            return KeychainSynchronizer.historyChanges(name: name, replaced: replaced, version: version, existing: existing,
                                                       depth: synchronizer.historyDepth)
        }

        private mutating func apply(_ record: SyncRecord, local: LocalItemState?) throws(SyncError) {
            let nameHex = HexEncoding.string(record.name)
            let database = synchronizer.database
            if record.isDeletion {
                // The local item is the one whose own name is the record's: found by name, never by
                // what the record claims.
                if let local, let item = local.entry.item {
                    try KeychainSynchronizer.keychain { () throws(KeychainStoreError) in
                        try database.recordDeletionKeepingDate(itemClass: local.entry.itemClass, localIdentity: local.entry.localIdentity,
                                                               deletedAt: Date(timeIntervalSinceReferenceDate: record.version.time))
                    }
                    pulledAccesses.append(SyncItemAccess(.pulledDeletion, attributes: item.attributes,
                                                         device: HexEncoding.string(record.version.device)))
                }
                session.state.synced[nameHex] = .init(version: record.version, localIdentity: local?.entry.localIdentity ?? Data(),
                                                      isDeletion: true)
                return
            }
            guard let payload = record.payload else { throw .tampered("a record") }
            let identity = try KeychainSynchronizer.keychain { () throws(KeychainStoreError) -> Data in
                try database.storeItemKeepingDates(NewItem(itemClass: record.itemClass, attributes: payload.attributes, data: payload.data,
                                                           protection: record.protection))
            }
            session.state.synced[nameHex] = .init(version: record.version, localIdentity: identity, isDeletion: false,
                                                  localModified: KeychainSynchronizer.modificationTime(payload.attributes))
            pulledAccesses.append(SyncItemAccess(.pulled, attributes: payload.attributes, device: HexEncoding.string(record.version.device)))
        }

        /// Records in the access log the items written or deleted here so far and, before their
        /// secrets leave this device, the items about to be published (`publishing`; deletions
        /// carry no secret and are not reads). A failure stops the pass before that publish.
        mutating func recordAccesses(publishing: [LocalItemState] = []) throws(SyncError) {
            let thisDevice = HexEncoding.string(session.state.deviceID)
            let published = publishing.compactMap { local in
                local.entry.item.map { SyncItemAccess(.published, attributes: $0.attributes, device: thisDevice) }
            }
            let accesses = pulledAccesses + published
            guard !accesses.isEmpty, let record = synchronizer.recordAccess else { return }
            do {
                try record(accesses)
            } catch {
                throw .accessNotLogged(published.isEmpty ? "items were changed here" : "nothing was published",
                                       SystemErrorText.of(error))
            }
            pulledAccesses = []
        }
    }
}
