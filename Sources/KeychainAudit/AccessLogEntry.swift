#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux
// JSONWriter: an entry's JSON without JSONEncoder's cost.
import KeychainPrimitives

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

    /// The JSON of this content as `JSONEncoder` writes it (the same members, in the same order,
    /// each absent one left out; `JSONDecoder` reads it back), written directly: an entry is
    /// encoded for every secret read through a long-lived writer, where `JSONEncoder` cost more
    /// than the rest of the entry's sealing.
    func json() throws(AccessLogError) -> [UInt8] {
        // JSONEncoder refuses a non-finite number; so does this (a time is never one in practice).
        guard time.isFinite else { throw .encryption(reason: "the entry could not be encoded: its time \(time) is not a finite number") }
        var members: [(String, JSONValue)] = [("kind", .string(kind)), ("time", JSONValue(.number(String(describing: time))))]
        members.reserveCapacity(16)
        if let operation { members.append(("operation", .string(operation.rawValue))) }
        if let label { members.append(("label", .string(label))) }
        if let service { members.append(("service", .string(service))) }
        if let account { members.append(("account", .string(account))) }
        if let caller {
            members.append(("caller", .array(caller.map { link in
                var fields: [(String, JSONValue)] = [("pid", Self.number(link.pid))]
                if let executable = link.executable { fields.append(("executable", .string(executable))) }
                if let command = link.command { fields.append(("command", .string(command))) }
                fields.append(("startTime", .integer(link.startTime)))
                fields.append(("parentPID", Self.number(link.parentPID)))
                return .object(fields)
            })))
        }
        if let uid { members.append(("uid", .integer(UInt64(uid)))) }
        if let channel { members.append(("channel", .string(channel.rawValue))) }
        if let decision { members.append(("decision", .string(decision.rawValue))) }
        if let discardedBytes { members.append(("discardedBytes", Self.number(discardedBytes))) }
        if let peer { members.append(("peer", .string(peer))) }
        if let application { members.append(("application", .string(application))) }
        if let provider { members.append(("provider", .string(provider))) }
        return JSONWriter.compact(.object(members))
    }

    private static func number(_ value: some BinaryInteger) -> JSONValue { JSONValue(.number(String(value))) }

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
