import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeychainSynchronizer {
    /// Records that the circle's records now live at `location` (the same records moved to
    /// another etcd cluster, git remote or folder): later operations open it. Nothing is read or
    /// trusted because of the move; the records there are verified as anywhere else.
    package func relocate(to location: String) throws(SyncError) {
        var state = try requireState()
        guard state.location != location else { return }
        state.location = location
        try state.save(to: database)
    }

    /// Accepts the transport's current history after it reported
    /// ``SyncTransportError/rewound(_:)`` and a person decided the rewind was intended (a git
    /// remote restored from a backup). Records missing from the rewound history are not taken as
    /// deletions: the next ``synchronize()`` publishes this device's versions of them again. For
    /// transports without a history (etcd, a folder) this does nothing.
    package func adoptRemoteHistory() throws(SyncError) {
        let state = try requireState()
        let transport = try openTransport(state.location, HexEncoding.string(state.circleID))
        guard let git = transport as? GitTransport else { return }
        try Self.transport { () throws(SyncTransportError) in try git.adoptRemoteHistory() }
    }
}
