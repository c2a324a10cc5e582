// keychainkit-torture: the writer, reader and stress processes of the reliability suite
// (Tests/ReliabilityTests, docs/RELIABILITY.md). Not a product; built with the package.
//
//   keychainkit-torture crash      --dir D --seed S [--password-heavy]
//       Opens D/torture.keychain-db with the password of generation D/generation and runs
//       acknowledged add/update/delete/password-change operations until killed. Every operation
//       is announced ("begin …") before the call and acknowledged ("ack …", fsync'ed) after it
//       returns, in D/acks.log. --ack-early acknowledges before the call (the checker's self-test).
//   keychainkit-torture concurrent --dir D --process P --threads T --ops N --seed S
//       T threads × N mixed operations on one shared keychain file; one line per operation with
//       its status and CLOCK_MONOTONIC interval in D/process-P.log.
//   keychainkit-torture populate   --dir D --items N [--kill]
//       Creates the keychain (generation 0) with N items, lists them in D/expected, then exits
//       or, with --kill, SIGKILLs itself so the WAL keeps every frame.
//   keychainkit-torture verify     --dir D [--generation G] [--device-key-missing]
//       Opens the keychain and reads every item of D/expected; one line per item:
//       "<account> ok" | "<account> absent" | "<account> altered" | "<account> status <code>",
//       or "open status <code>" if it cannot be opened. Run under a timeout by the tests.
//   keychainkit-torture hygiene    --dir D
//       Successful and failing operations on values built from $KEYCHAINKIT_CANARY, printing
//       every status and error text; the test scans the output for the canary.
//
// A directory D that contains a file named "anchored" is opened with a rollback anchor in
// D/state/anchors by every command (and by the tests' own checks).
//
// Secrets here are test values derived from public tags; the tool prints statuses only.

import Foundation
import KeychainPrimitives
import KeychainStore
import KeychainTestSupport
import KeychainVocabulary

// The shared vocabulary (paths, passwords, values, labels, queries) is `Torture`, in
// KeychainTestSupport: the tests recompute the same values from the same code.

/// Appends lines to a log file; `durable` lines are fsync'ed before `append` returns.
final class LogFile: @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()

    init(_ path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if fd < 0 { fail("cannot open log \(path)") }
    }

    func append(_ line: String, durable: Bool) {
        lock.lock()
        defer { lock.unlock() }
        let bytes = Array((line + "\n").utf8)
        var done = 0
        while done < bytes.count {
            let result = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                fail("cannot write log")
            }
            done += result
        }
        if durable && fsync(fd) != 0 { fail("cannot sync log") }
    }
}

/// SplitMix64: reproducible choices from a seed.
struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("keychainkit-torture: \(message)\n".utf8))
    exit(2)
}

func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

struct Arguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []

    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("--") else { fail("unexpected argument \(argument)") }
            let name = String(argument.dropFirst(2))
            if ["kill", "password-heavy", "device-key-missing", "ack-early"].contains(name) {
                flags.insert(name)
            } else if let value = iterator.next() {
                values[name] = value
            } else {
                fail("--\(name) needs a value")
            }
        }
    }

    func string(_ name: String) -> String {
        guard let value = values[name] else { fail("--\(name) is required") }
        return value
    }

    func int(_ name: String, default fallback: Int? = nil) -> Int {
        if let value = values[name] {
            guard let number = Int(value) else { fail("--\(name) must be a number") }
            return number
        }
        guard let fallback else { fail("--\(name) is required") }
        return fallback
    }
}

func readGeneration(_ dir: String) -> Int {
    guard let text = try? String(contentsOfFile: dir + "/generation", encoding: .utf8) else { return 0 }  // absent: generation 0
    return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}

func openKeychain(_ dir: String, generation: Int) -> KeychainDatabase {
    do {
        return try KeychainDatabase.open(path: Torture.keychainPath(dir), password: Torture.password(generation: generation),
                                         options: Torture.options(dir))
    } catch {
        fail("cannot open the keychain: status \(error.osStatus)")
    }
}

// MARK: crash

func crashWriter(_ arguments: Arguments) -> Never {
    let dir = arguments.string("dir")
    var random = Random(state: UInt64(arguments.int("seed")))
    let passwordHeavy = arguments.flags.contains("password-heavy")
    // Self-test of the checker only: claim success before the call, as a buggy writer would.
    let ackEarly = arguments.flags.contains("ack-early")
    var generation = readGeneration(dir)
    let database = openKeychain(dir, generation: generation)
    let log = LogFile(dir + "/acks.log")
    let accounts = 40
    var present = (0..<accounts).map { index in
        (try? database.find(Torture.query(account: "acct-\(index)"), decrypt: false).isEmpty == false) ?? false
    }
    let run = arguments.int("seed")
    log.append("ready \(run) \(generation)", durable: true)
    var sequence = 0
    while true {
        sequence += 1
        let tag = "r\(run)s\(sequence)"
        let index = random.below(accounts)
        let account = "acct-\(index)"
        let length = Torture.lengths[random.below(Torture.lengths.count)]
        let roll = random.below(100)
        if roll < (passwordHeavy ? 50 : 4) {
            log.append("begin \(sequence) password \(generation) \(generation + 1)", durable: false)
            if ackEarly { log.append("ack \(sequence) 0", durable: true) }
            let status = Torture.status { () throws(KeychainStoreError) in
                try database.changePassword(from: Torture.password(generation: generation),
                                            to: Torture.password(generation: generation + 1))
            }
            if status == 0 { generation += 1 }
            log.append("ack \(sequence) \(status)", durable: true)
        } else if !present[index] || roll < 20 {
            log.append("begin \(sequence) add \(account) \(tag) \(length)", durable: false)
            if ackEarly { log.append("ack \(sequence) 0", durable: true) }
            let status = Torture.status { () throws(KeychainStoreError) in
                _ = try database.insert(Torture.newItem(account: account, index: index, tag: tag, length: length))
            }
            if status == 0 { present[index] = true }
            log.append("ack \(sequence) \(status)", durable: true)
        } else if roll < 80 {
            log.append("begin \(sequence) update \(account) \(tag) \(length)", durable: false)
            if ackEarly { log.append("ack \(sequence) 0", durable: true) }
            let status = Torture.status { () throws(KeychainStoreError) in
                try database.update(Torture.query(account: account), with: Torture.changes(tag: tag, length: length))
            }
            log.append("ack \(sequence) \(status)", durable: true)
        } else {
            log.append("begin \(sequence) delete \(account)", durable: false)
            if ackEarly { log.append("ack \(sequence) 0", durable: true) }
            let status = Torture.status { () throws(KeychainStoreError) in
                try database.delete(Torture.query(account: account))
            }
            if status == 0 { present[index] = false }
            log.append("ack \(sequence) \(status)", durable: true)
        }
    }
}

// MARK: concurrent

func concurrentWorker(_ arguments: Arguments) -> Never {
    let dir = arguments.string("dir")
    let process = arguments.int("process")
    let threads = arguments.int("threads", default: 2)
    let operations = arguments.int("ops", default: 500)
    let seed = UInt64(arguments.int("seed"))
    let database = openKeychain(dir, generation: 0)
    let log = LogFile(dir + "/process-\(process).log")
    let group = DispatchGroup()
    for thread in 0..<threads {
        group.enter()
        Thread {
            defer { group.leave() }
            var random = Random(state: seed &+ UInt64(process * 1000 + thread))
            for sequence in 0..<operations {
                let shared = random.below(2) == 0
                let index = shared ? random.below(8) : random.below(10)
                let account = shared ? "shared-\(index)" : "p\(process)t\(thread)-k\(index)"
                let tag = "P\(process)T\(thread)S\(sequence)"
                let length = [16, 300, 5_000][random.below(3)]
                let kind = ["add", "add", "update", "update", "update", "delete", "read"][random.below(7)]
                let start = monotonicNanoseconds()
                var observed = "-"
                let status = Torture.status { () throws(KeychainStoreError) in
                    switch kind {
                    case "add":
                        _ = try database.insert(Torture.newItem(account: account, index: index, tag: tag, length: length))
                    case "update":
                        try database.update(Torture.query(account: account), with: Torture.changes(tag: tag, length: length))
                    case "delete":
                        try database.delete(Torture.query(account: account))
                    default:
                        guard let item = try database.find(Torture.query(account: account), decrypt: true).first else {
                            throw .itemNotFound
                        }
                        observed = Torture.selfConsistentTag(item) ?? "altered"
                    }
                }
                let end = monotonicNanoseconds()
                log.append("op \(thread) \(sequence) \(kind) \(account) \(tag) \(length) \(status) \(start) \(end) \(observed)",
                           durable: false)
            }
        }.start()
    }
    group.wait()
    log.append("done \(process)", durable: true)
    exit(0)
}

// MARK: populate / verify

func populate(_ arguments: Arguments) -> Never {
    let dir = arguments.string("dir")
    let count = arguments.int("items")
    var expected = ""
    do {  // the handle is released at the end of this scope: a clean close checkpoints the WAL
        let database = openKeychain(dir, generation: 0)
        for index in 0..<count {
            let account = "acct-\(index)"
            let tag = "pop\(index)"
            let length = Torture.lengths[index % Torture.lengths.count]
            do {
                _ = try database.insert(Torture.newItem(account: account, index: index, tag: tag, length: length))
            } catch {
                fail("populate: status \(error.osStatus)")
            }
            expected += "\(account) \(index) \(tag) \(length)\n"
        }
        if arguments.flags.contains("kill") {
            do {
                try expected.write(toFile: dir + "/expected", atomically: true, encoding: .utf8)
            } catch {
                fail("cannot write the expectations")
            }
            kill(getpid(), SIGKILL)  // with the connection open: every commit stays in the WAL
        }
    }
    do {
        try expected.write(toFile: dir + "/expected", atomically: true, encoding: .utf8)
    } catch {
        fail("cannot write the expectations")
    }
    exit(0)
}

func verify(_ arguments: Arguments) -> Never {
    let dir = arguments.string("dir")
    let generation = arguments.int("generation", default: 0)
    guard let text = try? String(contentsOfFile: dir + "/expected", encoding: .utf8) else { fail("no expectations") }
    var options = Torture.options(dir)
    options.createIfMissing = false
    if arguments.flags.contains("device-key-missing") { options.deviceKeyPath = dir + "/state/other-device.key" }
    let database: KeychainDatabase
    do {
        database = try KeychainDatabase.open(path: Torture.keychainPath(dir), password: Torture.password(generation: generation),
                                             options: options)
    } catch {
        print("open status \(error.osStatus)")
        exit(0)
    }
    for line in text.split(separator: "\n") {
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count == 4, let length = Int(fields[3]) else { continue }
        let account = fields[0], tag = fields[2]
        do {
            let items = try database.find(Torture.query(account: account), decrypt: true)
            if items.isEmpty {
                print("\(account) absent")
            } else if items.count == 1, items[0].data == Torture.value(tag: tag, length: length),
                      items[0].attributes["labl"] == .string(Torture.label(tag: tag, length: length)),
                      items[0].attributes["acct"] == .string(account) {
                print("\(account) ok")
            } else {
                print("\(account) altered")
            }
        } catch {
            print(error == .itemNotFound ? "\(account) absent" : "\(account) status \(error.osStatus)")
        }
    }
    exit(0)
}

// MARK: hygiene

/// Runs successful and failing operations on values built from `$KEYCHAINKIT_CANARY` (never on
/// the command line) and prints every status and error text the library gives; the test scans
/// this output, and anything the library might print itself, for the canary.
func hygiene(_ arguments: Arguments) -> Never {
    let dir = arguments.string("dir")
    guard let canary = ProcessEnvironment.value(of: "KEYCHAINKIT_CANARY"), !canary.isEmpty else { fail("no canary") }
    var options = Torture.options(dir)
    options.createIfMissing = true
    func report(_ what: String, _ body: () throws(KeychainStoreError) -> Void) {
        do {
            try body()
            print("\(what): ok")
        } catch {
            print("\(what): \(error.osStatus) \(error) | \(String(reflecting: error)) | \(error.localizedDescription)")
        }
    }
    let password = Data((canary + "-password").utf8)
    let item = NewItem(itemClass: .genericPassword,
                       attributes: ["acct": .string(canary + "-account"), "svce": .string(canary + "-service"), "agrp": .string("torture"),
                                    "sync": .number(0), "labl": .string(canary + "-label")],
                       data: Data((canary + "-secret").utf8), protection: .whenUnlocked)
    var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["torture"]))
    query.filters = ["acct": .string(canary + "-account"), "svce": .string(canary + "-service")]
    var database: KeychainDatabase?
    report("open") { () throws(KeychainStoreError) in
        database = try KeychainDatabase.open(path: Torture.keychainPath(dir), password: password, options: options)
    }
    guard let database else { exit(0) }
    report("add") { () throws(KeychainStoreError) in print(try database.insert(item)) }
    report("add again") { () throws(KeychainStoreError) in _ = try database.insert(item) }
    report("find") { () throws(KeychainStoreError) in
        for found in try database.find(query, decrypt: true) { print(found, String(reflecting: found)); dump(found) }
    }
    report("wrong password") { () throws(KeychainStoreError) in try database.unlock(password: Data((canary + "-wrong").utf8)) }
    report("change password from wrong") { () throws(KeychainStoreError) in
        try database.changePassword(from: Data((canary + "-wrong").utf8), to: Data((canary + "-new").utf8))
    }
    database.lockKeychain()
    report("find while locked") { () throws(KeychainStoreError) in _ = try database.find(query, decrypt: true) }
    report("unlock") { () throws(KeychainStoreError) in try database.unlock(password: password) }
    var changes = ItemChanges()
    changes.data = Data((canary + "-updated").utf8)
    changes.attributes["icmt"] = .string(canary + "-comment")
    report("update") { () throws(KeychainStoreError) in try database.update(query, with: changes) }
    var huge = ItemChanges()
    huge.data = Data(repeating: 0x43, count: 17 << 20)
    report("update too large") { () throws(KeychainStoreError) in try database.update(query, with: huge) }
    report("delete") { () throws(KeychainStoreError) in try database.delete(query) }
    report("delete again") { () throws(KeychainStoreError) in try database.delete(query) }
    report("open with a wrong password") { () throws(KeychainStoreError) in
        _ = try KeychainDatabase.open(path: Torture.keychainPath(dir), password: Data((canary + "-wrong").utf8), options: options)
    }
    exit(0)
}

// MARK: main

let commandLine = CommandLine.arguments
guard commandLine.count >= 2 else { fail("usage: keychainkit-torture crash|concurrent|populate|verify --dir D …") }
let parsed = Arguments(commandLine.dropFirst(2))
switch commandLine[1] {
case "crash": crashWriter(parsed)
case "concurrent": concurrentWorker(parsed)
case "populate": populate(parsed)
case "verify": verify(parsed)
case "hygiene": hygiene(parsed)
default: fail("unknown command \(commandLine[1])")
}
