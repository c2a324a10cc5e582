/// How much one listing may read: whoever can write to a transport (a shared folder, a git
/// remote) chooses how many records it holds and how large they are, so a listing reads at most
/// ``maximumRecords`` records and ``maximumBytes`` bytes, smallest first, and reports the names
/// it left unread rather than holding them all in memory.
package struct SyncListingLimits: Sendable, Equatable {
    /// The most records one listing reads.
    package var maximumRecords: Int
    /// The most bytes (record contents) one listing reads.
    package var maximumBytes: Int

    /// Limits of `maximumRecords` records and `maximumBytes` bytes.
    package init(maximumRecords: Int, maximumBytes: Int) {
        self.maximumRecords = maximumRecords
        self.maximumBytes = maximumBytes
    }

    /// What a sync pass reads per listing: 4,096 records, 64 MiB (docs/SYNC.md states it).
    package static let standard = SyncListingLimits(maximumRecords: 4_096, maximumBytes: 64 << 20)

    /// Which of `candidates` (a record name and its size each; a name may appear more than once,
    /// for a shared folder's conflict copies) a listing reads: smallest first (then by name), while
    /// both limits hold. Returns the indices to read and the names left unread; a name with any
    /// candidate unread is unread as a whole, so that nothing acts on part of its candidates.
    package func select(_ candidates: [(name: String, size: Int)]) -> (read: [Int], unread: Set<String>) {
        var order = Array(candidates.indices)
        order.sort { (candidates[$0].size, candidates[$0].name) < (candidates[$1].size, candidates[$1].name) }
        var count = 0
        var bytes = 0
        var chosen: [Int] = []
        var unread = Set<String>()
        for index in order {
            let candidate = candidates[index]
            if count < maximumRecords, bytes + candidate.size <= maximumBytes {
                count += 1
                bytes += candidate.size
                chosen.append(index)
            } else {
                unread.insert(candidate.name)
            }
        }
        return (chosen.filter { !unread.contains(candidates[$0].name) }, unread)
    }
}

/// What a bounded listing found: the records it read and the names it did not read.
package struct SyncTransportListing: Sendable, Equatable {
    /// Records read, as ``SyncTransport/list(prefix:)`` returns them; none of ``unread``'s names.
    package var records: [SyncTransportRecord]
    /// Names present on the transport but not read, over ``SyncListingLimits``: a caller must
    /// neither overwrite nor delete them on the strength of this listing.
    package var unread: Set<String>

    /// A listing of `records`, with `unread` names left unread.
    package init(records: [SyncTransportRecord], unread: Set<String> = []) {
        self.records = records
        self.unread = unread
    }
}

extension SyncTransport {
    /// Records under `prefix` within `limits`, for transports that cannot list without reading
    /// (etcd answers with values): everything is listed, then the limits decide which records are
    /// handed on, so the merge never acts on more than the limits allow.
    package func list(prefix: String, within limits: SyncListingLimits) throws(SyncTransportError) -> SyncTransportListing {
        let all = try list(prefix: prefix)
        let (read, unread) = limits.select(all.map { ($0.name, $0.bytes.count) })
        return SyncTransportListing(records: read.sorted().map { all[$0] }, unread: unread)
    }
}
