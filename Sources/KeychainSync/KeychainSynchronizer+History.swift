import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainItemCodec
import KeychainVocabulary

/// Where earlier versions of an item live on the transport: `history/<record name>/<key>`, the
/// key a digest of the sealed bytes (opaque, and the same for the same version, so a version
/// kept twice is one file). Each is sealed and signed exactly like the item's current record and
/// bound to the item's record name, so it cannot be moved to another item.
extension CircleLayout {
    static let historyPrefix = "history/"

    static func history(of name: Data) -> String { historyPrefix + HexEncoding.string(name) + "/" }

    static func history(of name: Data, sealed: Data) -> String {
        history(of: name) + HexEncoding.string(Data(SHA256.hash(data: sealed).prefix(16)))
    }

    /// The record name in a transport name under `history/`, or nil for anything else.
    static func name(fromHistory transportName: String) -> Data? {
        guard transportName.hasPrefix(historyPrefix) else { return nil }
        let parts = transportName.dropFirst(historyPrefix.count).split(separator: "/")
        guard parts.count == 2, parts[0].count == 64, parts[1].count == 32 else { return nil }
        return HexEncoding.bytes(String(parts[0]))
    }
}

/// One version of a synchronized item, as ``KeychainSynchronizer/history(account:service:)``
/// lists it (no secret in it).
package struct SyncItemVersion: Sendable, Equatable {
    /// 1 for the newest (the item as the circle has it now), then 2, 3, … going back.
    package var number: Int
    /// When it was written (the version's hybrid logical clock time).
    package var date: Date
    /// The device that wrote it (hex id).
    package var device: String
    /// Whether this version is the item's deletion.
    package var isDeletion: Bool
}

extension KeychainSynchronizer {
    /// How many earlier versions of each item are kept on the transport by default.
    package static let defaultHistoryDepth = 10

    /// The versions of the synchronized item with this account (and service, when given), newest
    /// first — its current record and the earlier versions kept in its history, deletions
    /// included — read from the transport and each verified like any record. Fails with
    /// ``SyncError/itemNotInHistory(_:)`` when no item matches, and
    /// ``SyncError/ambiguousItem(_:)`` when several do (give the service).
    package func history(account: String, service: String? = nil) throws(SyncError) -> [SyncItemVersion] {
        try versions(account: account, service: service).enumerated().map { index, record in
            SyncItemVersion(number: index + 1, date: Date(timeIntervalSinceReferenceDate: record.version.time),
                            device: HexEncoding.string(record.version.device), isDeletion: record.isDeletion)
        }
    }

    /// Puts version `number` (as ``history(account:service:)`` numbers them) of the item back in
    /// this keychain as a new change, dated now, and synchronizes so that every device gets it.
    /// Restoring a deletion is refused (delete the item instead); so is a number out of range.
    /// The write is recorded first (``recordAccess``, `sync-restore`, with the device whose version
    /// it was); a failed record leaves the keychain unchanged.
    @discardableResult
    package func restore(account: String, service: String? = nil, version number: Int) throws(SyncError) -> SyncReport {
        let versions = try versions(account: account, service: service)
        guard number >= 1, number <= versions.count else { throw .noSuchVersion(number, available: versions.count) }
        let record = versions[number - 1]
        guard !record.isDeletion, let payload = record.payload else { throw .versionIsDeletion(number) }
        var attributes = payload.attributes
        // Dated now, and in any case after the newest version the circle has: a pass finds local
        // changes by their modification date, and a restore dated exactly as the version it
        // replaces (a clock that reads the same time) would never be published.
        let after = versions[0].version.time + 0.001
        attributes["mdat"] = .date(Date(timeIntervalSinceReferenceDate: max(database.currentDate().timeIntervalSinceReferenceDate, after)))
        if let recordAccess {
            do {
                try recordAccess([SyncItemAccess(.restored, attributes: attributes, device: HexEncoding.string(record.version.device))])
            } catch {
                throw .accessNotLogged("the item was not restored", SystemErrorText.of(error))
            }
        }
        _ = try Self.keychain { () throws(KeychainStoreError) -> Data in
            try database.storeItemKeepingDates(NewItem(itemClass: record.itemClass, attributes: attributes, data: payload.data,
                                                       protection: record.protection))
        }
        return try synchronize()
    }

    /// Every verified version of the one item matching `account`/`service`, newest first.
    private func versions(account: String, service: String?) throws(SyncError) -> [SyncRecord] {
        let session = try Session(self)
        let (roster, bundle) = try session.state.membership()
        var byName: [Data: [SyncRecord]] = [:]
        var records = try session.list(CircleLayout.itemsPrefix)
        records += try session.list(CircleLayout.historyPrefix)
        for record in records {
            guard let name = CircleLayout.name(fromItem: record.name) ?? CircleLayout.name(fromHistory: record.name) else { continue }
            do {
                byName[name, default: []].append(try SyncRecord(opening: record.bytes, name: name, circleID: session.state.circleID,
                                                               bundle: bundle, roster: roster))
            } catch {
                continue  // what does not verify is not a version of anything
            }
        }
        let matching = byName.filter { _, versions in
            versions.contains { version in
                guard let attributes = version.payload?.attributes, case .string(account)? = attributes["acct"] else { return false }
                guard let service else { return true }
                if case .string(service)? = attributes["svce"] ?? attributes["srvr"] { return true }
                return false
            }
        }
        guard matching.count <= 1 else { throw .ambiguousItem(account) }
        guard let versions = matching.first?.value else { throw .itemNotInHistory(account) }
        var seen = Set<RecordVersion>()
        return versions.sorted { $0.version > $1.version }.filter { seen.insert($0.version).inserted }
    }

    /// The changes that keep `replaced` (sealed bytes of an item's earlier version, or a
    /// version that lost a merge) in the item's history, and remove the oldest entries beyond
    /// `depth`. `existing` is the history as listed, with each entry's version where it opened.
    static func historyChanges(name: Data, replaced: Data, version: RecordVersion,
                               existing: [(transportName: String, version: RecordVersion?)], depth: Int) -> [SyncTransportChange] {
        let path = CircleLayout.history(of: name, sealed: replaced)
        var changes = [SyncTransportChange(name: path, operation: .write(replaced))]
        // Oldest first; entries that did not open go first (they are nobody's history).
        var kept = existing.filter { $0.transportName != path }
        kept.append((path, version))
        kept.sort { first, second in
            switch (first.version, second.version) {
            case (nil, nil): return first.transportName < second.transportName
            case (nil, _): return true
            case (_, nil): return false
            case let (first?, second?): return first < second
            }
        }
        let excess = kept.count - max(1, depth)
        if excess > 0 {
            for entry in kept.prefix(excess) where entry.transportName != path {
                changes.append(SyncTransportChange(name: entry.transportName, operation: .remove))
            }
        }
        return changes
    }
}
