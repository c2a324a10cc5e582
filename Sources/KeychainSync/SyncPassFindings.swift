/// What a sync pass left unapplied, remembered in the circle state so that `sync status` can show
/// it between passes: counts only, no names.
package struct SyncPassFindings: Codable, Sendable, Equatable {
    /// Records left unread over the per-pass limits (``SyncReport/unread``).
    package var unread: Int
    /// Records that did not verify (``SyncReport/refused``).
    package var refused: Int
    /// Records of an epoch after this device's (``SyncReport/unknownEpoch``).
    package var unknownEpoch: Int
    /// Of those, records a current member signed, waiting for that epoch's keys
    /// (``SyncReport/awaitingKeys``).
    package var awaitingKeys: Int

    /// The findings of `report`.
    package init(_ report: SyncReport) {
        unread = report.unread
        refused = report.refused
        unknownEpoch = report.unknownEpoch
        awaitingKeys = report.awaitingKeys
    }
}
