#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux

/// One entry of the access log, as it is encrypted into the log file: an access, or the notice a
/// writer leaves when it found (and cut off) the incomplete entry of a writer that was killed.
package struct AccessLogEntry: Sendable, Equatable {
    /// What an entry records.
    package enum Content: Sendable, Equatable {
        /// A secret was read or an item written (or refused).
        case access(AccessEvent)
        /// A writer was killed while appending: `discardedBytes` bytes of its incomplete entry were
        /// cut off by the next writer at `time`. The access that writer was recording may or may not
        /// have happened (the secret is handed out only after the entry is durable, so a read did not).
        case interruptedWrite(time: Date, discardedBytes: Int)
    }

    /// The entry's place in the chain: 1 for the first entry the log ever had, then one more for each.
    package var sequence: UInt64
    /// What it records.
    package var content: Content

    /// When it was written.
    package var time: Date {
        switch content {
        case .access(let event): event.time
        case .interruptedWrite(let time, _): time
        }
    }
}

// MARK: - The encrypted payload (JSON inside the AEAD: field names are never seen on disk)

/// The JSON shape of an entry's content.
struct StoredContent: Codable {
    struct StoredLink: Codable {
        var pid: Int32
        var executable: String?
        var command: String?
        var startTime: UInt64
        var parentPID: Int32
    }

    var kind: String
    var time: Double
    var operation: AccessEvent.Operation?
    var label: String?
    var service: String?
    var account: String?
    var caller: [StoredLink]?
    var uid: UInt32?
    var channel: AccessEvent.Channel?
    var decision: AccessEvent.Decision?
    var discardedBytes: Int?
    var peer: String?
    var application: String?
    var provider: String?

    init(_ content: AccessLogEntry.Content) {
        switch content {
        case .access(let event):
            kind = "access"
            time = event.time.timeIntervalSince1970
            operation = event.operation
            label = event.item.label
            service = event.item.service
            account = event.item.account
            caller = event.caller.links.map {
                StoredLink(pid: $0.pid, executable: $0.executable, command: $0.commandName, startTime: $0.startTime,
                           parentPID: $0.parentPID)
            }
            uid = event.callerUID
            channel = event.channel
            decision = event.decision
            peer = event.peer
            application = event.application
            provider = event.provider
        case .interruptedWrite(let when, let bytes):
            kind = "interrupted-write"
            time = when.timeIntervalSince1970
            discardedBytes = bytes
        }
    }

    /// The content, or nil when the JSON (authenticated, so written by a writer of this log) has a
    /// shape this version does not know.
    var content: AccessLogEntry.Content? {
        let date = Date(timeIntervalSince1970: time)
        switch kind {
        case "access":
            guard let operation, let caller, !caller.isEmpty, let uid, let channel, let decision else { return nil }
            let links = caller.map {
                ProcessLineage.Link(pid: $0.pid, executable: $0.executable, commandName: $0.command,
                                    startTime: $0.startTime, parentPID: $0.parentPID)
            }
            return .access(AccessEvent(time: date, operation: operation,
                                       item: .init(label: label, service: service, account: account),
                                       caller: ProcessLineage(links: links), callerUID: uid, channel: channel,
                                       decision: decision, peer: peer, application: application, provider: provider))
        case "interrupted-write":
            guard let discardedBytes else { return nil }
            return .interruptedWrite(time: date, discardedBytes: discardedBytes)
        default:
            return nil
        }
    }
}
