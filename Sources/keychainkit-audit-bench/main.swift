import Foundation
import KeychainAudit
import KeychainLinux
import KeychainServices

// Times the access log for docs/PERFORMANCE.md (bench/access_log.sh runs it): the durable append
// of one entry (lock, key and checkpoint read, AES-GCM, write + fsync, checkpoint update in the
// keychain) beside the keychain read it accompanies, and a bare keychain update (the checkpoint's share). Usage: keychainkit-audit-bench KEYCHAIN ROUNDS
// with KEYCHAINKIT_KEYCHAIN=KEYCHAIN and KEYCHAINKIT_ACCESS_GROUPS naming com.keychainkit.access-log.
// With a third argument THREADS, it instead compares the Secret Service provider's designs: THREADS
// readers each recording ROUNDS reads at once, through (1) one durable append and checkpoint per read,
// (2) group commit with the checkpoint per append, (3) group commit with the checkpoint deferred by
// up to 1 s and every append synced, (4) the same with the sync within 10 ms (what the provider
// uses); per read latency and reads per second of each.

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, let rounds = Int(arguments[2]), rounds > 0,
      arguments.count == 3 || Int(arguments[3]).map({ $0 > 0 }) == true else {
    FileHandle.standardError.write(Data("usage: keychainkit-audit-bench KEYCHAIN ROUNDS [THREADS]\n".utf8))
    exit(64)
}
let keychainPath = arguments[1]
let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                           kSecAttrAccount as String: "bench", kSecValueData as String: Data("secret".utf8)]
let added = SecItemAdd(item as CFDictionary, nil)
guard added == errSecSuccess || added == errSecDuplicateItem else {
    FileHandle.standardError.write(Data("SecItemAdd failed: \(added)\n".utf8))
    exit(1)
}
let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                            kSecReturnData as String: true]

@Sendable func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
}

func summary(_ values: [Double]) -> String {
    let sorted = values.sorted()
    let median = sorted[sorted.count / 2], p90 = sorted[sorted.count * 9 / 10]
    return String(format: "median %.3f ms  p90 %.3f ms", median, p90)
}

/// THREADS readers recording ROUNDS reads each through `record`; prints latency and throughput.
func compare(_ name: String, threads: Int, rounds: Int, _ record: @escaping @Sendable (AccessEvent) throws -> Void) throws {
    let caller = try ProcessLineage.current()
    let lock = NSLock()
    nonisolated(unsafe) var latencies: [Double] = []
    nonisolated(unsafe) var failures = 0
    let start = DispatchTime.now().uptimeNanoseconds
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
        var mine: [Double] = []
        for _ in 0..<rounds {
            let event = AccessEvent(time: Date(), operation: .read, item: .init(label: "bench", service: "bench", account: "bench"),
                                    caller: caller, callerUID: getuid(), channel: .secretService, decision: .allowedByPolicy)
            do {
                mine.append(try milliseconds { try record(event) })
            } catch {
                lock.withLock { failures += 1 }
            }
        }
        lock.withLock { latencies += mine }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    guard failures == 0 else { throw NSError(domain: "bench", code: failures, userInfo: [NSLocalizedDescriptionKey: "\(failures) records failed"]) }
    print(name.padding(toLength: 46, withPad: " ", startingAt: 0) + "\(summary(latencies))  "
          + String(format: "%.0f reads/s", Double(latencies.count) / seconds))
}

if arguments.count == 4, let threads = Int(arguments[3]) {
    do {
        let settings = AccessLogSettings(maximumFileSize: 64 * 1024 * 1024)  // appends, not rotation, are timed
        let log = AccessLog(keychainAt: keychainPath, settings: settings)
        try log.record(AccessEvent(time: Date(), operation: .read, item: .init(label: "warm-up", service: nil, account: nil),
                                   caller: try ProcessLineage.current(), callerUID: getuid(), channel: .secretService, decision: .allowedByPolicy))
        print("\(threads) readers x \(rounds) reads each:")
        try compare("per read: append + fsync + checkpoint", threads: threads, rounds: rounds) { try log.record($0) }
        let grouped = AccessLogGroupCommit(log: log, checkpointDelay: 0, syncBound: 0)
        try compare("group commit, checkpoint per append", threads: threads, rounds: rounds) { try grouped.record($0) }
        let deferred = AccessLogGroupCommit(log: log, checkpointDelay: AccessLogGroupCommit.defaultCheckpointDelay, syncBound: 0)
        try compare("group commit, checkpoint within 1 s", threads: threads, rounds: rounds) { try deferred.record($0) }
        try deferred.flush()
        let bounded = AccessLogGroupCommit(log: log)  // the provider's default: synced within 10 ms
        try compare("group commit, sync within 10 ms", threads: threads, rounds: rounds) { try bounded.record($0) }
        try bounded.flush()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("keychainkit-audit-bench: \(error)\n".utf8))
        exit(1)
    }
}

do {
    let log = AccessLog(keychainAt: keychainPath, settings: AccessLogSettings())  // the default limits: appends, not rotation, are timed
    let caller = try ProcessLineage.current()
    var reads: [Double] = [], records: [Double] = [], updates: [Double] = []
    let change = [kSecValueData as String: Data("secret".utf8)]
    let match: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench"]
    for round in 0..<(rounds + 10) {
        var result: CFTypeRef?
        let read = milliseconds { _ = SecItemCopyMatching(query as CFDictionary, &result) }
        let event = AccessEvent(time: Date(), operation: .read, item: .init(label: "bench", service: "bench", account: "bench"),
                                caller: caller, callerUID: getuid(), channel: .keychainctl, decision: .notApplicable)
        let record = try milliseconds { try log.record(event) }
        // What the checkpoint alone costs: one keychain update of a small item, as the log makes per entry.
        let update = milliseconds { _ = SecItemUpdate(match as CFDictionary, change as CFDictionary) }
        if round >= 10 {  // the first rounds warm the caches and create the key
            reads.append(read)
            records.append(record)
            updates.append(update)
        }
    }
    print("keychain read (SecItemCopyMatching):  \(summary(reads))")
    print("access-log record (durable append):   \(summary(records))")
    print("  of which a keychain update is about: \(summary(updates))  (SecItemUpdate of a small item)")
} catch {
    FileHandle.standardError.write(Data("keychainkit-audit-bench: \(error)\n".utf8))
    exit(1)
}
