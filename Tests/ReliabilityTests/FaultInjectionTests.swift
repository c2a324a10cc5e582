#if KEYCHAINKIT_FAULT_INJECTION
import CSQLite
import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing
@testable import KeychainStore
import KeychainVocabulary
#if canImport(Glibc)
import Glibc
#endif

/// Injects one kind of fault at the Nth eligible call through `IOSeam` (and, for the persistent
/// mode, at every later one), counting calls on the test's thread only.
final class FaultPlan {
    enum Kind: String, CaseIterable {
        case eio = "EIO", enospc = "ENOSPC", eintr = "EINTR", busy = "SQLITE_BUSY"
        /// EIO from `fsync` inside SQLite (its `xSync`, through `FsyncFaultVFS`): the one fault after
        /// which a write may or may not have happened.
        case fsync = "fsync-EIO"
    }

    enum Mode: String {
        /// The Nth call fails once.
        case transient
        /// The Nth call and every later one fail.
        case persistent
        /// The Nth, N+1th and N+2th calls fail (EINTR: repeated interruptions).
        case burst
    }

    let kind: Kind
    let mode: Mode
    let target: Int
    private(set) var eligibleCalls = 0
    private(set) var injected: [IOSeam.Call] = []

    init(kind: Kind, mode: Mode, target: Int) {
        self.kind = kind
        self.mode = mode
        self.target = target
    }

    private static let sqliteCalls: Set<IOSeam.Call> = [.sqliteOpen, .sqliteExec, .sqlitePrepare, .sqliteBind, .sqliteStep]
    private static let systemCalls: Set<IOSeam.Call> = [.fileStat, .fileMakeDirectory, .fileChangeMode, .fileOpen, .fileRead,
                                                        .fileWrite, .fileSync, .vfsOpen, .vfsRead, .vfsWrite, .vfsTruncate]
    /// Calls that allocate space (ENOSPC makes sense only there).
    private static let spaceCalls: Set<IOSeam.Call> = [.fileMakeDirectory, .fileOpen, .fileWrite, .fileSync, .vfsOpen, .vfsWrite,
                                                       .vfsTruncate, .sqliteExec, .sqliteStep]

    /// The fault this kind injects into `call`, if the call is eligible.
    private func fault(for call: IOSeam.Call) -> IOSeam.Fault? {
        switch kind {
        case .eio:
            if Self.sqliteCalls.contains(call) { return .sqlite(SQLITE_IOERR) }
            return Self.systemCalls.contains(call) ? .errno(EIO) : nil
        case .enospc:
            guard Self.spaceCalls.contains(call) else { return nil }
            return Self.sqliteCalls.contains(call) ? .sqlite(SQLITE_FULL) : .errno(ENOSPC)
        case .eintr:
            return Self.systemCalls.contains(call) ? .errno(EINTR) : nil
        case .busy:
            return [IOSeam.Call.sqliteExec, .sqliteStep, .sqlitePrepare].contains(call) ? .sqlite(SQLITE_BUSY) : nil
        case .fsync:
            return call == .vfsSync ? .errno(EIO) : nil
        }
    }

    var observer: IOSeam.Observer {
        IOSeam.Observer { [self] call, _ in
            guard let fault = fault(for: call) else { return nil }
            eligibleCalls += 1
            let hit: Bool
            switch mode {
            case .transient: hit = eligibleCalls == target
            case .persistent: hit = eligibleCalls >= target
            case .burst: hit = (target..<target + 3).contains(eligibleCalls)
            }
            guard hit else { return nil }
            injected.append(call)
            return fault
        }
    }
}

/// The observable state of the fault-injection keychain: each account's value tag, and which
/// password generation opens it.
struct KeychainState: Equatable, CustomStringConvertible {
    var items: [String: String]
    var generation: Int?

    var description: String {
        items.keys.sorted().map { "\($0)=\(items[$0] ?? "?")" }.joined(separator: ",") + " gen=\(generation.map(String.init) ?? "none")"
    }
}

@Suite("I/O fault injection at every call", .serialized, .reliability, .tags(.reliability))
struct FaultInjectionTests {
    static let accounts = ["a0", "a1", "a2", "a3"]

    /// A keychain file with four items of different classes, closed cleanly (no WAL), to copy.
    static func template(in scratch: TemporaryKeychain) throws -> String {
        let path = scratch.directory + "/template.keychain-db"
        do {
            let database = try KeychainDatabase.open(path: path, password: Torture.password(generation: 0), options: scratch.options)
            for (index, account) in accounts.enumerated() {
                _ = try database.insert(Torture.newItem(account: account, index: index * 2, tag: "t\(account)", length: 300))
            }
        }
        return path
    }

    /// Reads the state through `database` (the handle that saw the fault) or a fresh one.
    static func state(_ database: KeychainDatabase, accounts: [String] = accounts + ["n0"]) throws -> [String: String] {
        var items: [String: String] = [:]
        for account in accounts {
            let found = try database.find(Torture.query(account: account), decrypt: true)
            guard let item = found.first else { continue }
            items[account] = Torture.selfConsistentTag(item) ?? "ALTERED"
        }
        return items
    }

    static func generation(of path: String, scratch: TemporaryKeychain) -> Int? {
        for generation in [0, 1] {
            if storeError({ _ = try KeychainDatabase.open(path: path, password: Torture.password(generation: generation),
                                                          options: scratch.options) }) == nil {
                return generation
            }
        }
        return nil
    }

    enum Operation: String, CaseIterable {
        case create, open, add, update, delete, changePassword
    }

    /// Runs one operation; the observer is active only around the call itself.
    static func perform(_ operation: Operation, path: String, scratch: TemporaryKeychain, database: KeychainDatabase?,
                        observer: IOSeam.Observer) -> (status: Int32, database: KeychainDatabase?) {
        var opened: KeychainDatabase?
        let status = IOSeam.withObserver(observer) { () -> Int32 in
            switch operation {
            case .create, .open:
                return TestStatus.of { opened = try KeychainDatabase.open(path: path, password: Torture.password(generation: 0),
                                                                         options: scratch.options) }
            case .add:
                return TestStatus.of { _ = try database?.insert(Torture.newItem(account: "n0", index: 0, tag: "tn0", length: 5_000)) }
            case .update:
                return TestStatus.of {
                    var changes = ItemChanges()
                    changes.data = Torture.value(tag: "u1", length: 5_000)
                    changes.attributes["labl"] = .string(Torture.label(tag: "u1", length: 5_000))
                    try database?.update(Torture.query(account: "a1"), with: changes)
                }
            case .delete:
                return TestStatus.of { try database?.delete(Torture.query(account: "a2")) }
            case .changePassword:
                return TestStatus.of { try database?.changePassword(from: Torture.password(generation: 0),
                                                                   to: Torture.password(generation: 1)) }
            }
        }
        return (status, opened ?? database)
    }

    /// The state before and after a successful operation.
    static func expectedStates(_ operation: Operation) -> (before: KeychainState, after: KeychainState) {
        let initial = Dictionary(uniqueKeysWithValues: accounts.map { ($0, "t\($0)") })
        var before = KeychainState(items: initial, generation: 0)
        var after = before
        switch operation {
        case .create:
            before = KeychainState(items: [:], generation: nil)
            after = KeychainState(items: [:], generation: 0)
        case .open: break
        case .add: after.items["n0"] = "tn0"
        case .update: after.items["a1"] = "u1"
        case .delete: after.items["a2"] = nil
        case .changePassword: after.generation = 1
        }
        return (before, after)
    }

    /// Statuses an operation may return for a fault of each kind (Apple's codes), given the call
    /// that failed first.
    static func allowedFailures(_ kind: FaultPlan.Kind, firstCall: IOSeam.Call?) -> Set<Int32> {
        switch kind {
        case .eio:
            // SQLite reports some failed page reads as "database disk image is malformed"
            // (SQLITE_CORRUPT), which the keychain reports as errSecDecode.
            return firstCall == .vfsRead ? [-36, -26275] : [-36]  // errSecIO
        case .enospc:
            // A failed read-write open of the database is retried read-only by SQLite, which
            // loses the errno; the keychain refuses that handle with errSecIO.
            return firstCall == .vfsOpen ? [-34, -36] : [-34]  // errSecDiskFull
        case .eintr: return []  // retried, never surfaced
        case .busy: return [-36]  // errSecIO: the keychain stayed busy
        case .fsync: return [-36]  // errSecIO (SQLITE_IOERR_FSYNC)
        }
    }

    /// The anchor directory's files (anchored runs): saved after the template is made and put back
    /// before every run, since each run starts again from the template's generation.
    static func anchorFiles(_ scratch: TemporaryKeychain) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: scratch.anchorDirectory) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: scratch.anchorDirectory + "/" + name))
        }
        return files
    }

    static func restoreAnchorFiles(_ files: [String: Data], in scratch: TemporaryKeychain) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: scratch.anchorDirectory) {
            try FileManager.default.removeItem(atPath: scratch.anchorDirectory + "/" + name)
        }
        for (name, contents) in files {
            guard FileManager.default.createFile(atPath: scratch.anchorDirectory + "/" + name, contents: contents,
                                                 attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    @Test("EIO, ENOSPC, EINTR and SQLITE_BUSY at the Nth call of every operation: Apple's status, all or nothing, earlier items intact",
          arguments: FaultPlan.Kind.allCases, [false, true])
    func everyCall(kind: FaultPlan.Kind, anchored: Bool) throws {
        // Anchored: the same sweep with a rollback anchor, whose file I/O (open, read, flock,
        // write) is faulted too; a failure after the commit must leave status 0 and the new state.
        let scratch = try TemporaryKeychain("faults-\(kind.rawValue)\(anchored ? "-anchored" : "")")
        defer { scratch.remove() }
        if anchored { try scratch.anchor() }
        let template = try Self.template(in: scratch)
        let templateAnchors = anchored ? try Self.anchorFiles(scratch) : [:]
        let start = ContinuousClock.now
        var runs = 0, failedRuns = 0, statuses: [Int32: Int] = [:], maximumN = 0
        var failedButApplied = 0  // fsync only: errSecIO, yet the write is there
        let modes: [FaultPlan.Mode] = kind == .eintr ? [.transient, .burst] : [.transient, .persistent]
        for operation in Operation.allCases {
            for mode in modes {
                var target = 1
                while target < 500 {
                    let path = scratch.directory + "/run.keychain-db"
                    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
                    if operation != .create {
                        try FileManager.default.copyItem(atPath: template, toPath: path)
                    }
                    if anchored { try Self.restoreAnchorFiles(templateAnchors, in: scratch) }
                    let database = operation == .create || operation == .open ? nil : try KeychainDatabase.open(
                        path: path, password: Torture.password(generation: 0), options: scratch.options)
                    let plan = FaultPlan(kind: kind, mode: mode, target: target)
                    let (status, handle) = Self.perform(operation, path: path, scratch: scratch, database: database, observer: plan.observer)
                    runs += 1
                    statuses[status, default: 0] += 1
                    let context = "\(kind.rawValue) \(mode.rawValue) \(operation.rawValue) at call \(target) (\(plan.injected.map(\.rawValue)))"
                    let (before, after) = Self.expectedStates(operation)
                    if plan.injected.isEmpty {
                        #expect(status == 0, "\(context): \(status) without a fault")
                        maximumN = max(maximumN, target - 1)
                    } else if status != 0 {
                        failedRuns += 1
                        #expect(Self.allowedFailures(kind, firstCall: plan.injected.first).contains(status), "\(context): status \(status)")
                    }
                    var wanted = status == 0 ? after : before
                    if kind == .fsync && status != 0 {
                        // The frames reached the WAL before the failed sync: the write may be there. It
                        // must then be whole, and every handle must agree (checked below).
                        let applied = KeychainState(items: try Self.state(try KeychainDatabase.open(
                            path: path, password: Torture.password(generation: Self.generation(of: path, scratch: scratch) ?? 0),
                            options: scratch.options)), generation: Self.generation(of: path, scratch: scratch))
                        if applied == after && operation != .create && operation != .open {
                            wanted = after
                            failedButApplied += 1
                        }
                    }
                    // The handle that saw the fault (if any) and a fresh one agree with the outcome.
                    if let handle, operation != .create, operation != .open {
                        let seen = KeychainState(items: try Self.state(handle),
                                                 generation: storeError { try handle.verify(password: Torture.password(generation: 1)) } == nil ? 1 : 0)
                        #expect(seen == wanted, "\(context): status \(status), same handle sees \(seen), expected \(wanted)")
                    }
                    let generation = Self.generation(of: path, scratch: scratch)
                    var fresh = KeychainState(items: [:], generation: generation)
                    if let generation {
                        fresh.items = try Self.state(try KeychainDatabase.open(path: path, password: Torture.password(generation: generation),
                                                                                options: scratch.options))
                    }
                    if operation == .create && status != 0 {
                        // A failed creation may leave an empty file or a device key; the next open creates a sound keychain.
                        #expect(fresh.items.isEmpty && (fresh.generation == nil || fresh.generation == 0), "\(context): \(fresh)")
                    } else {
                        #expect(fresh == wanted, "\(context): status \(status), a fresh handle sees \(fresh), expected \(wanted)")
                    }
                    if FileManager.default.fileExists(atPath: path) {
                        #expect(try RawSQLite(path).integrityCheck() == "ok", "\(context): integrity")
                    }
                    if plan.injected.isEmpty { break }
                    target += 1
                }
            }
        }
        Reliability.figure("faults-\(kind.rawValue)\(anchored ? "-anchored" : "")", ["runs": runs, "failed_runs": failedRuns, "largest_N": maximumN,
                                                        "failed_but_applied": failedButApplied,
                                                        "statuses": statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","),
                                                        "seconds": Reliability.seconds(since: start)])
        #expect(runs > Operation.allCases.count * modes.count, "faults were injected")
    }
}

/// Status of a store call (0 for success); any other error is a test failure, reported as -1.
enum TestStatus {
    static func of(_ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch let error as KeychainStoreError {
            return error.osStatus
        } catch {
            Issue.record("unexpected error \(error)")
            return -1
        }
    }
}
#endif
