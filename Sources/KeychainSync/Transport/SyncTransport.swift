#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A place where devices of a circle leave records for each other: named byte strings, nothing
/// more. etcd, a git remote and a shared folder are transports.
///
/// The sync protocol trusts nothing a transport reports: not the order of records, not revisions,
/// not which names exist, not who wrote them. Every record it acts on carries its own signature,
/// epoch and authenticated name, checked before use. A transport only moves bytes; the
/// conditional publish below exists to avoid lost updates between honest devices, never to decide
/// what is accepted.
///
/// Names are relative paths of `[a-z0-9/._-]`, at most 255 bytes, no `..` component (for example
/// `keys`, `members/<hex>`, `items/<hex>`); a transport maps them onto its own namespace (an etcd
/// key prefix, a file in a repository or a folder). No component is empty or starts with `.`
/// (`.git`, `.stfolder`: what git and sync tools treat specially); `TransportRecordName` checks all this.
package protocol SyncTransport: AnyObject, Sendable {
    /// Where the records live, for messages (an endpoint list, a URL without credentials, a path).
    var location: String { get }

    /// Brings the transport's view up to date (a git fetch; nothing for etcd or a folder).
    /// Fails with ``SyncTransportError/unreachable(_:)`` when offline: callers then work on what
    /// they last fetched and publish later.
    func refresh() throws(SyncTransportError)

    /// Every record whose name starts with `prefix`, as last refreshed, with a version token each.
    /// A name may appear more than once, with different versions, where the transport holds
    /// several candidates for one record (a shared folder's sync-tool conflict copies): the
    /// protocol chooses between them by their authenticated fields.
    func list(prefix: String) throws(SyncTransportError) -> [SyncTransportRecord]

    /// The records under `prefix` that fit `limits` (smallest first), and the names of those that
    /// do not, which are never read (see ``SyncListingLimits``). A name with any candidate left
    /// unread appears only in ``SyncTransportListing/unread``.
    func list(prefix: String, within limits: SyncListingLimits) throws(SyncTransportError) -> SyncTransportListing

    /// One record, or nil when there is none.
    func read(_ name: String) throws(SyncTransportError) -> SyncTransportRecord?

    /// Publishes writes and removals together where the transport can (one git commit, one etcd
    /// transaction), else one by one. A change with an `expected` token is applied only if the
    /// record still has that token (nil: only if absent); otherwise the call throws
    /// ``SyncTransportError/conflict(_:)`` naming the records that moved, and the caller lists
    /// again, merges and retries. Transports that cannot compare (a folder) say so in
    /// ``supportsConditionalPublish`` and apply the changes unconditionally.
    func publish(_ changes: [SyncTransportChange]) throws(SyncTransportError)

    /// Whether ``publish(_:)`` honours `expected` tokens.
    var supportsConditionalPublish: Bool { get }

    /// Returns when records under `prefix` may have changed (true) or at `deadline` (false):
    /// a watch where the transport has one, a poll otherwise. Never later than `deadline`, even
    /// while data keeps arriving.
    func waitForChange(prefix: String, until deadline: ContinuousClock.Instant) throws(SyncTransportError) -> Bool
}

/// One record as a transport holds it.
package struct SyncTransportRecord: Sendable, Equatable {
    /// The record's name (see ``SyncTransport``).
    package var name: String
    /// The record's bytes, exactly as published.
    package var bytes: Data
    /// The transport's opaque version of this record (an etcd mod revision, a git blob id, a file's
    /// content digest), used only for conditional publishing.
    package var version: String

    /// A record with its version token.
    package init(name: String, bytes: Data, version: String) {
        self.name = name
        self.bytes = bytes
        self.version = version
    }
}

/// One change to publish.
package struct SyncTransportChange: Sendable, Equatable {
    /// What to do with the record.
    package enum Operation: Sendable, Equatable {
        /// Store these bytes under the name.
        case write(Data)
        /// Remove the record.
        case remove
    }

    /// The record's name.
    package var name: String
    /// Write or remove.
    package var operation: Operation
    /// Apply only if the record still has this version; `.some(nil)` only if it is absent;
    /// `nil` applies unconditionally.
    package var expected: String??

    /// A change, conditional on `expected` when given.
    package init(name: String, operation: Operation, expected: String?? = nil) {
        self.name = name
        self.operation = operation
        self.expected = expected
    }
}

/// Why a transport call failed. Messages name the location and the cause, never record contents.
package enum SyncTransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The transport could not be reached (offline, refused, timed out): the reason.
    case unreachable(String)
    /// A conditional publish found these records changed since they were read.
    case conflict([String])
    /// The transport refused us (authentication, permissions, TLS): the reason and the fix.
    case refused(String)
    /// The transport's history moved backwards (a git force-push that rewound the remote):
    /// nothing is applied as a deletion; the reason says what was seen.
    case rewound(String)
    /// The transport answered with something malformed or over a limit: the reason.
    case malformed(String)
    /// A record name outside the allowed alphabet or length.
    case invalidName(String)

    /// A sentence for people and logs.
    package var description: String {
        switch self {
        case .unreachable(let reason): return "the sync transport is unreachable: \(reason)"
        case .conflict(let names): return "records changed while publishing (\(names.count)); list again and retry"
        case .refused(let reason): return "the sync transport refused the request: \(reason)"
        case .rewound(let reason): return "the sync transport's history moved backwards: \(reason)"
        case .malformed(let reason): return "the sync transport answered with malformed data: \(reason)"
        case .invalidName(let name): return "not a valid record name: \(name)"
        }
    }
}
