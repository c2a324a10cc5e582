#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

extension StoredContent {
    /// The content as the JSON the log encrypts: the members `JSONEncoder` writes for
    /// ``StoredContent`` (the same names and values, absent ones left out; the time as Swift's
    /// shortest text that reads back as the same `Double`), written with ``JSONWriter`` instead.
    /// Every read the Secret Service provider and the keychain service answer seals one entry,
    /// and `JSONEncoder`'s `Codable` machinery cost five times the entry's encryption (callgrind,
    /// docs/PERFORMANCE.md); the readers still decode it with `JSONDecoder`
    /// (`AccessLogEntryJSONTests` reads hostile texts back through the log's reader).
    func json() throws(AccessLogError) -> Data {
        // JSON has no number for NaN or an infinity (JSONEncoder refuses them too); a time is never one.
        guard time.isFinite else { throw .encryption(reason: "the entry could not be encoded: its time is not a finite number") }
        var members: [(String, JSONValue)] = [("kind", .string(kind)), ("time", JSONValue(.number(time.description)))]
        func add(_ key: String, _ value: JSONValue?) {
            if let value { members.append((key, value)) }
        }
        add("operation", operation.map { .string($0.rawValue) })
        add("label", label.map(JSONValue.string))
        add("service", service.map(JSONValue.string))
        add("account", account.map(JSONValue.string))
        add("caller", caller.map { links -> JSONValue in
            .array(links.map { link -> JSONValue in
                var fields: [(String, JSONValue)] = [("pid", Self.integer(link.pid))]
                if let executable = link.executable { fields.append(("executable", .string(executable))) }
                if let command = link.command { fields.append(("command", .string(command))) }
                fields.append(("startTime", .integer(link.startTime)))
                fields.append(("parentPID", Self.integer(link.parentPID)))
                return .object(fields)
            })
        })
        add("uid", uid.map { JSONValue.integer(UInt64($0)) })
        add("channel", channel.map { .string($0.rawValue) })
        add("decision", decision.map { .string($0.rawValue) })
        add("discardedBytes", discardedBytes.map { Self.integer($0) as JSONValue })
        add("peer", peer.map(JSONValue.string))
        add("application", application.map(JSONValue.string))
        add("provider", provider.map(JSONValue.string))
        return Data(JSONWriter.compact(.object(members)))
    }

    /// A signed integer as a JSON number.
    private static func integer<Value: SignedInteger>(_ value: Value) -> JSONValue {
        JSONValue(.number(String(value)))
    }
}
