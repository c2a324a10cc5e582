import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing
@testable import KeychainStore
#if canImport(Glibc)
import Glibc
#endif

/// The state the acknowledgement log says the keychain must be in.
struct AckModel {
    /// account → (tag, length) of its current value; absent accounts are missing.
    var items: [String: (tag: String, length: Int)] = [:]
    var generation = 0

    /// One announced operation.
    struct Operation {
        var sequence: Int
        var kind: String
        var fields: [String]
        var status: Int32?
    }

    /// Parses the complete lines of `text` for the run that printed "ready <run> …".
    static func operations(in text: String, run: Int) -> [Operation] {
        var operations: [Operation] = []
        var inRun = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ").map(String.init)
            guard let first = fields.first else { continue }
            if first == "ready" {
                inRun = fields.count > 1 && fields[1] == String(run)
                continue
            }
            guard inRun, fields.count >= 3, let sequence = Int(fields[1]) else { continue }
            if first == "begin" {
                operations.append(Operation(sequence: sequence, kind: fields[2], fields: Array(fields.dropFirst(3))))
            } else if first == "ack", let status = Int32(fields[2]), let index = operations.lastIndex(where: { $0.sequence == sequence }) {
                operations[index].status = status
            }
        }
        return operations
    }

    /// The state after `operation` if it took effect.
    func applying(_ operation: Operation) -> AckModel {
        var next = self
        switch operation.kind {
        case "add":
            let account = operation.fields[0]
            if items[account] == nil, let length = Int(operation.fields[2]) { next.items[account] = (operation.fields[1], length) }
        case "update":
            let account = operation.fields[0]
            if items[account] != nil, let length = Int(operation.fields[2]) { next.items[account] = (operation.fields[1], length) }
        case "delete":
            next.items[operation.fields[0]] = nil
        case "password":
            if let to = Int(operation.fields[1]) { next.generation = to }
        default:
            break
        }
        return next
    }
}

/// What a series of kill cycles observed.
struct CrashReport {
    var cycles = 0, acknowledged = 0, pendingAtKill = 0, pendingPasswords = 0, passwordsKeptOld = 0, passwordsTookNew = 0
    var pendingWritesApplied = 0, pendingWritesNotApplied = 0
    var violations: [String] = []
}

@Suite("Crash safety: SIGKILL at random points", .reliability, .tags(.reliability))
struct CrashTests {
    static let accounts = 40

    /// Runs `cycles` writer processes on one keychain, each SIGKILLed at a random point, and checks
    /// the file against the acknowledgement log after every kill.
    static func run(cycles: Int, ackEarly: Bool = false, anchored: Bool = false) throws -> CrashReport {
        let scratch = try TemporaryKeychain(ackEarly ? "crash-selftest" : "crash")
        defer { scratch.remove() }
        if anchored { try scratch.anchor() }
        _ = try scratch.open(generation: 0)  // create it (the children never create)
        var model = AckModel()
        var random = SystemRandomNumberGenerator()
        var report = CrashReport()
        for cycle in 1...cycles {
            report.cycles = cycle
            try String(model.generation).write(toFile: scratch.directory + "/generation", atomically: true, encoding: .utf8)
            let heavy = cycle % 4 == 0  // every 4th run changes the password half of the time
            let child = try TortureTool.start(["crash", "--dir", scratch.directory, "--seed", String(cycle)]
                                                + (heavy ? ["--password-heavy"] : []) + (ackEarly ? ["--ack-early"] : []),
                                              in: scratch.directory, label: "crash")
            // Kill at a random point after the writer is ready (opening is not what is tested).
            let readyDeadline = Date().addingTimeInterval(60)
            while child.isRunning, Date() < readyDeadline,
                  !((try? String(contentsOfFile: scratch.directory + "/acks.log", encoding: .utf8)) ?? "").contains("ready \(cycle) ") {
                usleep(500)
            }
            usleep(UInt32.random(in: 0...100_000, using: &random))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            let childErrors = (try? String(contentsOfFile: scratch.directory + "/crash.err", encoding: .utf8)) ?? ""
            guard child.terminationReason == .uncaughtSignal else {
                report.violations.append("cycle \(cycle): the writer exited by itself: \(childErrors)")
                return report
            }

            let log = try String(contentsOfFile: scratch.directory + "/acks.log", encoding: .utf8)
            var pending: AckModel.Operation?
            for operation in AckModel.operations(in: log, run: cycle) {
                guard let status = operation.status else {
                    pending = operation  // only the last can be unacknowledged
                    continue
                }
                report.acknowledged += 1
                if ![0, -25299, -25300].contains(status) {
                    report.violations.append("cycle \(cycle): \(operation.kind) returned \(status)")
                }
                if status == 0 { model = model.applying(operation) }
            }
            if pending != nil { report.pendingAtKill += 1 }

            // 1. The file is sound.
            let integrity = try RawSQLite(scratch.keychainPath).integrityCheck()
            if integrity != "ok" { report.violations.append("cycle \(cycle): integrity_check: \(integrity)") }

            // 2. Exactly one password works.
            let database: KeychainDatabase
            if let pending, pending.kind == "password" {
                report.pendingPasswords += 1
                let old = storeError { _ = try scratch.open(generation: model.generation) }
                let new = storeError { _ = try scratch.open(generation: model.generation + 1) }
                if (old == nil) == (new == nil) || (old != nil && old != .wrongPassword) || (new != nil && new != .wrongPassword) {
                    report.violations.append("cycle \(cycle): old password \(String(describing: old)), new \(String(describing: new))")
                }
                if new == nil {
                    model.generation += 1
                    report.passwordsTookNew += 1
                } else {
                    report.passwordsKeptOld += 1
                }
            } else if model.generation > 0, storeError({ _ = try scratch.open(generation: model.generation - 1) }) != .wrongPassword {
                report.violations.append("cycle \(cycle): the previous password still opens the keychain")
            }
            do {
                database = try scratch.open(generation: model.generation)
            } catch {
                report.violations.append("cycle \(cycle): the acknowledged password fails: \(error)")
                return report
            }

            // 3. Every acknowledged write is there and reads exactly; the pending one is all or nothing.
            let after = pending.map { model.applying($0) }
            var resolvedPendingToAfter = false
            for index in 0..<Self.accounts {
                let account = "acct-\(index)"
                var observed: (tag: String, length: Int)?
                do {
                    let items = try database.find(Torture.query(account: account), decrypt: true)
                    if items.count > 1 { report.violations.append("cycle \(cycle): \(items.count) items for \(account)") }
                    if let item = items.first {
                        guard let tag = Torture.selfConsistentTag(item) else {
                            report.violations.append("cycle \(cycle): \(account) returned altered data")
                            continue
                        }
                        observed = (tag, item.data?.count ?? 0)
                    }
                } catch {
                    report.violations.append("cycle \(cycle): reading \(account) failed with \(error.osStatus) (half-written?)")
                    continue
                }
                let expected = model.items[account]
                if observed?.tag == expected?.tag { continue }
                if let after, observed?.tag == after.items[account]?.tag {
                    resolvedPendingToAfter = true
                    continue
                }
                report.violations.append("cycle \(cycle): \(account) is \(observed?.tag ?? "absent"), acknowledged \(expected?.tag ?? "absent")")
            }
            if let pending, let after, pending.kind != "password" {
                if resolvedPendingToAfter {
                    model = after
                    report.pendingWritesApplied += 1
                } else {
                    report.pendingWritesNotApplied += 1
                }
            }
            let count = try database.itemCount()
            if count != model.items.count { report.violations.append("cycle \(cycle): \(count) items, \(model.items.count) acknowledged") }
        }
        return report
    }

    @Test("every acknowledged write survives SIGKILL; nothing half-written; integrity ok; exactly one password works")
    func killCycles() throws {
        let cycles = Reliability.count("CRASH_CYCLES", ci: 200, long: 2_000)
        let start = ContinuousClock.now
        let report = try Self.run(cycles: cycles)
        Reliability.figure("crash", ["cycles": report.cycles, "acknowledged_ops": report.acknowledged,
                                     "killed_mid_operation": report.pendingAtKill, "pending_writes_applied": report.pendingWritesApplied,
                                     "pending_writes_not_applied": report.pendingWritesNotApplied,
                                     "interrupted_password_changes": report.pendingPasswords, "kept_old_password": report.passwordsKeptOld,
                                     "took_new_password": report.passwordsTookNew, "violations": report.violations.count,
                                     "seconds": Reliability.seconds(since: start)])
        #expect(report.violations.isEmpty, "\(report.violations.prefix(20))")
        #expect(report.cycles == cycles)
        #expect(report.acknowledged > cycles, "the writer must acknowledge operations between kills")
        #expect(report.pendingPasswords > 0, "some kills must interrupt a password change")
    }

    @Test("with a rollback anchor, the same kill cycles hold and a genuine file is never refused as rolled back")
    func killCyclesAnchored() throws {
        let cycles = Reliability.count("CRASH_ANCHORED_CYCLES", ci: 60, long: 1_000)
        let start = ContinuousClock.now
        // A kill between a commit and the anchor's update leaves the anchor behind the file: the
        // checker's anchored opens must accept that, and must still refuse the previous password.
        let report = try Self.run(cycles: cycles, anchored: true)
        Reliability.figure("crash-anchored", ["cycles": report.cycles, "acknowledged_ops": report.acknowledged,
                                              "killed_mid_operation": report.pendingAtKill,
                                              "interrupted_password_changes": report.pendingPasswords,
                                              "violations": report.violations.count, "seconds": Reliability.seconds(since: start)])
        #expect(report.violations.isEmpty, "\(report.violations.prefix(20))")
        #expect(report.cycles == cycles)
        #expect(report.acknowledged > cycles, "the writer must acknowledge operations between kills")
    }

    @Test("the checker catches a writer that acknowledges before its write commits (self-test)")
    func checkerSelfTest() throws {
        let report = try Self.run(cycles: Reliability.count("CRASH_SELFTEST_CYCLES", ci: 40, long: 40), ackEarly: true)
        #expect(!report.violations.isEmpty, "a writer that lies about durability must be caught")
        Reliability.figure("crash-selftest", ["cycles": report.cycles, "violations_found": report.violations.count])
    }
}
