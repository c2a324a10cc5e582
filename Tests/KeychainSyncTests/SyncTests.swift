import Crypto
import EtcdClusterSupport
import Foundation
import KeychainStore
import Testing
@testable import KeychainSync
import RequiredToolSupport

/// Synchronizable items across three simulated devices through a real 3-member etcd cluster: the
/// honest paths (create, sponsored join, sync both ways, conflicts, failures, removal).
@Suite("Sync through etcd (real 3-member cluster, three devices)", .serialized, .integration, .tags(.external, .etcd))
struct SyncTests {
    @Test("adds, updates and deletes on any device reach the others; a delete is never undone by an older copy")
    func convergence() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b, c) = (circle.a, circle.b, circle.c)
            try a.add("x", "x1")
            try b.add("y", "y1")
            try circle.syncAll(a, b, c)
            for device in [a, b, c] { #expect(try device.contents() == ["x": "x1", "y": "y1"]) }

            try c.update("x", "x2")
            try circle.syncAll(c, a, b)
            for device in [a, b, c] { #expect(try device.secret("x") == "x2") }

            try b.delete("y")
            try circle.syncAll(b, a, c)
            for device in [a, b, c] { #expect(try device.secret("y") == nil) }
            // A device syncing again (it had y before) does not bring it back.
            try circle.syncAll(a, c, b)
            for device in [a, b, c] { #expect(try device.contents() == ["x": "x2"]) }
            // Re-adding after a delete is a newer change: it wins.
            try a.add("y", "y2")
            try circle.syncAll(a, b, c)
            for device in [a, b, c] { #expect(try device.secret("y") == "y2") }
        }
    }

    @Test("conflicting edits: the newest modification wins on every device, whatever the order of syncs")
    func conflictingEdits() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b, c) = (circle.a, circle.b, circle.c)
            try a.add("x", "base")
            try circle.syncAll(a, b, c)
            try a.update("x", "from-a")
            circle.tick()  // B's edit is the later one
            try b.update("x", "from-b")
            try b.sync()   // B first, then A (whose edit is older) — A must not overwrite B's
            try a.sync()
            try circle.syncAll(c, a, b)
            for device in [a, b, c] { #expect(try device.secret("x") == "from-b") }
        }
    }

    @Test("delete against edit: the later one wins, in both orders")
    func deleteAgainstEdit() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b, c) = (circle.a, circle.b, circle.c)
            try a.add("d", "v")
            try a.add("e", "v")
            try circle.syncAll(a, b, c)
            // d: deleted on A, then edited later on B → the edit wins.
            try a.delete("d")
            circle.tick()
            try b.update("d", "edited-later")
            // e: edited on B, then deleted later on A → the delete wins.
            try b.update("e", "edited-earlier")
            circle.tick()
            try a.delete("e")
            try circle.syncAll(a, b, c)
            for device in [a, b, c] {
                #expect(try device.secret("d") == "edited-later")
                #expect(try device.secret("e") == nil)
            }
        }
    }

    @Test("only synchronizable, portable items leave the device; etcd holds no name, account, service, secret or key")
    func onlyCiphertextLeaves() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b) = (circle.a, circle.b)
            try a.add("shared-account-canary", "shared-secret-canary")
            _ = try a.database.insert(SyncDevice.item("local-account-canary", "local-secret-canary", synchronizable: false))
            _ = try a.database.insert(SyncDevice.item("bound-account-canary", "bound-secret-canary", protection: .whenUnlockedThisDeviceOnly))
            try circle.syncAll(a, b)
            #expect(try b.contents() == ["shared-account-canary": "shared-secret-canary"])

            let client = try EtcdClient(endpoints: circle.cluster.endpoints)
            let everything = try client.range(prefix: Data("/".utf8)).keyValues
            #expect(try circle.transport().items().count == 1, "one record: the synchronizable, portable item")
            for canary in ["canary", "svc", "app", "shared-secret", "local-", "bound-"] {
                let needle = Data(canary.utf8)
                #expect(!everything.contains { $0.key.range(of: needle) != nil || $0.value.range(of: needle) != nil }, "\(canary) in etcd")
            }
            let (_, bundle, identity) = try a.state().parts()
            var secrets = [SyncSealing.bytes(of: circle.code.secret), SyncSealing.bytes(of: bundle.namingKey),
                           identity.signingKey.rawRepresentation, identity.agreementKey.rawRepresentation]
            secrets += bundle.secrets.values.map { SyncSealing.bytes(of: $0) }
            for secret in secrets {
                #expect(!everything.contains { $0.value.range(of: secret) != nil }, "a circle key or device private key in etcd")
            }
        }
    }

    @Test("a member killed mid-sync, then the whole cluster down and back: errors, nothing lost, convergence after")
    func clusterFailures() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (cluster, a, b, c) = (circle.cluster, circle.a, circle.b, circle.c)
            for index in 0..<20 { try a.add("k\(index)", "v\(index)") }
            cluster.kill(0)
            try circle.syncAll(a, b, c)
            #expect(try c.contents().count == 20)
            // A member killed while a pass is writing: the pass fails over (or fails cleanly), and
            // the next passes converge with nothing lost.
            try cluster.start(0)
            try cluster.waitUntilServing()
            for index in 20..<120 { try a.add("k\(index)", "v\(index)") }
            // A's pass as it would run, but member 1 is killed after the pass has read the
            // records and before it writes its 100 new ones.
            let interrupted = KeychainSynchronizer(database: a.database, openTransport: InterruptedTransport.opener(
                wrapping: EtcdTransport.open, beforeFirstPublish: { cluster.kill(1) }))
            do throws(SyncError) {
                _ = try interrupted.synchronize()
            } catch {
                if case .transport = error {} else { Issue.record("mid-sync kill: \(error)") }
            }
            #expect(cluster.members.map { $0.process == nil } == [false, true, false], "the kill landed in the pass")
            try circle.syncAll(a, b, c)
            for device in [a, b, c] { #expect(try device.contents().count == 120) }
            try cluster.start(1)
            try cluster.waitUntilServing()

            for index in 1..<3 { cluster.kill(index) }
            try b.update("k1", "while-down")
            let error = #expect(throws: SyncError.self) { try b.sync() }
            if case .transport? = error {} else { Issue.record("expected a transport error, got \(String(describing: error))") }
            #expect(try b.secret("k1") == "while-down", "the local write stands")

            for index in 0..<3 { try cluster.start(index) }
            try cluster.waitUntilServing()
            try circle.syncAll(b, a, c)
            for device in [a, b, c] {
                #expect(try device.secret("k1") == "while-down")
                #expect(try device.contents().count == 120)
            }
        }
    }

    @Test("tampered records are refused, never applied, and repaired by a device that has the item")
    func tamperedRecords() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b) = (circle.a, circle.b)
            try a.add("t", "genuine")
            try a.add("u", "other")
            try circle.syncAll(a, b)
            let transport = try circle.transport()
            let records = try transport.items()
            #expect(records.count == 2)
            var flipped = records[0].bytes
            flipped[flipped.count - 80] ^= 0x01  // inside the ciphertext (the signature is the last 64 bytes)
            try transport.put(records[0].name, flipped)
            try b.update("t", "b-local")  // B has its own newer version of one of them
            let report = try a.sync()
            #expect(report.refused >= 1)
            #expect(try a.contents() == ["t": "genuine", "u": "other"], "nothing altered was applied")
            try transport.put(records[0].name, records[1].bytes)  // a whole record moved to another name
            let moved = try a.sync()
            #expect(moved.refused >= 1)
            #expect(try a.contents() == ["t": "genuine", "u": "other"])
            // B's newer write replaces the damaged record; A then takes it.
            try circle.syncAll(b, a)
            #expect(try a.secret("t") == "b-local")
        }
    }

    @Test("sponsored join: a request alone makes no member; a member sponsors it; the device then syncs both ways")
    func sponsoredJoin() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let location = cluster.endpoints.joined(separator: ",")
            let a = try SyncDevice("a"), b = try SyncDevice("b")
            let code = try a.synchronizer.create(location: location)
            try a.add("from-a", "1")
            try a.sync()
            let id = try b.synchronizer.join(code: code, location: location)
            #expect(try a.synchronizer.members() == [try a.synchronizer.deviceID()], "a request is not a membership")
            #expect(try a.synchronizer.joinRequests() == [id], "a member sees the request before sponsoring it")
            #expect(throws: SyncError.awaitingSponsorship(id)) { try b.sync() }
            #expect(throws: SyncError.alreadyInCircle) { try b.synchronizer.join(code: code, location: location) }
            #expect(throws: SyncError.noJoinRequest("00112233445566778899aabbccddeeff")) {
                try a.synchronizer.sponsor("00112233445566778899AABBCCDDEEFF")
            }
            let sponsorship = try a.synchronizer.sponsor(id.uppercased())
            let members = sponsorship.members
            #expect(members == [try a.synchronizer.deviceID(), id].sorted())
            #expect(throws: SyncError.alreadyMember(id)) { try a.synchronizer.sponsor(id) }
            #expect(try a.synchronizer.joinRequests().isEmpty, "a sponsored request is gone")
            // Sponsored, but nothing is pinned until the person types the sponsor's confirmation.
            #expect(throws: SyncError.awaitingSponsorship(id)) { try b.sync() }
            #expect(throws: SyncError.sponsorshipNotFound(id), "a confirmation of no list here") {
                try b.synchronizer.confirmJoin(JoinConfirmation(digest: Data(repeating: 7, count: 16)))
            }
            #expect(throws: SyncError.invalidJoinConfirmation) { try JoinConfirmation(text: "12-34") }
            let typed = try JoinConfirmation(text: " " + sponsorship.confirmation.text.uppercased().replacingOccurrences(of: "-", with: "") + "\n")
            #expect(typed == sponsorship.confirmation && sponsorship.confirmation.text.count == 39)
            #expect(try b.synchronizer.confirmJoin(typed) == members)
            #expect(try b.synchronizer.confirmJoin(typed) == members, "confirming again changes nothing")
            try b.sync()
            #expect(try b.contents() == ["from-a": "1"])
            try b.add("from-b", "2")
            try b.sync()
            try a.sync()
            #expect(try a.contents() == ["from-a": "1", "from-b": "2"])
            #expect(try b.synchronizer.status().epoch == 2 && b.synchronizer.status().members == members)
        }
    }

    @Test("a removed device's keys are rotated out: the others keep syncing, it cannot, the old code no longer authorises a join")
    func removedDevice() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b, c) = (circle.a, circle.b, circle.c)
            try a.add("before", "1")
            try circle.syncAll(a, b, c)
            let cID = try c.synchronizer.deviceID()
            let removal = try a.synchronizer.removeDevice(cID)
            #expect(removal.code.circleID == circle.code.circleID && removal.code != circle.code)
            #expect(removal.members == [try a.synchronizer.deviceID(), try b.synchronizer.deviceID()].sorted())
            #expect(removal.skipped.isEmpty)
            #expect(try !a.synchronizer.members().contains(cID))

            try a.add("after", "2")
            try circle.syncAll(a, b)
            #expect(try b.contents() == ["before": "1", "after": "2"])
            #expect(throws: SyncError.removedFromCircle) { try c.sync() }

            // The old code no longer authorises a join request; the new one does.
            let d = try SyncDevice("d"), e = try SyncDevice("e")
            let dID = try d.synchronizer.join(code: circle.code, location: circle.location)
            let refused = #expect(throws: SyncError.self) { try a.synchronizer.sponsor(dID) }
            if case .joinRequestRefused? = refused {} else { Issue.record("expected a refused request, got \(String(describing: refused))") }
            try e.join(removal.code, sponsor: b, location: circle.location)
            #expect(try e.contents() == ["before": "1", "after": "2"])
        }
    }

    @Test("a wrong code is refused by the sponsor; a malformed one before anything is sent")
    func wrongCode() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let location = cluster.endpoints.joined(separator: ",")
            let a = try SyncDevice("a"), b = try SyncDevice("b"), c = try SyncDevice("c")
            let code = try a.synchronizer.create(location: location)
            let wrong = CircleCode(circleID: code.circleID, secret: SymmetricKey(size: .bits256))
            let id = try b.synchronizer.join(code: wrong, location: location)
            #expect(try a.synchronizer.joinRequests().isEmpty, "a request made with a wrong code is not offered")
            let refused = #expect(throws: SyncError.self) { try a.synchronizer.sponsor(id) }
            if case .joinRequestRefused? = refused {} else { Issue.record("expected a refused request, got \(String(describing: refused))") }
            #expect(throws: SyncError.awaitingSponsorship(id)) { try b.sync() }
            let elsewhere = CircleCode(circleID: Data(repeating: 1, count: 16), secret: SymmetricKey(size: .bits256))
            #expect(throws: SyncError.circleNotFound) { try c.synchronizer.join(code: elsewhere, location: location) }
            #expect(throws: SyncError.invalidCircleCode) { try CircleCode(text: "kkc2-00-11") }
            #expect(throws: SyncError.invalidCircleCode) { try CircleCode(text: code.text.replacingOccurrences(of: "kkc2-", with: "kkc3-")) }
            #expect(throws: SyncError.notInCircle) { try c.sync() }
            #expect(throws: SyncError.alreadyInCircle) { try a.synchronizer.create(location: location) }
        }
    }

    @Test("a locked password keychain cannot sync (its circle state needs the password) and says so; after the unlock it catches up")
    func lockedDevice() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle(["a", "b"], passwords: ["b": "pw"])
            let (a, b) = (circle.a, circle.b)
            try a.add("l", "while-locked")
            try a.sync()
            b.database.lockKeychain()
            #expect(throws: SyncError.locked) { try b.sync() }
            #expect(throws: SyncError.locked) { try b.synchronizer.status() }
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
