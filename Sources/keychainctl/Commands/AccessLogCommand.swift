#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on the KeychainAudit dependency
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainLinux
import KeychainServiceCore
import KeychainToolSupport

/// `access-log [--since WHEN] [--json] [keychain]`: the keychain's access log, verified entry by
/// entry while it is read (docs/CLI.md, "Access log").
struct AccessLogCommand: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "access-log",
        abstract: "Show who read or wrote which secret, verifying the log's chain.",
        discussion: """
            Every secret read and every write through keychainctl (find -g/-w, dump-keychain -d, exec, add, \
            delete, import, import-credentials, git-credential) and through the Secret Service provider is \
            recorded with the caller's executable and parent chain. The whole log is verified; an edited, \
            removed, reordered or replaced entry, or newest entries cut off, fail the command (exit 65) \
            naming the entry. Exit 36: the keychain is locked (not unlocked since login). Exit 1: the log \
            cannot be read. Times are UTC.
            """)

    @Option(help: ArgumentHelp("Only entries at or after this time: ISO-8601 (2026-11-25, 2026-11-25T18:00:00Z, "
                               + "2026-11-25T19:00:00+01:00) or an age (90s, 30m, 1h, 2d, 1w).", valueName: "when"))
    var since: String?

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let start = try since.map { (text) throws(UsageFailure) in try Self.parseSince(text, now: Date()) }
        let contents: (entries: [AccessLogEntry], incompleteTailBytes: Int)
        if keychain == nil, let socket = Keychainctl.environment.configuration.serviceSocketPath {
            // Through the service: it writes the one log of every front end, and hands each user their own.
            do {
                contents = try ServiceAccessLogClient.read(socketPath: socket)
            } catch {
                throw UsageFailure(message: error.description, exitCode: Int32(UInt8(truncatingIfNeeded: error.status)))
            }
        } else {
            let target = try KeychainTarget.open(keychain)
            do {
                let read = try AccessLog(keychainAt: target.path, settings: try Keychainctl.environment.accessLogSettings()).read()
                contents = (read.entries, read.incompleteTailBytes)
            } catch {
                throw UsageFailure(message: AccessLogFailure.describe(error), exitCode: AccessRecording.exitCode(for: error))
            }
        }
        if let first = contents.entries.first, first.sequence > 1 {
            Console.error("keychainctl: access-log: entries before \(first.sequence) were rotated out (or removed with their files)")
        }
        if contents.incompleteTailBytes > 0 {
            Console.error("keychainctl: access-log: warning: the log ends with an incomplete entry (\(contents.incompleteTailBytes) "
                          + "bytes): a writer was killed while appending it; the next access will record that it was cut off")
        }
        let shown = contents.entries.filter { start == nil || $0.time >= start! }
        if json {
            for entry in shown { Console.out(try Self.jsonLine(entry)) }
        } else {
            Console.out("ENTRY  TIME (UTC)            OPERATION  DECISION           CHANNEL            UID    ITEM  ←  CALLER CHAIN")
            for entry in shown { Console.out(Self.tableLine(entry)) }
        }
    }

    // MARK: - --since

    /// The earliest time `text` asks for: an age before `now` (`90s`, `30m`, `1h`, `2d`, `1w`) or an
    /// ISO-8601 date (UTC midnight) or date and time with a zone.
    static func parseSince(_ text: String, now: Date) throws(UsageFailure) -> Date {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let unit = text.last, let seconds = units[unit], let count = Int(text.dropLast()), count >= 0 {
            return now.addingTimeInterval(-Double(count) * seconds)
        }
        if let date = ISO8601Text.date(from: text) { return date }
        throw UsageFailure(message: "--since \(text): expected an ISO-8601 date or time (2026-11-25, 2026-11-25T18:00:00Z) "
                           + "or an age such as 30m, 1h, 2d, 1w", exitCode: 64)
    }

    // MARK: - Output

    /// An entry's time as printed: ISO-8601 in UTC, to the second.
    static func timeText(_ date: Date) -> String {
        ISO8601Text.internetDateTime(date)
    }

    /// Text a client chose (labels, accounts, command names) shown in a terminal: control
    /// characters escaped, so a hostile label cannot forge a line of the table or move the cursor.
    static func printable(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func tableLine(_ entry: AccessLogEntry) -> String {
        let time = timeText(entry.time)
        func padded(_ text: String, _ width: Int) -> String { text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count) }
        switch entry.content {
        case .interruptedWrite(_, let bytes):
            return padded("\(entry.sequence)", 7) + padded(time, 22)
                + "(an incomplete entry of \(bytes) bytes, left by a writer that was killed, was cut off here)"
        case .access(let event):
            var item: [String] = []
            if let label = event.item.label { item.append("\"\(printable(label))\"") }
            if let service = event.item.service { item.append("service=\(printable(service))") }
            if let account = event.item.account { item.append("account=\(printable(account))") }
            if let peer = event.peer { item.append("device=\(printable(peer))") }
            if let application = event.application { item.append("app=\(printable(application))") }
            if let provider = event.provider { item.append("via=\(printable(provider))") }
            let chain = event.caller.links.map { link in
                "\(printable(link.executable ?? link.commandName.map { "(\($0))" } ?? "?"))[\(link.pid)]"
            }.joined(separator: " ← ")
            return padded("\(entry.sequence)", 7) + padded(time, 22) + padded(event.operation.rawValue, 11)
                + padded(event.decision.rawValue, 19) + padded(event.channel.rawValue, 19) + padded("\(event.callerUID)", 7)
                + (item.isEmpty ? "(no name)" : item.joined(separator: " ")) + "  ←  " + chain
        }
    }

    static func jsonLine(_ entry: AccessLogEntry) throws -> String {
        var object: [String: Any] = ["sequence": entry.sequence, "time": timeText(entry.time)]
        switch entry.content {
        case .interruptedWrite(_, let bytes):
            object["event"] = "interrupted-write"
            object["discardedBytes"] = bytes
        case .access(let event):
            object["event"] = "access"
            object["operation"] = event.operation.rawValue
            object["decision"] = event.decision.rawValue
            object["channel"] = event.channel.rawValue
            object["uid"] = event.callerUID
            var item: [String: Any] = [:]
            item["label"] = event.item.label
            item["service"] = event.item.service
            item["account"] = event.item.account
            object["item"] = item
            if let peer = event.peer { object["device"] = peer }
            if let application = event.application { object["application"] = application }
            if let provider = event.provider { object["provider"] = provider }
            object["caller"] = event.caller.links.map { link -> [String: Any] in
                var described: [String: Any] = ["pid": link.pid, "startTime": link.startTime, "parentPid": link.parentPID]
                described["executable"] = link.executable
                described["command"] = link.commandName
                return described
            }
        }
        return try JSONOutput.compact(object)
    }
}
#endif
