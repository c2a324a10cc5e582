/// What one synchronization did. Counts only: no names, no values.
public struct SyncReport: Sendable, Equatable {
    /// Local changes written to etcd (items and deletions).
    public var pushed = 0
    /// Remote changes applied to this keychain (items and deletions).
    public var pulled = 0
    /// Records in etcd that did not authenticate (or were written with keys of a past epoch after
    /// a re-key): never applied; replaced by this device's version when it has one.
    public var refused = 0
    /// Local synchronizable items left out because their class is locked.
    public var locked = 0
    /// Writes that lost a compare-and-swap race and were merged again.
    public var retried = 0
    /// The etcd revision the synchronization read (a watch continues after it).
    public var revision: Int64 = 0

    /// An empty report.
    public init() {}
}
