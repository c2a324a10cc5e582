import Foundation
import KeychainTestSupport
import Testing

/// The access log seen from outside: keychainctl processes read and write, `access-log` shows and
/// verifies what they recorded, and the tests play the adversary on the log's files (edit, remove,
/// reorder, cut, replace) and the writers (concurrent, SIGKILLed mid-append).
@Suite("keychainctl access log")
struct AccessLogTests {
    /// One entry as `access-log --json` prints it.
    struct Entry {
        var sequence: Int
        var event: String
        var operation: String?
        var channel: String?
        var decision: String?
        var label: String?
        var service: String?
        var account: String?
        var caller: [[String: Any]]

        init(_ line: Substring) throws {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            sequence = try #require(object["sequence"] as? Int)
            event = try #require(object["event"] as? String)
            operation = object["operation"] as? String
            channel = object["channel"] as? String
            decision = object["decision"] as? String
            let item = object["item"] as? [String: Any] ?? [:]
            label = item["label"] as? String
            service = item["service"] as? String
            account = item["account"] as? String
            caller = object["caller"] as? [[String: Any]] ?? []
        }
    }

    /// `access-log --json` of the sandbox's default keychain, which must verify.
    static func entries(_ sandbox: ToolSandbox, _ extra: [String] = []) throws -> [Entry] {
        let shown = try sandbox.keychainctl(["access-log", "--json"] + extra)
        #expect(shown.status == 0, "access-log: \(shown.stderr)")
        return try shown.stdout.split(separator: "\n").map(Entry.init)
    }

    static func logPath(_ sandbox: ToolSandbox) -> String { sandbox.keychainPath + ".access-log" }


    static func add(_ sandbox: ToolSandbox, service: String, account: String, secret: String, label: String? = nil) throws {
        let labelArguments = label.map { ["-l", $0] } ?? []
        let added = try sandbox.keychainctl(["add-generic-password", "-a", account, "-s", service] + labelArguments + ["-w"],
                                            stdin: secret + "\n")
        #expect(added.status == 0, "add: \(added.stderr)")
    }

    static func read(_ sandbox: ToolSandbox, service: String, environment: [String: String] = [:]) throws -> ToolRun {
        try sandbox.keychainctl(["find-generic-password", "-s", service, "-w"], environment: environment)
    }

    @Test("N reads and M writes from a shell script give exactly those N+M entries, each with keychainctl ← the script's shell")
    func exactEntriesWithCallerChain() throws {
        try withSandbox { (sandbox) throws in
            let script = sandbox.directory + "/accesses.sh"
            let tool = sandbox.tool("keychainctl")
            try """
                echo $$ > "\(sandbox.directory)/shell.pid"
                echo one | "\(tool)" add-generic-password -a alice -s mail -l "Mail" -w
                echo two | "\(tool)" add-generic-password -a bob -s chat -w
                echo three | "\(tool)" add-generic-password -a bob -s chat -U -w
                "\(tool)" find-generic-password -s mail -w > /dev/null
                "\(tool)" find-generic-password -s chat -g > /dev/null 2>&1
                "\(tool)" find-generic-password -s nothing-here -w > /dev/null 2>&1
                "\(tool)" find-generic-password -s mail > /dev/null
                "\(tool)" delete-generic-password -s chat > /dev/null
                printf 'protocol=https\\nhost=git.example\\nusername=carol\\npassword=pw\\n' | "\(tool)" git-credential store
                printf 'protocol=https\\nhost=git.example\\n' | "\(tool)" git-credential get > /dev/null
                "\(tool)" exec --env MAIL=mail -- /bin/true
                """.write(toFile: script, atomically: true, encoding: .utf8)
            let ran = try sandbox.run("/bin/sh", [script])
            #expect(ran.status == 0, "script: \(ran.stderr)")
            let shellPID = Int(try String(contentsOfFile: sandbox.directory + "/shell.pid", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines))
            let shellPath = try #require(realpath("/bin/sh", nil).map { resolved in
                defer { free(resolved) }
                return String(cString: resolved)
            })  // /bin/sh -> dash, /bin -> /usr/bin: the kernel names the real file

            let entries = try Self.entries(sandbox)
            // The not-found read and the attributes-only find hand out no secret: not logged.
            let expected: [(String, String, String, String?)] = [
                ("create", "mail", "keychainctl", "alice"), ("create", "chat", "keychainctl", "bob"),
                ("update", "chat", "keychainctl", "bob"), ("read", "mail", "keychainctl", nil),
                ("read", "chat", "keychainctl", "bob"), ("delete", "chat", "keychainctl", "bob"),
                ("create", "git.example", "git-credential", "carol"), ("read", "git.example", "git-credential", "carol"),
                ("read", "mail", "keychainctl", "alice"),
            ]
            try #require(entries.count == expected.count, "entries: \(entries.map { "\($0.operation ?? $0.event) \($0.service ?? "")" })")
            for (index, (entry, want)) in zip(entries, expected).enumerated() {
                #expect(entry.sequence == index + 1)
                #expect(entry.event == "access")
                #expect(entry.operation == want.0 && entry.service == want.1 && entry.channel == want.2, "entry \(index + 1)")
                if let account = want.3 { #expect(entry.account == account, "entry \(index + 1)") }
                #expect(entry.decision == "not-applicable")
                let process = try #require(entry.caller.first)
                #expect((process["executable"] as? String)?.hasSuffix("/keychainctl") == true)
                let parent = try #require(entry.caller.dropFirst().first, "entry \(index + 1) names the parent")
                #expect(parent["pid"] as? Int == shellPID, "the parent is the script's shell")
                #expect(parent["executable"] as? String == shellPath)
                #expect(process["parentPid"] as? Int == shellPID)
            }
            #expect(entries[0].label == "Mail")
        }
    }

    @Test("find-generic-password -w and find-internet-password -w record the item read, not the query typed")
    func bareSecretReadNamesTheItem() throws {
        try withSandbox { (sandbox) throws in
            let add = try sandbox.keychainctl(["add-generic-password", "-a", "alice", "-s", "bank", "-l", "Bank login", "-D", "finance", "-w"],
                                              stdin: "pw1\n")
            #expect(add.status == 0, "\(add.stderr)")
            let inet = try sandbox.keychainctl(["add-internet-password", "-a", "bob", "-s", "git.example.com", "-r", "htps", "-w"], stdin: "pw2\n")
            #expect(inet.status == 0, "\(inet.stderr)")
            let byKind = try sandbox.keychainctl(["find-generic-password", "-D", "finance", "-w"])
            #expect(byKind.stdout == "pw1\n", "\(byKind.stderr)")
            let byAccount = try sandbox.keychainctl(["find-internet-password", "-a", "bob", "-w"])
            #expect(byAccount.stdout == "pw2\n", "\(byAccount.stderr)")

            let reads = try Self.entries(sandbox).filter { $0.operation == "read" }
            #expect(reads.count == 2)
            #expect(reads.first.map { [$0.label, $0.service, $0.account] } == ["Bank login", "bank", "alice"])
            #expect(reads.last.map { [$0.service, $0.account] } == ["git.example.com", "bob"])
        }
    }

    @Test("docker-credential-keychainkit records store, get and erase in the default keychain's log")
    func dockerHelper() throws {
        try withSandbox { (sandbox) throws in
            let stored = try sandbox.docker(["store"], stdin: #"{"ServerURL":"https://registry.example","Username":"dora","Secret":"tok"}"#)
            #expect(stored.status == 0, "store: \(stored.stdout)")
            let got = try sandbox.docker(["get"], stdin: "https://registry.example")
            #expect(got.status == 0 && got.stdout.contains("tok"), "get: \(got.stdout)")
            #expect(try sandbox.docker(["erase"], stdin: "https://registry.example").status == 0)
            let entries = try Self.entries(sandbox)
            #expect(entries.map { $0.operation ?? "" } == ["update", "read", "delete"])
            #expect(entries.allSatisfy { $0.channel == "docker-credential" && $0.service == "registry.example" })
            #expect(entries.allSatisfy { ($0.caller.first?["executable"] as? String)?.hasSuffix("/docker-credential-keychainkit") == true })
        }
    }

    @Test("the log's bytes hold no secret, label, account, service or executable in the clear")
    func nothingInTheClear() throws {
        try withSandbox { (sandbox) throws in
            try Self.add(sandbox, service: "svc-Plain-7f3a", account: "acct-Plain-9b2c", secret: "S3cret-Value-4d1e",
                         label: "Label-Plain-0a5f")
            #expect(try Self.read(sandbox, service: "svc-Plain-7f3a").stdout == "S3cret-Value-4d1e\n")
            let dumped = try sandbox.keychainctl(["dump-keychain", "-d", "--json"])
            #expect(dumped.status == 0, "dump: \(dumped.stderr)")
            // The log's key item is never listed or handed out: its reader could forge entries.
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(dumped.stdout.utf8)) as? [[String: Any]])
            #expect(listed.count == 1, "only the user's item: \(listed.map { $0["service"] ?? "?" })")
            let key = try sandbox.keychainctl(["find-generic-password", "-s", "KeychainKit access log", "-w"])
            #expect(key.status == 44 && key.stdout.isEmpty)
            let log = try Data(contentsOf: URL(fileURLWithPath: Self.logPath(sandbox)))
            #expect(AccessLogFrames.ranges(in: log).count == 3)
            for needle in ["S3cret-Value-4d1e", "Label-Plain-0a5f", "acct-Plain-9b2c", "svc-Plain-7f3a", "keychainctl", "read"] {
                #expect(log.range(of: Data(needle.utf8)) == nil, "\(needle) is in the log file")
            }
            let info = try FileManager.default.attributesOfItem(atPath: Self.logPath(sandbox))
            #expect((info[.posixPermissions] as? Int) == 0o600)
            // The table shows them (decrypted).
            let table = try sandbox.keychainctl(["access-log"])
            #expect(table.status == 0)
            #expect(table.stdout.contains("\"Label-Plain-0a5f\" service=svc-Plain-7f3a account=acct-Plain-9b2c"))
            #expect(!table.stdout.contains("S3cret-Value-4d1e"))
        }
    }

    /// A log of five entries (one add, four reads), the current file's bytes, and the frames in it.
    static func fiveEntryLog(_ sandbox: ToolSandbox) throws -> (Data, [Range<Int>]) {
        try add(sandbox, service: "svc", account: "acct", secret: "pw")
        for _ in 0..<4 { #expect(try read(sandbox, service: "svc").status == 0) }
        let data = try Data(contentsOf: URL(fileURLWithPath: logPath(sandbox)))
        let frames = AccessLogFrames.ranges(in: data)
        try #require(frames.count == 5)
        return (data, frames)
    }

    static func expectRefused(_ sandbox: ToolSandbox, naming entry: Int, because words: String, _ comment: Comment) throws {
        let shown = try sandbox.keychainctl(["access-log"])
        #expect(shown.status == 65, "\(comment): \(shown.stderr)")
        #expect(shown.stderr.contains("the access log was altered: entry \(entry) "), "\(comment): \(shown.stderr)")
        #expect(shown.stderr.contains(words), "\(comment): \(shown.stderr)")
    }

    @Test("a flipped byte, a removed entry, two swapped entries, cut-off newest entries or an older copy: access-log refuses naming the entry")
    func tamperingIsRefused() throws {
        try withSandbox { (sandbox) throws in
            let (original, frames) = try Self.fiveEntryLog(sandbox)
            let path = Self.logPath(sandbox)
            func install(_ data: Data) throws { try data.write(to: URL(fileURLWithPath: path)) }
            func piece(_ index: Int) -> Data { original.subdata(in: frames[index]) }

            var flipped = original
            flipped[frames[2].lowerBound + 50] ^= 0x01  // inside entry 3's ciphertext
            try install(flipped)
            try Self.expectRefused(sandbox, naming: 3, because: "authentication failed", "byte flipped")

            var header = original
            header[frames[2].lowerBound + 10] ^= 0x01  // entry 3's clear sequence number
            try install(header)
            try Self.expectRefused(sandbox, naming: 3, because: "should follow entry 2", "sequence number edited")

            try install(piece(0) + piece(1) + piece(3) + piece(4))
            try Self.expectRefused(sandbox, naming: 3, because: "found entry 4 where entry 3 should follow", "entry 3 removed")

            try install(piece(0) + piece(2) + piece(1) + piece(3) + piece(4))
            try Self.expectRefused(sandbox, naming: 2, because: "found entry 3 where entry 2 should follow", "entries 2 and 3 swapped")

            try install(piece(0) + piece(1) + piece(2) + piece(3))
            try Self.expectRefused(sandbox, naming: 5, because: "the newest entries were removed", "entry 5 cut off")

            try install(original.prefix(frames[4].lowerBound + 20))
            try Self.expectRefused(sandbox, naming: 5, because: "cut off", "entry 5 cut in the middle")

            try install(original)
            #expect(try sandbox.keychainctl(["access-log"]).status == 0, "the original verifies again")
            // An older copy of the whole log, put back after more accesses: a valid chain, but the
            // keychain's checkpoint names an entry it does not have.
            #expect(try Self.read(sandbox, service: "svc").status == 0)
            try install(original)
            try Self.expectRefused(sandbox, naming: 6, because: "replaced by an older copy", "older copy")

            // A writer meeting an altered log refuses to add to it, and so refuses the read.
            try install(flipped)
            let refused = try Self.read(sandbox, service: "svc")
            #expect(refused.status == 65, "stderr: \(refused.stderr)")
            #expect(refused.stdout.isEmpty, "no secret handed out unlogged")
            #expect(refused.stderr.contains("the secret was not given out because the access could not be logged"))
        }
    }

    @Test("rotation keeps every file under the limit and the chain across files; a rotated file replaced by an older one is refused")
    func rotation() throws {
        try withSandbox { (sandbox) throws in
            let limits = ["KEYCHAINKIT_ACCESS_LOG_MAX_BYTES": "4096", "KEYCHAINKIT_ACCESS_LOG_FILES": "2"]
            try Self.add(sandbox, service: "svc", account: "acct", secret: "pw")
            let path = Self.logPath(sandbox)
            var reads = 0
            var olderSecond: Data?
            while reads < 60 {
                #expect(try Self.read(sandbox, service: "svc", environment: limits).status == 0)
                reads += 1
                if olderSecond == nil, FileManager.default.fileExists(atPath: path + ".2") {
                    olderSecond = try Data(contentsOf: URL(fileURLWithPath: path + ".2"))
                }
            }
            for file in [path, path + ".1", path + ".2"] {
                let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
                #expect(size <= 4096, "\(file): \(size) bytes")
            }
            #expect(!FileManager.default.fileExists(atPath: path + ".3"), "only two rotated files are kept")
            let entries = try Self.entries(sandbox)
            #expect(entries.last?.sequence == reads + 1)
            #expect(entries.first.map { $0.sequence > 1 } == true, "the oldest entries were rotated out")
            #expect(entries.map(\.sequence) == Array((entries.first?.sequence ?? 0)...(reads + 1)), "no gap across the files")

            // `.1` removed while `.2` remains: the chain from `.2` to the current file breaks.
            let first = try Data(contentsOf: URL(fileURLWithPath: path + ".1"))
            try FileManager.default.removeItem(atPath: path + ".1")
            let gap = try sandbox.keychainctl(["access-log"])
            #expect(gap.status == 65, "stderr: \(gap.stderr)")
            #expect(gap.stderr.contains("\(path) at byte 0"), "names the first entry after the gap: \(gap.stderr)")
            try first.write(to: URL(fileURLWithPath: path + ".1"))
            #expect(try sandbox.keychainctl(["access-log"]).status == 0)

            // `.2` replaced by the `.2` of an earlier moment: its last entry is not the one `.1` follows.
            try (try #require(olderSecond)).write(to: URL(fileURLWithPath: path + ".2"))
            let shown = try sandbox.keychainctl(["access-log"])
            #expect(shown.status == 65, "stderr: \(shown.stderr)")
            #expect(shown.stderr.contains("\(path).1 at byte 0"), "names the first entry of .1: \(shown.stderr)")
        }
    }

    @Test("writers in several processes at once leave one valid chain with every access")
    func concurrentWriters() throws {
        try withSandbox { (sandbox) throws in
            try Self.add(sandbox, service: "svc", account: "acct", secret: "pw")
            // Four threads each run five keychainctl reads, one after the other: four processes at once.
            let failures = NSLock()
            nonisolated(unsafe) var failed: [String] = []
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<5 {
                    let run = try? Self.read(sandbox, service: "svc")  // a throw is counted as a failure below
                    if run?.status != 0 || run?.stdout != "pw\n" {
                        failures.lock()
                        failed.append(run?.stderr ?? "could not start keychainctl")
                        failures.unlock()
                    }
                }
            }
            #expect(failed.isEmpty, "failed reads: \(failed)")
            let entries = try Self.entries(sandbox)
            #expect(entries.map(\.sequence) == Array(1...21))
            #expect(entries.filter { $0.operation == "read" }.count == 20)
        }
    }

    @Test("a writer SIGKILLed mid-append: no secret handed out, access-log reports the incomplete entry, the next writer records the cut")
    func killedWriter() throws {
        try withSandbox { (sandbox) throws in
            try Self.add(sandbox, service: "svc", account: "acct", secret: "pw")
            let killed = try Self.read(sandbox, service: "svc", environment: ["KEYCHAINKIT_ACCESS_LOG_TEST_KILL": "1"])
            #expect(killed.status == 128 + SIGKILL)
            #expect(killed.stdout.isEmpty, "the secret is handed out only after its entry is durable")

            let reported = try sandbox.keychainctl(["access-log", "--json"])
            #expect(reported.status == 0, "stderr: \(reported.stderr)")
            #expect(reported.stderr.contains("the log ends with an incomplete entry"))
            #expect(reported.stdout.split(separator: "\n").count == 1)

            #expect(try Self.read(sandbox, service: "svc").stdout == "pw\n")
            let after = try sandbox.keychainctl(["access-log", "--json"])
            #expect(after.status == 0 && after.stderr.isEmpty, "stderr: \(after.stderr)")
            let entries = try after.stdout.split(separator: "\n").map(Entry.init)
            #expect(entries.map(\.sequence) == [1, 2, 3])
            #expect(entries.map(\.event) == ["access", "interrupted-write", "access"])
        }
    }

    @Test("a writer SIGKILLed in the first append after a rotation: the next writer continues the chain from the rotated file")
    func killedWriterAfterRotation() throws {
        try withSandbox { (sandbox) throws in
            let limits = ["KEYCHAINKIT_ACCESS_LOG_MAX_BYTES": "4096", "KEYCHAINKIT_ACCESS_LOG_FILES": "2"]
            try Self.add(sandbox, service: "svc", account: "acct", secret: "pw")
            let path = Self.logPath(sandbox)
            // Read until the next entry no longer fits: its append rotates first.
            for _ in 0..<20 {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let frames = AccessLogFrames.ranges(in: data)
                let largest = frames.map(\.count).max() ?? 0
                if data.count + largest + 64 > 4096 { break }
                #expect(try Self.read(sandbox, service: "svc", environment: limits).status == 0)
            }
            let before = try Self.entries(sandbox).count
            let killed = try Self.read(sandbox, service: "svc", environment: limits.merging(["KEYCHAINKIT_ACCESS_LOG_TEST_KILL": "1"]) { $1 })
            #expect(killed.status == 128 + SIGKILL && killed.stdout.isEmpty)
            #expect(FileManager.default.fileExists(atPath: path + ".1"), "the killed append rotated first")
            #expect(try Self.read(sandbox, service: "svc", environment: limits).stdout == "pw\n")
            let entries = try Self.entries(sandbox)
            #expect(entries.count == before + 2)
            #expect(entries.suffix(2).map(\.event) == ["interrupted-write", "access"])
        }
    }

    @Test("a rotation limit or sync bound that is not a number or out of range refuses every access it would log, naming the variable and the fix")
    func refusedLimits() throws {
        try withSandbox { (sandbox) throws in
            try Self.add(sandbox, service: "svc", account: "acct", secret: "pw-not-shown")
            let before = try Self.entries(sandbox).count
            let refusals = [("KEYCHAINKIT_ACCESS_LOG_MAX_BYTES", "4095", "a size in bytes of at least 4096"),
                            ("KEYCHAINKIT_ACCESS_LOG_MAX_BYTES", "4 MiB", "a size in bytes of at least 4096"),
                            ("KEYCHAINKIT_ACCESS_LOG_MAX_BYTES", "99999999999999999999999", "a size in bytes of at least 4096"),
                            ("KEYCHAINKIT_ACCESS_LOG_FILES", "0", "a number of files from 1 to 100"),
                            ("KEYCHAINKIT_ACCESS_LOG_FILES", "101", "a number of files from 1 to 100"),
                            ("KEYCHAINKIT_ACCESS_LOG_SYNC_MS", "10ms", "a number of milliseconds from 0 to 60000"),
                            ("KEYCHAINKIT_ACCESS_LOG_SYNC_MS", "60001", "a number of milliseconds from 0 to 60000")]
            for (name, value, expected) in refusals {
                let refused = try Self.read(sandbox, service: "svc", environment: [name: value])
                #expect(refused.status != 0, "\(name)=\(value) was accepted")
                #expect(refused.stdout.isEmpty && !refused.stderr.contains("pw-not-shown"), "no secret handed out unlogged")
                #expect(refused.stderr.contains("\(name)=\(value) is not usable: expected \(expected)"), "stderr: \(refused.stderr)")
            }
            // Nothing was logged by the refused runs, and the log is intact; an empty value is unset (the default).
            #expect(try Self.entries(sandbox).count == before)
            #expect(try Self.read(sandbox, service: "svc", environment: ["KEYCHAINKIT_ACCESS_LOG_FILES": ""]).stdout == "pw-not-shown\n")
            // Only `1` arms the killed-writer hook: another value is an ordinary append.
            #expect(try Self.read(sandbox, service: "svc", environment: ["KEYCHAINKIT_ACCESS_LOG_TEST_KILL": "yes"]).stdout == "pw-not-shown\n")
            #expect(try Self.entries(sandbox).count == before + 2)
        }
    }

    @Test("a locked keychain: the read fails before anything is handed out or logged; the log stays valid")
    func lockedKeychain() throws {
        try withSandbox { (sandbox) throws in
            let keychain = try sandbox.createKeychain("locked.keychain-db", password: "open sesame")
            let added = try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "svc", keychain, "-w"], stdin: "pw\n")
            #expect(added.status == 0, "add: \(added.stderr)")
            #expect(try sandbox.keychainctl(["lock-keychain", keychain]).status == 0)
            let refused = try sandbox.keychainctl(["find-generic-password", "-s", "svc", "-w", keychain])
            #expect(refused.status == 36)
            #expect(refused.stdout.isEmpty)
            let shown = try sandbox.keychainctl(["access-log", "--json", keychain])
            #expect(shown.status == 0, "stderr: \(shown.stderr)")
            #expect(shown.stdout.split(separator: "\n").count == 1, "only the add")
        }
    }

    @Test("--since takes an age or an ISO-8601 time; a bad value is a usage error; delete-keychain removes the log")
    func sinceAndDeletion() throws {
        try withSandbox { (sandbox) throws in
            try Self.add(sandbox, service: "svc", account: "acct", secret: "pw")
            #expect(try Self.entries(sandbox, ["--since", "1h"]).count == 1)
            #expect(try Self.entries(sandbox, ["--since", "2000-01-01"]).count == 1)
            #expect(try Self.entries(sandbox, ["--since", "2999-01-01T00:00:00Z"]).isEmpty)
            let bad = try sandbox.keychainctl(["access-log", "--since", "yesterday"])
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("expected an ISO-8601 date or time"))
            #expect(try sandbox.keychainctl(["delete-keychain", sandbox.keychainPath]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: Self.logPath(sandbox)))
            #expect(!FileManager.default.fileExists(atPath: Self.logPath(sandbox) + ".lock"))
        }
    }
}
