// Runs one keychain operation in a loop, for profilers (valgrind --tool=callgrind, perf, strace):
//
//   keychain-bench-profile OPERATION ITEMS ITERATIONS
//
// OPERATION: read (SecItemCopyMatching hit), miss, add (then delete, like the benchmark), add-only
// (a new item per iteration, nothing deleted: the durable add alone, bench/durable_add.sh),
// update, delete (after an add), typed-read (Keychain.string(forKey:)), typed-read-observed (the
// same over `KeychainBackend.securityFramework.observed` with a handler that does nothing: the
// observation hook's cost), typed-read-described (the same with a handler that builds the event's
// `description`, as a logger does), open (a second handle on
// the file), query (only what the caller of a read does itself: build its query dictionary and
// bridge it to a CFDictionary, no keychain call; the baseline to subtract). ITEMS picks the
// template keychain (10, 100, 1000, 10000, 100000); the work directory is KEYCHAINKIT_BENCH_DIR,
// as for the benchmarks. Prints the mean wall time per operation; for instruction counts, run it under callgrind with a small ITERATIONS and compare two ITERATIONS.
import BenchSupport
import Foundation
import KeychainKit
import KeychainServices

let arguments = CommandLine.arguments
guard arguments.count == 4, let items = Int(arguments[2]), let iterations = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: keychain-bench-profile read|miss|query|add|add-only|update|delete|typed-read|typed-read-observed|typed-read-described|open ITEMS ITERATIONS\n".utf8))
    exit(64)
}
BenchFixture.configureProcess()
let keychain = try BenchFixture.openKeychain(items: items)
defer { keychain.remove() }

/// The item's query; with `returnData`, the read query as one literal, exactly as the benchmarks'
/// `readQuery` (and an app) writes it.
func query(_ account: String, returnData: Bool = false) -> [String: Any] {
    guard returnData else {
        return [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: BenchFixture.service,
            kSecAttrAccount as String: account,
        ]
    }
    return [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: BenchFixture.service,
        kSecAttrAccount as String: account,
        kSecReturnData as String: true,
        kSecMatchLimit as String: kSecMatchLimitOne,
    ]
}

func expect(_ status: OSStatus, _ wanted: OSStatus = errSecSuccess) {
    if status != wanted { fatalError("OSStatus \(status), expected \(wanted)") }
}

// add-only: each SecItemAdd timed on its own (the caller's dictionary left out), for a median.
var addSamples: [Duration] = []
addSamples.reserveCapacity(iterations)
// read, miss: each call timed with the caller's own dictionary and bridging, as the benchmarks do.
var readSamples: [Duration] = []
readSamples.reserveCapacity(iterations)
// query: the caller's own dictionary and bridging alone, timed the same way.
var querySamples: [Duration] = []
querySamples.reserveCapacity(iterations)
// Account names made before the loop, as an app has them and as the SQLite + AES-GCM floor's loop
// takes them from a list (bench/interleaved_reads.sh compares the two).
let accounts = (0..<items).map(BenchFixture.account)
let missingAccounts = BenchFixture.missingAccounts
let typed = Keychain(service: BenchFixture.service, accessibility: .whenUnlocked)
let observed = typed.backend(.securityFramework.observed { _ in })
/// The description lengths the `typed-read-described` handler builds, summed so that the work stays.
final class DescribedLength: @unchecked Sendable { var total = 0 }  // one thread: the loop's
let describedLength = DescribedLength()
let described = typed.backend(.securityFramework.observed { event in describedLength.total &+= event.description.utf8.count })
let start = ContinuousClock.now
for iteration in 0..<iterations {
    let account = accounts[(iteration &* 7_919) % items]
    switch arguments[1] {
    case "read":
        let before = ContinuousClock.now
        var result: CFTypeRef?
        expect(SecItemCopyMatching(query(account, returnData: true) as CFDictionary, &result))
        readSamples.append(ContinuousClock.now - before)
    case "query":
        // What the caller of "read" pays by itself, to subtract from it (allocations, instructions).
        let before = ContinuousClock.now
        let bridged = query(account, returnData: true) as CFDictionary
        if bridged.count != 5 { fatalError("query of \(bridged.count) keys") }
        querySamples.append(ContinuousClock.now - before)
    case "miss":
        let missing = missingAccounts[iteration % missingAccounts.count]
        let before = ContinuousClock.now
        var result: CFTypeRef?
        expect(SecItemCopyMatching(query(missing, returnData: true) as CFDictionary, &result), errSecItemNotFound)
        readSamples.append(ContinuousClock.now - before)
    case "add":
        expect(SecItemAdd(BenchFixture.addQuery(account: "new-\(iteration)", data: BenchFixture.secret()) as CFDictionary, nil))
        expect(SecItemDelete(query("new-\(iteration)") as CFDictionary))
    case "add-only":
        let query = BenchFixture.addQuery(account: "only-\(iteration)", data: BenchFixture.secret()) as CFDictionary
        let before = ContinuousClock.now
        expect(SecItemAdd(query, nil))
        addSamples.append(ContinuousClock.now - before)
    case "update":
        expect(SecItemUpdate(query(account) as CFDictionary, [kSecValueData as String: BenchFixture.secret()] as CFDictionary))
    case "delete":
        expect(SecItemAdd(BenchFixture.addQuery(account: "del-\(iteration)", data: BenchFixture.secret()) as CFDictionary, nil))
        expect(SecItemDelete(query("del-\(iteration)") as CFDictionary))
    case "typed-read":
        guard try typed.string(forKey: account) != nil else { fatalError("typed read missed") }
    case "typed-read-observed":
        guard try observed.string(forKey: account) != nil else { fatalError("observed read missed") }
    case "typed-read-described":
        guard try described.string(forKey: account) != nil else { fatalError("described read missed") }
    case "open":
        _ = try BenchFixture.reopen(keychain.path)
    default:
        fatalError("unknown operation \(arguments[1])")
    }
}
let elapsed = ContinuousClock.now - start
print("\(arguments[1]) @ \(items): \(iterations) iterations, \(elapsed / max(iterations, 1)) each")
/// "median …, mean …" of the samples, in seconds.
func summary(_ samples: [Duration]) -> String {
    let sorted = samples.sorted()
    let mean = samples.reduce(Duration.zero, +) / samples.count
    return "median \(sorted[sorted.count / 2]), mean \(mean)"
}
if !addSamples.isEmpty { print("SecItemAdd alone: \(summary(addSamples))") }
if !readSamples.isEmpty { print("SecItemCopyMatching with its query: \(summary(readSamples))") }
if !querySamples.isEmpty { print("The query alone: \(summary(querySamples))") }
