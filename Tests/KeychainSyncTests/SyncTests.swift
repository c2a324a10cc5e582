import Crypto
import EtcdClusterSupport
import Foundation
import KeychainStore
import Testing
@testable import KeychainSync
import RequiredToolSupport

/// Synchronizable items across three simulated devices through a real 3-member etcd cluster.
@Suite("Sync through etcd (real 3-member cluster, three devices)", .serialized, .tags(.external, .etcd))
struct SyncTests {
    /// A cluster and three devices in one circle (A created it, B and C joined with its code).
    private func circle() throws -> (EtcdCluster, SyncDevice, SyncDevice, SyncDevice, CircleCode) {
        let cluster = try EtcdCluster()
        let a = try SyncDevice("a"), b = try SyncDevice("b"), c = try SyncDevice("c")
        let code = try a.synchronizer.create(endpoints: cluster.endpoints)
        try b.synchronizer.join(code: try CircleCode(text: code.text), endpoints: cluster.endpoints)
        try c.synchronizer.join(code: code, endpoints: cluster.endpoints.reversed())
        return (cluster, a, b, c, code)
    }

    private func syncAll(_ devices: SyncDevice..., rounds: Int = 2) throws {
        for _ in 0..<rounds { for device in devices { try device.sync() } }
    }

    @Test("adds, updates and deletes on any device reach the others; a delete is never undone by an older copy")
    func convergence() async throws {
        try await onDedicatedThread {
            let (cluster, a, b, c, _) = try circle()
            defer { withExtendedLifetime(cluster) {} }  // the cluster stops when released
            try a.add("x", "x1")
            try b.add("y", "y1")
            try syncAll(a, b, c)
            for device in [a, b, c] { #expect(try device.contents() == ["x": "x1", "y": "y1"]) }

            try c.update("x", "x2")
            try syncAll(c, a, b)
            for device in [a, b, c] { #expect(try device.secret("x") == "x2") }

            try b.delete("y")
            try syncAll(b, a, c)
            for device in [a, b, c] { #expect(try device.secret("y") == nil) }
            // A device syncing again (it had y before) does not bring it back.
            try syncAll(a, c, b)
            for device in [a, b, c] { #expect(try device.contents() == ["x": "x2"]) }
            // Re-adding after a delete is a newer change: it wins.
            try a.add("y", "y2")
            try syncAll(a, b, c)
            for device in [a, b, c] { #expect(try device.secret("y") == "y2") }
        }
    }

    @Test("conflicting edits: the newest modification wins on every device, whatever the order of syncs")
    func conflictingEdits() async throws {
        try await onDedicatedThread {
            let (cluster, a, b, c, _) = try circle()
            defer { withExtendedLifetime(cluster) {} }  // the cluster stops when released
            try a.add("x", "base")
            try syncAll(a, b, c)
            try a.update("x", "from-a")
            usleep(5_000)  // B's edit is the later one
            try b.update("x", "from-b")
            try b.sync()   // B first, then A (whose edit is older) — A must not overwrite B's
            try a.sync()
            try syncAll(c, a, b)
            for device in [a, b, c] { #expect(try device.secret("x") == "from-b") }
        }
    }

    @Test("delete against edit: the later one wins, in both orders")
    func deleteAgainstEdit() async throws {
        try await onDedicatedThread {
            let (cluster, a, b, c, _) = try circle()
            defer { withExtendedLifetime(cluster) {} }  // the cluster stops when released
            try a.add("d", "v")
            try a.add("e", "v")
            try syncAll(a, b, c)
            // d: deleted on A, then edited later on B → the edit wins.
            try a.delete("d")
            usleep(5_000)
            try b.update("d", "edited-later")
            // e: edited on B, then deleted later on A → the delete wins.
            try b.update("e", "edited-earlier")
            usleep(5_000)
            try a.delete("e")
            try syncAll(a, b, c)
            for device in [a, b, c] {
                #expect(try device.secret("d") == "edited-later")
                #expect(try device.secret("e") == nil)
            }
        }
    }

    @Test("only synchronizable, portable items leave the device; etcd holds no name, account, service or secret")
    func onlyCiphertextLeaves() async throws {
        try await onDedicatedThread {
            let (cluster, a, b, _, code) = try circle()
            try a.add("shared-account-canary", "shared-secret-canary")
            _ = try a.database.insert(SyncDevice.item("local-account-canary", "local-secret-canary", synchronizable: false))
            _ = try a.database.insert(SyncDevice.item("bound-account-canary", "bound-secret-canary", protection: .whenUnlockedThisDeviceOnly))
            try syncAll(a, b)
            #expect(try b.contents() == ["shared-account-canary": "shared-secret-canary"])

            let client = try EtcdClient(endpoints: cluster.endpoints)
            let everything = try client.range(prefix: Data("/".utf8)).keyValues
            let records = everything.filter { $0.key.starts(with: CircleLayout(circleID: code.circleID).itemsPrefix) }
            #expect(records.count == 1, "one record: the synchronizable, portable item")
            for canary in ["canary", "svc", "app", "shared-secret", "local-", "bound-"] {
                let needle = Data(canary.utf8)
                #expect(!everything.contains { $0.key.range(of: needle) != nil || $0.value.range(of: needle) != nil }, "\(canary) in etcd")
            }
            #expect(!everything.contains { $0.value.range(of: SyncSealing.bytes(of: code.secret)) != nil }, "the circle secret in etcd")
        }
    }

    @Test("a member killed mid-sync, then the whole cluster down and back: errors, nothing lost, convergence after")
    func clusterFailures() async throws {
        try await onDedicatedThread {
            let (cluster, a, b, c, _) = try circle()
            for index in 0..<20 { try a.add("k\(index)", "v\(index)") }
            cluster.kill(0)
            try syncAll(a, b, c)
            #expect(try c.contents().count == 20)
            // A member killed while a pass is writing: the pass fails over (or fails cleanly), and
            // the next passes converge with nothing lost.
            try cluster.start(0)
            try cluster.waitUntilServing()
            for index in 20..<120 { try a.add("k\(index)", "v\(index)") }
            let finished = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var failure: (any Error)?
            Thread.detachNewThread {
                do { try a.sync() } catch { failure = error }
                finished.signal()
            }
            usleep(150_000)
            cluster.kill(1)
            finished.wait()
            if let failure {
                if case .store? = failure as? SyncError {} else { Issue.record("mid-sync kill: \(failure)") }
            }
            try syncAll(a, b, c)
            for device in [a, b, c] { #expect(try device.contents().count == 120) }
            try cluster.start(1)
            try cluster.waitUntilServing()

            for index in 1..<3 { cluster.kill(index) }
            try b.update("k1", "while-down")
            let error = #expect(throws: SyncError.self) { try b.sync() }
            if case .store? = error {} else { Issue.record("expected a store error, got \(String(describing: error))") }
            #expect(try b.secret("k1") == "while-down", "the local write stands")

            for index in 0..<3 { try cluster.start(index) }
            try cluster.waitUntilServing()
            try syncAll(b, a, c)
            for device in [a, b, c] {
                #expect(try device.secret("k1") == "while-down")
                #expect(try device.contents().count == 120)
            }
        }
    }

    @Test("tampered records in etcd are refused, never applied, and repaired by a device that has the item")
    func tamperedRecords() async throws {
        try await onDedicatedThread {
            let (cluster, a, b, _, code) = try circle()
            try a.add("t", "genuine")
            try a.add("u", "other")
            try syncAll(a, b)
            let client = try EtcdClient(endpoints: cluster.endpoints)
            let layout = CircleLayout(circleID: code.circleID)
            let records = try client.range(prefix: layout.itemsPrefix).keyValues
            #expect(records.count == 2)
            // One record with a flipped byte, and the other's value moved under the first's name.
            var flipped = records[0].value
            flipped[flipped.count - 5] ^= 0x01
            try client.put(records[0].key, flipped)
            try client.put(records[1].key + Data("0".utf8).prefix(0), records[1].value)  // unchanged control
            try b.update("t", "b-local")  // B has its own newer version of one of them
            let report = try a.sync()
            #expect(report.refused >= 1)
            #expect(try a.contents() == ["t": "genuine", "u": "other"], "nothing altered was applied")
            try client.put(records[0].key, records[1].value)  // a whole record moved to another name
            let moved = try a.sync()
            #expect(moved.refused >= 1)
            #expect(try a.contents() == ["t": "genuine", "u": "other"])
            // B's newer write replaces the damaged record; A then takes it.
            try syncAll(b, a)
            #expect(try a.secret("t") == "b-local")
        }
    }

    @Test("a removed device's keys are rotated out: the others keep syncing, it cannot, its old-key writes are refused, the old code no longer joins")
    func removedDevice() async throws {
        try await onDedicatedThread {
            let (cluster, a, b, c, oldCode) = try circle()
            try a.add("before", "1")
            try syncAll(a, b, c)
            let cID = try c.synchronizer.deviceID()
            let cState = try #require(try CircleState.load(from: c.database))
            let newCode = try a.synchronizer.removeDevice(cID)
            #expect(newCode.circleID == oldCode.circleID && newCode != oldCode)
            #expect(try !a.synchronizer.members().contains(cID))

            try a.add("after", "2")
            try syncAll(a, b)
            #expect(try b.contents() == ["before": "1", "after": "2"])
            let error = #expect(throws: SyncError.self) { try c.sync() }
            #expect(error == .removedFromCircle)

            // C still holds the old epoch's keys and writes a record with them: refused by the others.
            let stale = SyncRecord(name: Data(repeating: 7, count: 32), protection: .whenUnlocked,
                                   version: RecordVersion(time: Date().timeIntervalSinceReferenceDate + 1000, device: cState.deviceID),
                                   isDeletion: false, itemClass: .genericPassword,
                                   payload: ItemPayload(attributes: ["acct": .string("forged"), "svce": .string("svc"), "agrp": .string("app"),
                                                                     "sync": .number(1)], data: Data("x".utf8), accessControlFlags: nil))
            let client = try EtcdClient(endpoints: cluster.endpoints)
            try client.put(CircleLayout(circleID: cState.circleID).item(stale.name),
                           try stale.sealed(circleID: cState.circleID, bundle: try cState.keyBundle))
            let report = try b.sync()
            #expect(report.refused == 1)
            #expect(try b.secret("forged") == nil)

            let d = try SyncDevice("d")
            #expect(throws: SyncError.circleNotFound) { try d.synchronizer.join(code: oldCode, endpoints: cluster.endpoints) }
            try d.synchronizer.join(code: newCode, endpoints: cluster.endpoints)
            try d.sync()
            #expect(try d.contents() == ["before": "1", "after": "2"])
        }
    }

    @Test("a wrong code does not join; a malformed one is refused before anything is sent")
    func wrongCode() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let a = try SyncDevice("a"), b = try SyncDevice("b")
            let code = try a.synchronizer.create(endpoints: cluster.endpoints)
            let wrong = CircleCode(circleID: code.circleID, secret: SymmetricKey(size: .bits256))
            #expect(throws: SyncError.circleNotFound) { try b.synchronizer.join(code: wrong, endpoints: cluster.endpoints) }
            #expect(throws: SyncError.invalidCircleCode) { try CircleCode(text: "kkc1-00-11") }
            #expect(throws: SyncError.invalidCircleCode) { try CircleCode(text: code.text.replacingOccurrences(of: "kkc1-", with: "kkc2-")) }
            #expect(throws: SyncError.notInCircle) { try b.sync() }
            #expect(throws: SyncError.alreadyInCircle) { try a.synchronizer.create(endpoints: cluster.endpoints) }
        }
    }

    @Test("a locked device skips what it cannot open, reports it, and takes it after the unlock")
    func lockedDevice() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let a = try SyncDevice("a"), b = try SyncDevice("b", password: "pw")
            let code = try a.synchronizer.create(endpoints: cluster.endpoints)
            try b.synchronizer.join(code: code, endpoints: cluster.endpoints)
            try a.add("l", "while-locked")
            try a.sync()
            b.database.lockKeychain()
            let report = try b.sync()
            #expect(report.locked == 1 && report.pulled == 0)
            try b.database.unlock(password: Data("pw".utf8))
            #expect(try b.sync().pulled == 1)
            #expect(try b.secret("l") == "while-locked")
        }
    }

    @Test("versions order by time, then device id: the same winner whatever the order")
    func versionOrder() {
        let early = RecordVersion(time: 1, device: Data(repeating: 0xFF, count: 16))
        let late = RecordVersion(time: 2, device: Data(repeating: 0x00, count: 16))
        let tieLow = RecordVersion(time: 2, device: Data(repeating: 0x01, count: 16))
        #expect(early < late && late < tieLow)
        #expect([tieLow, early, late].max() == tieLow && [late, tieLow, early].max() == tieLow)
    }
}
