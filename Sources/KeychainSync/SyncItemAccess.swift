import KeychainVocabulary

/// One item a sync pass changed in this keychain or whose secret it read to publish, for the
/// keychain's access log (``KeychainSynchronizer/recordAccess``): what happened, the item's
/// non-secret names and the device whose version was applied. No secret in it.
package struct SyncItemAccess: Sendable, Equatable {
    /// What the pass did with the item.
    package enum Kind: String, Sendable {
        /// Another device's version was written into this keychain.
        case pulled = "sync-pull"
        /// Another device's deletion deleted the item here.
        case pulledDeletion = "sync-pull-delete"
        /// The item's secret was read here and published, sealed, to the circle.
        case published = "sync-publish"
        /// An earlier version of the item (from its history) was written back here by a restore.
        case restored = "sync-restore"
    }

    package var kind: Kind
    /// The item's label (`labl`), if it has one.
    package var label: String?
    /// Its service (`svce`) or server (`srvr`), if it has one.
    package var service: String?
    /// Its account (`acct`), if it has one.
    package var account: String?
    /// The id (hex) of the device whose version this was: the one that made the change pulled or
    /// restored, or this device for a publish.
    package var device: String

    init(_ kind: Kind, attributes: [String: AttributeValue], device: String) {
        self.kind = kind
        self.device = device
        func text(_ key: String) -> String? {
            if case .string(let value)? = attributes[key] { return value }
            return nil
        }
        label = text("labl")
        service = text("svce") ?? text("srvr")
        account = text("acct")
    }
}
