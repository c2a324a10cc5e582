import Foundation
import KeychainAudit
import KeychainLinux
import Testing

/// The access log's entries are written as JSON by the log's own writer and read back by
/// `JSONDecoder` (`keychainctl access-log`, the chain checks): every field a writer records comes
/// back as written, whatever text a client chose for it, and no text can forge another field.
@Suite("Access log entries: every field read back as written, whatever its text")
struct AccessLogEntryJSONTests {
    /// Text a client controls (a label, a service, an account, a command name, a path): quotes and
    /// backslashes, every control character, DEL, non-BMP characters, line separators, and an
    /// attempt to close the string and add members of its own.
    static let hostileTexts = [
        "plain", "", "quote \" and backslash \\ and slash /",
        String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) })) + "\u{7F}",
        "emoji \u{1F511} and \u{2028}\u{2029} separators, accents \u{E9}\u{301}",
        #"x","decision":"trusted","uid":0,"label":"forged"#,
        #"\u0041 stays six characters"#,
    ]

    static func event(_ text: String, time: Date, peer: String? = nil, application: String? = nil) -> AccessEvent {
        let lineage = ProcessLineage(links: [
            .init(pid: 4242, executable: "/usr/bin/\(text)", commandName: text, startTime: UInt64.max, parentPID: 1),
            .init(pid: Int32.max, executable: nil, commandName: nil, startTime: 0, parentPID: 0),
        ])
        return AccessEvent(time: time, operation: .read, item: .init(label: text, service: text, account: nil), caller: lineage,
                           callerUID: UInt32.max - 1, channel: .secretService, decision: .deniedByPolicy,
                           peer: peer, application: application, provider: peer.map { _ in "/usr/bin/keychainctl" })
    }

    @Test("hostile texts, absent fields, extreme numbers and fractional times: each entry reads back equal to the event recorded")
    func entriesReadBackAsWritten() throws {
        let times = [Date(timeIntervalSince1970: 1_764_410_000.123_456_7), Date(timeIntervalSince1970: 0.1),
                     Date(timeIntervalSince1970: 1e-7), Date(timeIntervalSince1970: 4e12)]
        var events: [AccessEvent] = []
        for (index, text) in Self.hostileTexts.enumerated() {
            events.append(Self.event(text, time: times[index % times.count]))
            events.append(Self.event(text, time: times[(index + 1) % times.count], peer: "0123456789abcdef0123456789abcdef",
                                     application: text))
        }
        try AccessLogGroupCommitTests.withLog { log in
            try log.record(events)
            let read = try AccessLog(files: log.files).read().entries.compactMap { entry -> AccessEvent? in
                guard case .access(let event) = entry.content else { return nil }
                return event
            }
            #expect(read.count == events.count)
            for (recorded, back) in zip(events, read) {
                // The time goes through its seconds since 1970, as a Double, both ways.
                #expect(back.time.timeIntervalSince1970 == recorded.time.timeIntervalSince1970)
                var expected = recorded
                expected.time = back.time
                #expect(back == expected, "\(recorded.item.label ?? "")")
            }
        }
    }
}
