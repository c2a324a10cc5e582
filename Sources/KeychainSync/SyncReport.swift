/// What one synchronization did. Counts only: no names, no values.
package struct SyncReport: Sendable, Equatable {
    /// Local changes written to the transport (items and deletions).
    package var pushed = 0
    /// Remote changes applied to this keychain (items and deletions).
    package var pulled = 0
    /// Records, member lists or key wraps that did not verify (altered, written by a device that is
    /// not a member, of an unknown epoch, named for another item, dated too far ahead): never
    /// applied; a record is replaced by this device's version when it has one.
    package var refused = 0
    /// Local synchronizable items left out because their class is locked.
    package var locked = 0
    /// Local changes that lost to a newer version from another device: kept in the item's
    /// history (`keychainctl sync history`), not dropped.
    package var kept = 0
    /// Writes that lost a conditional publish race and were merged again.
    package var retried = 0
    /// Records left unread because the transport held more than one pass reads
    /// (``SyncListingLimits/standard``): neither applied nor overwritten nor deleted this pass.
    package var unread = 0
    /// Records of an epoch after the one this pass used, whoever signed them (counted in
    /// ``refused`` too): a record a removed device or a transport writer parked there is
    /// published over by the item's owner, never waited for.
    package var unknownEpoch = 0
    /// Of ``unknownEpoch``, records signed by a current member: left alone until this device has
    /// that epoch's keys (a membership change it has not caught up with), not overwritten.
    package var awaitingKeys = 0
    /// The epoch of the member list and keys this pass used.
    package var epoch: UInt32 = 0

    /// An empty report.
    package init() {}
}
