import Foundation
import Testing
@testable import keychainctl

/// keychainctl prints dates, numbers and JSON with FoundationEssentials alone (so its static binary
/// carries no ICU data): each replacement must give the bytes Foundation's `JSONSerialization`, `ISO8601DateFormatter`,
/// `DateFormatter`, `String(format:)` and `NSString.standardizingPath` gave, which scripts and
/// users read. Each test compares with Foundation itself on the inputs that matter, and pins a
/// few texts literally.
@Suite("keychainctl output without Foundation")
struct EssentialsOutputTests {
    // MARK: JSON

    /// Objects like the ones keychainctl prints: items (flags, numbers, dates as text, escapes),
    /// the access log's lines, `app-access list` (nulls, empty lists), `show-keychain-info`.
    static var objects: [Any] { [
        ["keychain": "/home/u/.local/share/keychainkit/login.keychain-db", "class": "genp", "password": "s3cret \"quoted\" \\ / é 🔑",
         "attributes": ["account": "alice", "service": "api", "created": "2026-11-25T18:00:00Z", "port": 443, "synchronizable": true,
                        "invisible": false, "negative": NSNumber(value: false), "type": NSNumber(value: 1_684_235_365),
                        "comment": "line\nbreak\ttab\u{1}\u{7f}", "generic": "0xDEADBEEF", "accessGroup": "g", "accessible": "ak",
                        "authenticationType": "dflt", "viewHint": "", "tokenID": "t"] as [String: Any]],
        [["a": 1], ["b": [] as [Any]], ["c": [:] as [String: Any]], ["d": [1, 2, [3]] as [Any]]] as [Any],
        ["sequence": 7, "time": "2026-11-25T18:00:00Z", "event": "access", "uid": UInt32(1000), "discardedBytes": Int64(-3),
         "caller": [["pid": Int32(42), "startTime": UInt64(123_456_789_012), "parentPid": 1, "executable": "/usr/bin/git"]],
         "item": ["label": "L"]] as [String: Any],
        ["keychain": "service", "policy": "confirm",
         "items": [["id": "1", "label": "x", "service": NSNull(), "account": "a", "creator": NSNull(), "trusted": [] as [Any]]]] as [String: Any],
        ["locked": false, "lockOnSleep": false, "timeout": 300, "ratio": 1.5, "whole": 2.0, "tiny": 0.25] as [String: Any],
        [:] as [String: Any],
    ] }

    /// Foundation's NSNull becomes our JSONNull (keychainctl writes JSONNull where it wrote NSNull).
    static func withoutFoundationNull(_ value: Any) -> Any {
        switch value {
        case is NSNull: return JSONNull()
        case let dictionary as [String: Any]: return dictionary.mapValues(withoutFoundationNull)
        case let array as [Any]: return array.map(withoutFoundationNull)
        default: return value
        }
    }

    @Test func jsonIsWhatJSONSerializationWrote() throws {
        for object in Self.objects {
            let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            let compact = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            let ours = Self.withoutFoundationNull(object)
            let (ourPretty, ourCompact) = (try JSONOutput.prettyPrinted(ours), try JSONOutput.compact(ours))
            let (theirPretty, theirCompact) = (String(decoding: pretty, as: UTF8.self), String(decoding: compact, as: UTF8.self))
            let prettyMatches = ourPretty == theirPretty
            let compactMatches = ourCompact == theirCompact
            #expect(prettyMatches, "pretty: \(ourPretty) vs \(theirPretty)")
            #expect(compactMatches, "compact: \(ourCompact) vs \(theirCompact)")
        }
    }

    @Test func jsonKeysSortAsJSONSerializationSortedThem() throws {
        // Letters of both cases and digit runs: Foundation compares numerically and regardless of
        // case, then puts the shorter and the lower-case key first.
        var keys = ["a", "A", "b", "B", "ab", "aB", "Ab", "AB", "a1", "a01", "a001", "a2", "a10", "a9", "x2y", "x10y", "0", "9", "10",
                    "accessGroup", "accessible", "account", "tokenID", "tokenid", "type", "passwordHex", "password", "Z", "z1", "Z1"]
        var generator = SeededKeyGenerator(seed: 37)  // the same keys every run
        let alphabet = Array("aAbBzZ019")
        for _ in 0..<2000 {
            keys.append(String((0..<Int.random(in: 1...5, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        let object = Dictionary(keys.map { ($0, 0) }, uniquingKeysWith: { first, _ in first })
        let foundation = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        let ours = try JSONOutput.compact(object)
        let same = ours == foundation
        #expect(same, "ours: \(ours)\nFoundation: \(foundation)")
    }

    @Test func whatJSONCannotHoldIsAnErrorNamingIt() {
        #expect(throws: JSONOutput.Unrepresentable.self) { try JSONOutput.compact(["when": Date()]) }
        #expect(throws: JSONOutput.Unrepresentable.self) { try JSONOutput.compact([Double.nan]) }
    }

    // MARK: Dates

    /// Instants around the edges Foundation's formatters round at (the millisecond, then the second).
    static let instants: [TimeInterval] = [0, 0.4994, 0.9994, 0.9995, 0.9996, -0.0004, -0.0005, -0.0006, -0.5, -1.5,
                                           1_795_629_600, 1_795_629_600.9995, 1_795_629_600.99949, 1_795_629_600.123_456,
                                           1_764_410_000.987, 86_399.9999, 951_782_400, 4_102_444_799.999]

    @Test func datesPrintAsISO8601DateFormatterPrintedThem() {
        let internet = ISO8601DateFormatter()
        internet.formatOptions = [.withInternetDateTime]
        let compact = DateFormatter()
        compact.locale = Locale(identifier: "en_US_POSIX")
        compact.timeZone = TimeZone(identifier: "UTC")
        compact.dateFormat = "yyyyMMddHHmmss'Z'"
        for seconds in Self.instants {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ISO8601Text.internetDateTime(date) == ISO8601DateFormatter().string(from: date), "\(seconds)")
            #expect(ISO8601Text.internetDateTime(date) == internet.string(from: date), "\(seconds)")
            #expect(ISO8601Text.compact(date) == compact.string(from: date), "\(seconds)")
        }
        #expect(ISO8601Text.internetDateTime(Date(timeIntervalSince1970: 1_795_629_600.9995)) == "2026-11-25T18:00:01Z")
        #expect(ISO8601Text.compact(Date(timeIntervalSince1970: 1_795_629_600.4)) == "20261125180000Z")
        #expect(AccessLogCommand.timeText(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    }

    @Test func sinceReadsWhatISO8601DateFormatterRead() throws {
        func foundation(_ text: String) -> Date? {
            let formats: [ISO8601DateFormatter.Options] = [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]]
            for options in formats {
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = options
                if let date = formatter.date(from: text) { return date }
            }
            return nil
        }
        let texts = ["2026-11-25", "2026-11-25T18:00:00Z", "2026-11-25T18:00:00.123Z", "2026-11-25T18:00:00.1239Z", "2026-11-25T18:00:00.9999Z",
                     "2026-11-25T18:00:00.123456789Z", "2026-11-25T18:00:00+01:00", "2026-11-25T18:00:00+0100", "2026-11-25T18:00:00.5+01:00",
                     "2026-11-25T18:00:00-05:30", "2026-11-25 18:00:00Z", "2026-11-25T18:00Z", "2026-11-25T18:00:00", "2026-11-25T23:59:59Z",
                     "2026-11-25T24:00:00Z", "2026-11-25T25:00:00Z", "2026-11-25T18:60:00Z", "2026-11-25T18:00:60Z", "2026-02-30",
                     "2026-11-25x", "2026-11-25T18:00:00Zjunk", " 2026-11-25", "\t2026-11-25T18:00:00Z", "2026-1-5", "0000-01-01",
                     "20261125", "2026-13-40", "+2026-11-25", "yesterday", ""]
        for text in texts {
            let expected = foundation(text)
            let parsed = ISO8601Text.date(from: text)
            #expect((expected == nil) == (parsed == nil), "\(text): \(String(describing: expected)) vs \(String(describing: parsed))")
            if let expected, let parsed {
                #expect(abs(expected.timeIntervalSince1970 - parsed.timeIntervalSince1970) < 1e-6, "\(text): \(expected) vs \(parsed)")
            }
        }
        let now = Date(timeIntervalSince1970: 1_795_629_600)
        #expect(try AccessLogCommand.parseSince("2026-11-25", now: now) == Date(timeIntervalSince1970: 1_795_564_800))
        #expect(try AccessLogCommand.parseSince("1h", now: now) == Date(timeIntervalSince1970: 1_795_626_000))
        #expect(throws: UsageFailure.self) { try AccessLogCommand.parseSince("yesterday", now: now) }
    }

    // MARK: Items as security(1) prints them

    @Test func anItemPrintsAsBefore() {
        let item: [String: Any] = [
            "acct": "al\u{1}ice\u{7f}\"\\\n", "svce": Data([0xFF, 0x00]), "cdat": Date(timeIntervalSince1970: 1_795_629_600.9995),
            "port": 443, "sync": true, "invi": NSNumber(value: false), "type": NSNumber(value: 7), "ptcl": "htps", "class": "genp",
        ]
        let expected = """
            keychain: "/k"
            class: "genp"
            attributes:
                "acct"<blob>="al\\001ice\\177\\"\\\\\\n"
                "cdat"<timedate>="20261125180001Z"
                "invi"<sint32>=0
                "port"<uint32>=443
                "ptcl"<uint32>="htps"
                "svce"<blob>=0xFF00
                "sync"<sint32>=1
                "type"<uint32>=7
            """
        #expect(ItemFormatter.text(item, itemClass: "genp", keychainPath: "/k") == expected)
    }

    @Test func anItemAsJSONIsAsBefore() throws {
        let item: [String: Any] = ["acct": "a", "cdat": Date(timeIntervalSince1970: 0), "port": 8080, "sync": 1, "invi": false, "v_Data": Data()]
        let object = ItemFormatter.json(item, itemClass: "inet", keychainPath: "/k", secret: Data([0xFF]))
        let expected = """
            {
              "attributes" : {
                "account" : "a",
                "created" : "1970-01-01T00:00:00Z",
                "invisible" : false,
                "port" : 8080,
                "synchronizable" : true
              },
              "class" : "inet",
              "keychain" : "/k",
              "passwordHex" : "FF"
            }
            """
        #expect(try ItemFormatter.serialise(object) == expected)
    }

    // MARK: Standard output

    /// Output that cannot be written (here /dev/full: a full disk) is a failure the caller sees:
    /// status 1 and the reason on standard error, never a success, never a crash.
    @Test func anUnwritableStandardOutputFailsTheCommand() throws {
        let sandbox = try ToolSandbox()
        defer { sandbox.cleanUp() }
        let errorPath = sandbox.directory + "/stderr"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sandbox.tool("keychainctl"))
        process.arguments = ["--version"]
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
        process.waitUntilExit()
        let stderr = String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 1, "status \(process.terminationStatus): \(stderr)")
        #expect(stderr.contains("cannot write to standard output: No space left on device"), "\(stderr)")
    }

    // MARK: Paths

    @Test func recordedPathsAreStandardizedAsNSStringDid() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("kk-standardize-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch + "/real/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createSymbolicLink(atPath: scratch + "/link", withDestinationPath: scratch + "/real")
        try FileManager.default.createSymbolicLink(atPath: scratch + "/relative", withDestinationPath: "real/sub")
        let paths = ["/", "/..", "/a/../../b", "/a/./b//c/", scratch + "/link/x", scratch + "/link/../y", scratch + "/link/sub/..",
                     scratch + "/nothing/../z", scratch + "/real/sub/", scratch]
        for path in paths {
            #expect(KeychainLocationPath.standardized(path) == (path as NSString).standardizingPath, "\(path)")
        }
        // A link to a relative target is resolved from the link's folder. (Foundation on Linux
        // resolves it from the working directory, and keeps the link when that names nothing.)
        #expect(KeychainLocationPath.standardized(scratch + "/relative/z") == scratch + "/real/sub/z")
        #expect(KeychainLocationPath.standardized(scratch + "/relative/../w") == scratch + "/real/w")
    }
}

/// A seeded generator (SplitMix64), so that a failing set of keys comes back on the next run.
private struct SeededKeyGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
