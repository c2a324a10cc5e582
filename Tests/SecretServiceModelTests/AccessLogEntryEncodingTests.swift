import Foundation
import KeychainAudit
import KeychainLinux
import Testing

/// An access-log entry's JSON is written without `JSONEncoder` (it is encoded for every secret
/// read): what a hostile caller controls — an item's label, service and account, a process's
/// command name and executable path — must come back from the log exactly as recorded, never
/// break out of its string into other members, and every member (optional ones included) must
/// survive the round trip through the file and `JSONDecoder`.
@Suite("Access log entry encoding: hostile names and every member read back as written")
struct AccessLogEntryEncodingTests {
    typealias Group = AccessLogGroupCommitTests

    /// Names built to break a hand-written JSON encoder: quotes and a forged member, backslashes,
    /// every control character, a NUL, line and paragraph separators, non-ASCII and astral text.
    static let hostileNames: [String] = [
        #"evil", "operation": "delete", "x": ""#,
        #"back\slash \" \\" \u0041"#,
        String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}",
        "line\u{2028}para\u{2029}end /slash/ <script>",
        "ключ 鍵 🔑 e\u{301}",
        "",
    ]

    @Test("every member, with hostile names, reads back from the log as the same event")
    func hostileNamesRoundTrip() throws {
        try Group.withLog { log in
            let chain = ProcessLineage(links: [
                ProcessLineage.Link(pid: 2_147_483_647, executable: "/opt/a \"b\"/c\\d\n", commandName: "cmd\u{0}\"}",
                                    startTime: UInt64.max, parentPID: -1),
                ProcessLineage.Link(pid: 1, executable: nil, commandName: nil, startTime: 0, parentPID: 0),
            ])
            var events: [AccessEvent] = []
            for (index, name) in Self.hostileNames.enumerated() {
                let operation = AccessEvent.Operation.allCases[index % AccessEvent.Operation.allCases.count]
                let channel = AccessEvent.Channel.allCases[index % AccessEvent.Channel.allCases.count]
                let decision = AccessEvent.Decision.allCases[index % AccessEvent.Decision.allCases.count]
                events.append(AccessEvent(time: Date(timeIntervalSince1970: 1_764_403_200.123_456_7 + Double(index) / 3),
                                          operation: operation, item: .init(label: name, service: name, account: name),
                                          caller: chain, callerUID: UInt32.max - UInt32(index), channel: channel, decision: decision,
                                          peer: name, application: name, provider: name))
            }
            // Absent optional members are left out, not written as something else.
            events.append(AccessEvent(time: Date(timeIntervalSince1970: 0), operation: .read,
                                      item: .init(label: nil, service: nil, account: nil), caller: chain, callerUID: 0,
                                      channel: .keychainService, decision: .trusted))
            let group = AccessLogGroupCommit(log: log, checkpointDelay: 0, syncBound: 0)
            for event in events { try group.record(event) }

            let read = try AccessLog(files: log.files).read().entries.compactMap { entry -> AccessEvent? in
                guard case .access(let event) = entry.content else { return nil }
                return event
            }
            #expect(read.count == events.count)
            for (written, found) in zip(events, read) {
                // The time goes through seconds since 1970 as a Double, as it always has: compared to the microsecond.
                #expect(abs(found.time.timeIntervalSince(written.time)) < 1e-6)
                var same = found
                same.time = written.time
                #expect(same == written, "entry for \(String(reflecting: written.item.label)) read back as \(found)")
            }
            // The transport form (what `keychainctl access-log` receives) carries the same event.
            let entries = try AccessLog(files: log.files).read().entries
            for entry in entries {
                let copy = try #require(AccessLogEntry(sequence: entry.sequence, transportForm: try entry.transportForm))
                #expect(copy == entry)
            }
        }
    }
}
