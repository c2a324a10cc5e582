/// How much one listing may read: whoever can write to a transport (a shared folder, a git
/// remote) chooses how many records it holds and how large they are, so a listing reads at most
/// ``maximumRecords`` records and ``maximumBytes`` bytes, smallest first, and reports the names
/// it left unread rather than holding them all in memory.
///
/// Records of one size are taken in name order starting after ``resumingAfter``, wrapping round:
/// a pass that leaves records unread says where it stopped (``SyncListingSelection/resumeAfter``)
/// and the next starts there, so when more records are present than a pass reads, every one is
/// read in turn — honest records are padded to the same few sizes, and without the rotation the
/// same names (those a writer chose to sort first) would be read every pass and the rest never.
package struct SyncListingLimits: Sendable, Equatable {
    /// The most records one listing reads.
    package var maximumRecords: Int
    /// The most bytes (record contents) one listing reads.
    package var maximumBytes: Int
    /// Where the previous listing stopped (a record name): records of one size whose names sort
    /// after it are read first, then the rest from the start. Nil: from the start.
    package var resumingAfter: String?

    /// Limits of `maximumRecords` records and `maximumBytes` bytes, starting after `resumingAfter`.
    package init(maximumRecords: Int, maximumBytes: Int, resumingAfter: String? = nil) {
        self.maximumRecords = maximumRecords
        self.maximumBytes = maximumBytes
        self.resumingAfter = resumingAfter
    }

    /// What a sync pass reads per listing: 4,096 records, 64 MiB (docs/SYNC.md states it).
    package static let standard = SyncListingLimits(maximumRecords: 4_096, maximumBytes: 64 << 20)

    /// ``standard``, resuming after `name`.
    package static func standard(resumingAfter name: String?) -> SyncListingLimits {
        var limits = standard
        limits.resumingAfter = name
        return limits
    }

    /// Which of `candidates` (a record name and its size each; a name may appear more than once,
    /// for a shared folder's conflict copies) a listing reads: smallest first, names of one size
    /// from ``resumingAfter`` on (wrapping round), while both limits hold. Returns the indices to
    /// read, the names left unread and where the next listing resumes; a name with any candidate
    /// unread is unread as a whole, so that nothing acts on part of its candidates.
    package func select(_ candidates: [(name: String, size: Int)]) -> SyncListingSelection {
        let cursor = resumingAfter
        // Names after the cursor come first (false sorts before true), then the rest.
        func wrapped(_ name: String) -> Bool { cursor.map { name <= $0 } ?? false }
        var order = Array(candidates.indices)
        order.sort {
            let (left, right) = (candidates[$0], candidates[$1])
            return (left.size, wrapped(left.name) ? 1 : 0, left.name) < (right.size, wrapped(right.name) ? 1 : 0, right.name)
        }
        var count = 0
        var bytes = 0
        var chosen: [Int] = []
        var unread = Set<String>()
        var lastRead: String?
        for index in order {
            let candidate = candidates[index]
            if count < maximumRecords, bytes + candidate.size <= maximumBytes {
                count += 1
                bytes += candidate.size
                chosen.append(index)
                lastRead = candidate.name
            } else {
                unread.insert(candidate.name)
            }
        }
        return SyncListingSelection(read: chosen.filter { !unread.contains(candidates[$0].name) }, unread: unread,
                                    resumeAfter: unread.isEmpty ? nil : lastRead)
    }
}

/// Which records a listing reads (``SyncListingLimits/select(_:)``).
package struct SyncListingSelection: Sendable, Equatable {
    /// Indices of the candidates read.
    package var read: [Int]
    /// Names left unread.
    package var unread: Set<String>
    /// The last name read when some were left unread: where the next listing resumes. Nil when
    /// everything was read.
    package var resumeAfter: String?
}

/// What a bounded listing found: the records it read and the names it did not read.
package struct SyncTransportListing: Sendable, Equatable {
    /// Records read, as ``SyncTransport/list(prefix:)`` returns them; none of ``unread``'s names.
    package var records: [SyncTransportRecord]
    /// Names present on the transport but not read, over ``SyncListingLimits``: a caller must
    /// neither overwrite nor delete them on the strength of this listing.
    package var unread: Set<String>
    /// Where the next listing should resume (``SyncListingLimits/resumingAfter``) so that the
    /// names left unread come first; nil when nothing was left unread.
    package var resumeAfter: String?

    /// A listing of `records`, with `unread` names left unread, to resume after `resumeAfter`.
    package init(records: [SyncTransportRecord], unread: Set<String> = [], resumeAfter: String? = nil) {
        self.records = records
        self.unread = unread
        self.resumeAfter = resumeAfter
    }
}

extension SyncTransport {
    /// Records under `prefix` within `limits`, for transports that cannot list without reading
    /// (etcd answers with values): everything is listed, then the limits decide which records are
    /// handed on, so the merge never acts on more than the limits allow.
    package func list(prefix: String, within limits: SyncListingLimits) throws(SyncTransportError) -> SyncTransportListing {
        let all = try list(prefix: prefix)
        let selection = limits.select(all.map { ($0.name, $0.bytes.count) })
        return SyncTransportListing(records: selection.read.sorted().map { all[$0] }, unread: selection.unread,
                                    resumeAfter: selection.resumeAfter)
    }
}
