// KeychainKit benchmarks, run by ordo-one/benchmark: each benchmark runs in a process of
// its own, with warm-up iterations first; one sample is one operation, and the tool reports
// percentiles (p50 = median, p99) of every metric. docs/PERFORMANCE.md explains each figure.
//
// Names are "<operation> @ <items in the keychain>"; bench/summarize.py reads them back.
import Benchmark
import BenchSupport
import Foundation
import KeychainKit
import KeychainServices

#if canImport(Glibc)
import Glibc
#endif

// MARK: Per-process state (every benchmark runs in a process of its own)

nonisolated(unsafe) var keychain: OpenKeychain?
nonisolated(unsafe) var random = SplitMix64(seed: 0x6B65_7963_6861_696E)
nonisolated(unsafe) var serial = 0
nonisolated(unsafe) var probe: Int32 = -1
let probeBlock = [UInt8](repeating: 0xA5, count: 4096)

/// Deterministic, cheap random numbers (the same item sequence in every run).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(bound))
    }
}

func openKeychain(_ items: Int, rollbackAnchor: Bool = false, sharingUnlockWithSession: Bool = false) throws {
    BenchFixture.configureProcess(sharingUnlockWithSession: sharingUnlockWithSession)
    keychain = try BenchFixture.openKeychain(items: items, rollbackAnchor: rollbackAnchor)
    accountNames = (0..<items).map(BenchFixture.account)
}

/// The stored items' account names, made before the measurement: an app has its account name at
/// hand, and the SQLite + AES-GCM floor times its reads over a list made beforehand too, so the
/// name's formatting (about 0.25 µs) is not part of a read's sample.
nonisolated(unsafe) var accountNames: [String] = []
/// Accounts that are never stored, for the misses, made once for the same reason.
let missingAccountNames = BenchFixture.missingAccounts

/// A random stored account among the first `items`.
func randomAccount(below items: Int) -> String { accountNames[random.next(below: items)] }

func closeKeychain() {
    keychain?.remove()
    keychain = nil
}

func check(_ status: OSStatus, _ what: String) {
    if status != errSecSuccess { fatalError("\(what): OSStatus \(status)") }
}

// MARK: The C API, as an app calls it

func readQuery(_ account: String) -> [String: Any] {
    [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: BenchFixture.service,
        kSecAttrAccount as String: account,
        kSecReturnData as String: true,
        kSecMatchLimit as String: kSecMatchLimitOne,
    ]
}

func itemQuery(_ account: String) -> [String: Any] {
    [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: BenchFixture.service,
        kSecAttrAccount as String: account,
    ]
}

func copyMatching(_ account: String) -> (OSStatus, CFTypeRef?) {
    var result: CFTypeRef?
    let status = SecItemCopyMatching(readQuery(account) as CFDictionary, &result)
    return (status, result)
}

func add(_ account: String) {
    check(SecItemAdd(BenchFixture.addQuery(account: account, data: BenchFixture.secret()) as CFDictionary, nil), "SecItemAdd")
}

func delete(_ account: String) {
    check(SecItemDelete(itemQuery(account) as CFDictionary), "SecItemDelete")
}

/// One sample = one durable SecItemAdd of a new item; the item is deleted afterwards, outside
/// the measurement, so the keychain keeps its size.
func measureOneAdd(_ benchmark: Benchmark) {
    serial += 1
    let account = "new-\(serial)"
    let data = BenchFixture.secret()
    benchmark.startMeasurement()
    check(SecItemAdd(BenchFixture.addQuery(account: account, data: data) as CFDictionary, nil), "SecItemAdd")
    benchmark.stopMeasurement()
    delete(account)
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

// MARK: Configurations

let itemMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

func readConfiguration(_ items: Int) -> Benchmark.Configuration {
    .init(metrics: itemMetrics, timeUnits: .nanoseconds, warmupIterations: 200, maxDuration: .seconds(1), maxIterations: 5_000,
          setup: { try openKeychain(items) }, teardown: { closeKeychain() })
}

/// Writes commit with an fsync each: fewer samples, same warm-up.
func writeConfiguration(_ items: Int, rollbackAnchor: Bool = false) -> Benchmark.Configuration {
    .init(metrics: itemMetrics, timeUnits: .nanoseconds, warmupIterations: 50, maxDuration: .seconds(2), maxIterations: 1_000,
          setup: { try openKeychain(items, rollbackAnchor: rollbackAnchor) }, teardown: { closeKeychain() })
}

let benchmarks: @Sendable () -> Void = {
    let sizes = BenchFixture.sizes

    // MARK: SecItem* at each store size

    for items in sizes {
        Benchmark("SecItemCopyMatching hit @ \(items)", configuration: readConfiguration(items)) { benchmark in
            for _ in benchmark.scaledIterations {
                let (status, result) = copyMatching(randomAccount(below: items))
                check(status, "SecItemCopyMatching")
                blackHole(result)
            }
        }

        Benchmark("SecItemCopyMatching miss @ \(items)", configuration: readConfiguration(items)) { benchmark in
            for _ in benchmark.scaledIterations {
                let (status, result) = copyMatching(missingAccountNames[random.next(below: missingAccountNames.count)])
                if status != errSecItemNotFound { fatalError("miss: OSStatus \(status)") }
                blackHole(result)
            }
        }

        Benchmark("SecItemAdd @ \(items)", configuration: writeConfiguration(items)) { benchmark in measureOneAdd(benchmark) }

        Benchmark("SecItemUpdate @ \(items)", configuration: writeConfiguration(items)) { benchmark in
            let query = itemQuery(BenchFixture.account(random.next(below: items)))
            let changes = [kSecValueData as String: BenchFixture.secret()]
            benchmark.startMeasurement()
            check(SecItemUpdate(query as CFDictionary, changes as CFDictionary), "SecItemUpdate")
            benchmark.stopMeasurement()
        }

        // One sample = one SecItemDelete; the item was added just before, outside the measurement.
        Benchmark("SecItemDelete @ \(items)", configuration: writeConfiguration(items)) { benchmark in
            serial += 1
            let account = "del-\(serial)"
            add(account)
            benchmark.startMeasurement()
            check(SecItemDelete(itemQuery(account) as CFDictionary), "SecItemDelete")
            benchmark.stopMeasurement()
        }
    }

    // MARK: What the options cost (1k items): a rollback anchor, and following the session's lock state

    // As "SecItemAdd @ 1000", on a keychain opened with a rollback anchor: each add also checks and
    // writes the generation seal in its transaction, then raises the anchor file under flock.
    Benchmark("SecItemAdd, rollback anchor @ 1000", configuration: writeConfiguration(1_000, rollbackAnchor: true)) { benchmark in
        measureOneAdd(benchmark)
    }

    // As "SecItemCopyMatching hit @ 1000", with the unlock shared through the kernel keyring:
    // every call first checks that the session's unlock still exists (one keyctl search).
    Benchmark("SecItemCopyMatching hit, session unlock @ 1000", configuration: .init(
        metrics: itemMetrics, timeUnits: .nanoseconds, warmupIterations: 200, maxDuration: .seconds(1), maxIterations: 5_000,
        setup: {
            try openKeychain(1_000, sharingUnlockWithSession: true)
            guard let keychain, try keychain.shareUnlockWithSession() else {
                throw BenchError("the kernel keyring refused the unlock")
            }
        }, teardown: {
            keychain?.withdrawSessionUnlock()
            closeKeychain()
        })) { benchmark in
        for _ in benchmark.scaledIterations {
            let (status, result) = copyMatching(randomAccount(below: 1_000))
            check(status, "SecItemCopyMatching")
            blackHole(result)
        }
    }

    // MARK: The typed API over the same calls (1k items)

    // The template secrets are base64 text, so string(forKey:) reads the same items as the C API.
    let typed = Keychain(service: BenchFixture.service, accessibility: .whenUnlocked)
    Benchmark("Keychain.string(forKey:) hit @ 1000", configuration: readConfiguration(1_000)) { benchmark in
        for _ in benchmark.scaledIterations {
            let value = try typed.string(forKey: randomAccount(below: 1_000))
            if value == nil { fatalError("typed read missed") }
            blackHole(value)
        }
    }
    Benchmark("Keychain.set(_:forKey:) existing @ 1000", configuration: writeConfiguration(1_000)) { benchmark in
        let key = BenchFixture.account(random.next(below: 1_000))
        let value = BenchFixture.secretText()
        benchmark.startMeasurement()
        try typed.set(value, forKey: key)
        benchmark.stopMeasurement()
    }
    Benchmark("SecItemUpdate, same change as set @ 1000", configuration: writeConfiguration(1_000)) { benchmark in
        // Exactly what Keychain.set(_:forKey:) sends for an existing item, without the typed layer.
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: BenchFixture.service,
            kSecAttrAccount as String: BenchFixture.account(random.next(below: 1_000)),
            kSecAttrSynchronizable as String: false,
            kSecUseDataProtectionKeychain as String: true,
        ]
        let changes: [String: Any] = [
            kSecValueData as String: BenchFixture.secret(),
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
        ]
        benchmark.startMeasurement()
        check(SecItemUpdate(query as CFDictionary, changes as CFDictionary), "SecItemUpdate")
        benchmark.stopMeasurement()
    }

    // MARK: Unlock with the real, calibrated scrypt

    Benchmark(
        "SecKeychainUnlock, calibrated scrypt",
        configuration: .init(
            metrics: [.wallClock, .throughput, .peakMemoryResident], timeUnits: .milliseconds,
            warmupIterations: 2, maxDuration: .seconds(15), maxIterations: 25,
            setup: { BenchFixture.configureProcess() })
    ) { benchmark in
        let path = try BenchFixture.calibratedKeychain()
        var handle: SecKeychain?
        check(SecKeychainOpen(path, &handle), "SecKeychainOpen")
        check(SecKeychainLock(handle), "SecKeychainLock")
        let password = Array(BenchFixture.password)
        benchmark.startMeasurement()
        check(SecKeychainUnlock(handle, UInt32(password.count), password, true), "SecKeychainUnlock")
        benchmark.stopMeasurement()
    }

    // What every process pays before its first item call: open the SQLite file, read the
    // keybag, unwrap the class keys (test KDF: the scrypt cost is the benchmark above).
    Benchmark(
        "Open keychain file (test KDF) @ 1000",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .microseconds,
                             warmupIterations: 20, maxDuration: .seconds(2), maxIterations: 2_000,
                             setup: { try openKeychain(1_000) }, teardown: { closeKeychain() })
    ) { benchmark in
        guard let path = keychain?.path else { fatalError("no keychain") }
        let database = try BenchFixture.reopen(path)
        blackHole(database)
    }

    // MARK: The disk floor for a durable write

    // As the anchors measure it: one file, written in place (16 rotating 4 KiB blocks, allocated
    // and synced before the first sample, so no sample pays for allocating blocks or an inode).
    for (name, sync) in [("fsync", { (fd: Int32) in fsync(fd) }), ("fdatasync", { (fd: Int32) in fdatasync(fd) })] {
        Benchmark(
            "\(name) after a 4 KiB pwrite (disk floor)",
            configuration: .init(metrics: [.wallClock, .throughput], timeUnits: .nanoseconds, warmupIterations: 20,
                                 maxDuration: .seconds(1), maxIterations: 1_000,
                                 setup: {
                                     BenchFixture.configureProcess()
                                     let path = BenchFixture.workDirectory + "/fsync-probe-\(getpid())"
                                     probe = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                                     if probe < 0 { fatalError("cannot open \(path)") }
                                     unlink(path)  // the open descriptor keeps the file
                                     let block = [UInt8](repeating: 0x5A, count: 16 * 4096)
                                     _ = block.withUnsafeBytes { pwrite(probe, $0.baseAddress, block.count, 0) }
                                     _ = fsync(probe)
                                 },
                                 teardown: { close(probe) })
        ) { benchmark in
            serial += 1
            _ = probeBlock.withUnsafeBytes { pwrite(probe, $0.baseAddress, 4096, off_t((serial % 16) * 4096)) }
            benchmark.startMeasurement()
            if sync(probe) != 0 { fatalError("\(name) failed") }
            benchmark.stopMeasurement()
        }
    }

    // MARK: Memory

    // One sample, in a fresh process: open the keychain and read every item once. The RSS growth
    // and the bytes still allocated at the end are what the process keeps for that keychain.
    for items in [10, 10_000] {
        Benchmark(
            "Memory: open and read every item @ \(items)",
            configuration: .init(
                metrics: [.wallClock, .throughput, .mallocCountTotal, .mallocBytesCount, .memoryLeakedBytes, .peakMemoryResident,
                          .custom("RSS growth (KiB)", polarity: .prefersSmaller, useScalingFactor: false)],
                timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 1,
                setup: { BenchFixture.configureProcess(); _ = try BenchFixture.template(items: items) },
                teardown: { closeKeychain() })
        ) { benchmark in
            let before = residentBytes()
            benchmark.startMeasurement()
            let opened = try BenchFixture.openKeychain(items: items)
            for index in 0..<items {
                let (status, result) = copyMatching(BenchFixture.account(index))
                check(status, "SecItemCopyMatching")
                blackHole(result)
            }
            benchmark.stopMeasurement()
            benchmark.measurement(.custom("RSS growth (KiB)", polarity: .prefersSmaller, useScalingFactor: false),
                                  (residentBytes() - before) / 1024)
            keychain = opened
        }
    }

    // `dump-keychain`'s query: every item's attributes in one call.
    Benchmark(
        "SecItemCopyMatching all attributes @ 10000",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .mallocBytesCount, .peakMemoryResidentDelta],
                             timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20,
                             setup: { try openKeychain(10_000) }, teardown: { closeKeychain() })
    ) { benchmark in
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        var result: CFTypeRef?
        check(SecItemCopyMatching(query as CFDictionary, &result), "SecItemCopyMatching all")
        if (result as? [Any])?.count != 10_000 { fatalError("dump: wrong count") }
        blackHole(result)
    }
}
