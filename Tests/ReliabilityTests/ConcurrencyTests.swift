import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore

@Suite("Multi-process concurrency")
struct ConcurrencyTests {
    struct Entry {
        var process: Int
        var thread: Int
        var sequence: Int
        var kind: String
        var account: String
        var tag: String
        var status: Int32
        var start: UInt64
        var end: UInt64
        var observed: String
    }

    static func parse(_ text: String, process: Int) -> [Entry] {
        text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ").map(String.init)
            guard f.count == 11, f[0] == "op", let thread = Int(f[1]), let sequence = Int(f[2]), let status = Int32(f[7]),
                  let start = UInt64(f[8]), let end = UInt64(f[9]) else { return nil }
            return Entry(process: process, thread: thread, sequence: sequence, kind: f[3], account: f[4], tag: f[5],
                         status: status, start: start, end: end, observed: f[10])
        }
    }

    @Test("4 processes × 2 threads × 500 mixed operations on one new file: no lost update, no busy error, uniqueness holds",
          arguments: [false, true])
    func processes(anchored: Bool) throws {
        let processes = Reliability.count("CONCURRENT_PROCESSES", ci: 4, long: 8)
        let threads = Reliability.count("CONCURRENT_THREADS", ci: 2, long: 4)
        let operations = Reliability.count("CONCURRENT_OPS", ci: 500, long: 5_000)
        let scratch = try TemporaryKeychain("concurrent")
        defer { scratch.remove() }
        if anchored { try scratch.anchor() }
        let start = ContinuousClock.now
        // All processes start on a missing file: creating it is part of the race.
        let children = try (0..<processes).map { process in
            try TortureTool.start(["concurrent", "--dir", scratch.directory, "--process", String(process), "--threads", String(threads),
                                   "--ops", String(operations), "--seed", String(process * 7919 + 1)],
                                  in: scratch.directory, label: "concurrent-\(process)")
        }
        for (process, child) in children.enumerated() {
            child.waitUntilExit()
            let errors = (try? String(contentsOfFile: scratch.directory + "/concurrent-\(process).err", encoding: .utf8)) ?? ""
            #expect(child.terminationReason == .exit && child.terminationStatus == 0, "process \(process): \(errors)")
        }
        let elapsed = Reliability.seconds(since: start)
        var entries: [Entry] = []
        for process in 0..<processes {
            let text = (try? String(contentsOfFile: scratch.directory + "/process-\(process).log", encoding: .utf8)) ?? ""
            #expect(text.contains("done \(process)"), "process \(process) did not finish")
            entries += Self.parse(text, process: process)
        }
        #expect(entries.count == processes * threads * operations)

        // No busy (or any other) error escapes; reads never see altered data.
        var unexpected: [Int32: Int] = [:]
        for entry in entries where ![0, -25299, -25300].contains(entry.status) { unexpected[entry.status, default: 0] += 1 }
        #expect(unexpected.isEmpty, "unexpected statuses: \(unexpected)")
        #expect(!entries.contains { $0.observed == "altered" }, "a read returned altered data")

        // Private accounts: each thread's operations behave exactly sequentially (read-your-writes, no lost update).
        var expectedPrivate: [String: String] = [:]
        let privateEntries = Dictionary(grouping: entries.filter { !$0.account.hasPrefix("shared-") }) { "\($0.process)/\($0.thread)" }
        var privateViolations = 0
        for (_, ops) in privateEntries {
            var model: [String: String] = [:]
            for op in ops.sorted(by: { $0.sequence < $1.sequence }) {
                let present = model[op.account]
                var consistent = true
                switch (op.kind, op.status) {
                case ("add", 0): consistent = present == nil; model[op.account] = op.tag
                case ("add", -25299): consistent = present != nil
                case ("update", 0): consistent = present != nil; model[op.account] = op.tag
                case ("update", -25300), ("delete", -25300), ("read", -25300): consistent = present == nil
                case ("delete", 0): consistent = present != nil; model[op.account] = nil
                case ("read", 0): consistent = present == op.observed
                default: consistent = false
                }
                if !consistent {
                    privateViolations += 1
                    Issue.record("\(op.account) op \(op.sequence) \(op.kind) → \(op.status) (observed \(op.observed)) but the thread wrote \(present ?? "nothing")")
                }
            }
            for (account, tag) in model { expectedPrivate[account] = tag }
        }

        // The file's final state.
        let database = try scratch.open(generation: 0)
        var finalState: [String: String] = [:]
        let accounts = Set(entries.map(\.account))
        for account in accounts {
            let items = try database.find(Torture.query(account: account), decrypt: true)
            #expect(items.count <= 1, "\(account) has \(items.count) items")
            if let item = items.first {
                guard let tag = Torture.selfConsistentTag(item) else {
                    Issue.record("\(account) holds altered data")
                    continue
                }
                finalState[account] = tag
            }
        }
        for account in accounts where !account.hasPrefix("shared-") {
            #expect(finalState[account] == expectedPrivate[account], "\(account): file has \(finalState[account] ?? "nothing"), its thread wrote \(expectedPrivate[account] ?? "nothing")")
        }
        // Shared accounts: the final state comes from a write no other successful write started after.
        for account in accounts where account.hasPrefix("shared-") {
            let writes = entries.filter { $0.account == account && $0.status == 0 && ["add", "update", "delete"].contains($0.kind) }
            if let tag = finalState[account] {
                guard let writer = writes.first(where: { $0.tag == tag && $0.kind != "delete" }) else {
                    Issue.record("\(account) holds \(tag), which no successful write produced")
                    continue
                }
                let later = writes.filter { $0.start > writer.end }
                #expect(later.isEmpty, "\(account): \(tag) survived \(later.count) later writes (lost update)")
            } else {
                let deletes = writes.filter { $0.kind == "delete" }
                let explained = writes.isEmpty || deletes.contains { delete in
                    !writes.contains { $0.kind != "delete" && $0.start > delete.end }
                }
                #expect(explained, "\(account) is missing, but a write started after every delete ended")
            }
        }
        // Uniqueness at the SQL level, integrity.
        let raw = try RawSQLite(scratch.keychainPath)
        let duplicates = try raw.execute("SELECT count(*) FROM (SELECT 1 FROM items GROUP BY class, pk_digest HAVING count(*) > 1)")
        #expect(duplicates.first?.first == .integer(0))
        #expect(try raw.integrityCheck() == "ok")
        #expect(try database.itemCount() == finalState.count)
        if anchored {
            // Every successful write raised the generation exactly once (enrolment made it 1), and
            // after a clean run the anchor has caught up with the file.
            let writes = entries.filter { $0.status == 0 && $0.kind != "read" }.count
            let seal = try raw.execute("SELECT value FROM meta WHERE key = 'generation_seal'")
            guard case .blob(let sealBytes)? = seal.first?.first, sealBytes.count == 40 else {
                Issue.record("no generation seal in an anchored keychain")
                return
            }
            let fileGeneration = sealBytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            #expect(fileGeneration == UInt64(1 + writes))
            let anchorFiles = try FileManager.default.contentsOfDirectory(atPath: scratch.anchorDirectory)
            #expect(anchorFiles.count == 1, "one anchor per keychain: \(anchorFiles)")
            let anchorBytes = try Data(contentsOf: URL(fileURLWithPath: scratch.anchorDirectory + "/" + (anchorFiles.first ?? "")))
            let anchorGeneration = anchorBytes.dropFirst(56).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            #expect(anchorGeneration == fileGeneration)
        }
        Reliability.figure(anchored ? "concurrency-anchored" : "concurrency", ["processes": processes, "threads": threads, "operations_per_thread": operations,
                                           "operations": entries.count, "succeeded": entries.filter { $0.status == 0 }.count,
                                           "unexpected_statuses": unexpected.values.reduce(0, +), "private_violations": privateViolations,
                                           "seconds": elapsed])
    }
}
