import Foundation
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

@Suite("Crash safety: SIGKILL at random points")
struct CrashTests {
    static let accounts = 40

    @Test("every acknowledged write survives SIGKILL; nothing half-written; integrity ok; exactly one password works")
    func killCycles() throws {
        let cycles = Reliability.count("CRASH_CYCLES", ci: 200, long: 2_000)
        let scratch = try Scratch("crash")
        defer { scratch.remove() }
        let start = ContinuousClock.now
        _ = try scratch.open(generation: 0)  // create it (the children never create)
        var model = AckModel()
        var random = SystemRandomNumberGenerator()
        var acknowledged = 0, pendingAtKill = 0, pendingPasswords = 0, passwordsKeptOld = 0, passwordsTookNew = 0
        var pendingWritesApplied = 0, pendingWritesNotApplied = 0, failures = 0
        for cycle in 1...cycles {
            try String(model.generation).write(toFile: scratch.directory + "/generation", atomically: true, encoding: .utf8)
            let heavy = cycle % 4 == 0  // every 4th run changes the password half of the time
            let child = try TortureTool.start(["crash", "--dir", scratch.directory, "--seed", String(cycle)] + (heavy ? ["--password-heavy"] : []),
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
            try #require(child.terminationReason == .uncaughtSignal, "cycle \(cycle): the writer exited by itself: \(childErrors)")

            let log = try String(contentsOfFile: scratch.directory + "/acks.log", encoding: .utf8)
            let operations = AckModel.operations(in: log, run: cycle)
            var pending: AckModel.Operation?
            for operation in operations {
                guard let status = operation.status else {
                    pending = operation  // only the last can be unacknowledged
                    continue
                }
                acknowledged += 1
                #expect([0, -25299, -25300].contains(status), "cycle \(cycle): \(operation.kind) returned \(status)")
                if status == 0 { model = model.applying(operation) }
            }
            if pending != nil { pendingAtKill += 1 }

            // 1. The file is sound.
            let integrity = try RawSQLite(scratch.keychainPath).integrityCheck()
            #expect(integrity == "ok", "cycle \(cycle): integrity_check: \(integrity)")

            // 2. Exactly one password works.
            let database: KeychainDatabase
            if let pending, pending.kind == "password" {
                pendingPasswords += 1
                let old = storeError { _ = try scratch.open(generation: model.generation) }
                let new = storeError { _ = try scratch.open(generation: model.generation + 1) }
                #expect((old == nil) != (new == nil), "cycle \(cycle): old password \(String(describing: old)), new \(String(describing: new))")
                #expect(old == nil || old == .wrongPassword)
                #expect(new == nil || new == .wrongPassword)
                if new == nil { model.generation += 1; passwordsTookNew += 1 } else { passwordsKeptOld += 1 }
                database = try scratch.open(generation: model.generation)
            } else {
                database = try scratch.open(generation: model.generation)
                if model.generation > 0 {
                    #expect(storeError { _ = try scratch.open(generation: model.generation - 1) } == .wrongPassword)
                }
            }

            // 3. Every acknowledged write is there and reads exactly; the pending one is all or nothing.
            let after = pending.map { model.applying($0) }
            var resolvedPendingToAfter = false
            for index in 0..<Self.accounts {
                let account = "acct-\(index)"
                var observed: (tag: String, length: Int)?
                do {
                    let items = try database.find(TortureValues.query(account: account), decrypt: true)
                    #expect(items.count <= 1, "cycle \(cycle): \(items.count) items for \(account)")
                    if let item = items.first {
                        guard let tag = TortureValues.tag(of: item) else {
                            Issue.record("cycle \(cycle): \(account) returned altered data")
                            failures += 1
                            continue
                        }
                        observed = (tag, item.data?.count ?? 0)
                    }
                } catch {
                    Issue.record("cycle \(cycle): reading \(account) failed with \(error.osStatus) (half-written?)")
                    failures += 1
                    continue
                }
                let expected = model.items[account]
                if observed?.tag == expected?.tag { continue }
                if let after, observed?.tag == after.items[account]?.tag {
                    resolvedPendingToAfter = true
                    continue
                }
                Issue.record("cycle \(cycle): \(account) is \(observed?.tag ?? "absent"), acknowledged \(expected?.tag ?? "absent")")
                failures += 1
            }
            if let pending, let after, pending.kind != "password" {
                if resolvedPendingToAfter { model = after; pendingWritesApplied += 1 } else { pendingWritesNotApplied += 1 }
            }
            #expect(try database.itemCount() == model.items.count, "cycle \(cycle): item count")
        }
        Reliability.figure("crash", ["cycles": cycles, "acknowledged_ops": acknowledged, "killed_mid_operation": pendingAtKill,
                                     "pending_writes_applied": pendingWritesApplied, "pending_writes_not_applied": pendingWritesNotApplied,
                                     "interrupted_password_changes": pendingPasswords, "kept_old_password": passwordsKeptOld,
                                     "took_new_password": passwordsTookNew, "failures": failures,
                                     "seconds": Reliability.seconds(since: start)])
        #expect(acknowledged > cycles, "the writer must acknowledge operations between kills")
    }
}
