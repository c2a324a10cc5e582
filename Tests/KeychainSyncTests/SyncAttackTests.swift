import Crypto
import EtcdClusterSupport
import Foundation
import KeychainStore
import KeychainTestSupport
import Testing
@testable import KeychainSync
import KeychainVocabulary
import RequiredToolSupport
import KeychainItemCodec

/// The attacks of an adversary with write access to etcd, a removed device that kept its state, or a
/// stolen keychain file: each as it would be done, against a real 3-member etcd cluster.
@Suite("Sync attacks (real etcd cluster)", .serialized, .integration, .tags(.external, .etcd))
struct SyncAttackTests {
    /// A, B and C in a circle with one item; C removed by A (B has seen the removal). Returns the
    /// circle and C's state from before its removal (what a removed device keeps).
    private func circleWithoutC() throws -> (SyncCircle, CircleState) {
        let circle = try SyncCircle()
        try circle.a.add("before", "1")
        try circle.syncAll(circle.a, circle.b, circle.c)
        let cState = try circle.c.state()
        _ = try circle.a.synchronizer.removeDevice(try circle.c.synchronizer.deviceID())
        try circle.syncAll(circle.a, circle.b)
        return (circle, cState)
    }

    /// A record C could make with the keys it kept.
    private func record(_ account: String, _ secret: String, by state: CircleState, time: Double = Date().timeIntervalSinceReferenceDate,
                        group: String = "app", name: Data? = nil) throws -> (name: String, bytes: Data) {
        let (_, bundle, identity) = try state.parts()
        let attributes = itemAttributes(account, group: group)
        let recordName = name ?? ItemClass.genericPassword.primaryKeyName(of: attributes, using: bundle.namingKey)
        let record = SyncRecord(name: recordName, protection: .whenUnlocked, version: RecordVersion(time: time, device: state.deviceID),
                                isDeletion: false, itemClass: .genericPassword,
                                payload: ItemPayload(attributes: attributes, data: Data(secret.utf8), accessControlFlags: nil))
        return (CircleLayout.item(recordName), try record.sealed(circleID: state.circleID, bundle: bundle, writer: identity))
    }

    @Test("a removed device's forged member list and key wraps are refused: members keep their epoch, and it reads nothing written after")
    func removedDeviceForgesKeys() async throws {
        try await onDedicatedThread {
            let (circle, cState) = try circleWithoutC()
            let (a, b) = (circle.a, circle.b)
            let transport = try circle.transport()
            let (cRoster, cBundle, cIdentity) = try cState.parts()
            let current = try b.state().parts().roster
            // C signs a member list for the next epoch naming everyone, and seals keys it chose to
            // A and B: an epoch after B's, keeping the naming key and the secrets C knows.
            var forgedBundle = cBundle
            while forgedBundle.epoch <= current.epoch { forgedBundle = forgedBundle.rotated() }
            let everyone = current.members + [try #require(cRoster.member(cState.deviceID))]
            let forged = try Roster(circleID: cState.circleID, members: everyone, bundle: forgedBundle, signer: cIdentity)
            for member in everyone {
                try transport.put(CircleLayout.wrap(forged.epoch, member.id, signer: cState.deviceID),
                                  try KeyWrap(forgedBundle, to: member, circleID: cState.circleID, signer: cIdentity).encoded)
            }
            try transport.put(CircleLayout.roster(forged.epoch), forged.encoded)
            // …and overwrites B's wrap of the current epoch (under the name of the list's signer) with one of its own.
            try transport.put(CircleLayout.wrap(current.epoch, try b.state().deviceID, signer: current.signerID),
                              try KeyWrap(forgedBundle, to: try #require(current.member(try b.state().deviceID)),
                                          circleID: cState.circleID, signer: cIdentity).encoded)

            try a.add("after", "2")
            let aReport = try a.sync()
            let bReport = try b.sync()
            #expect(aReport.epoch == current.epoch && bReport.epoch == current.epoch, "nobody adopted the forged epoch")
            #expect(aReport.refused >= 1 && bReport.refused >= 1)
            #expect(try b.secret("after") == "2")
            // Every record is sealed under keys C does not have: it opens none of them.
            for record in try transport.items() {
                let name = try #require(CircleLayout.name(fromItem: record.name))
                #expect(try SyncRecord.Envelope(decoding: record.bytes).epoch == current.epoch)
                #expect(throws: SyncError.self) {
                    try SyncRecord(opening: record.bytes, name: name, circleID: cState.circleID, bundle: forgedBundle, roster: forged)
                }
            }
        }
    }

    @Test("a removed device that replaces the new member list with its own fork is undone by the next member to sync")
    func removedDeviceForksList() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b, c) = (circle.a, circle.b, circle.c)
            try a.add("before", "1")
            try circle.syncAll(a, b, c)
            let cState = try c.state()
            let (cRoster, cBundle, cIdentity) = try cState.parts()
            let removal = try a.synchronizer.removeDevice(try c.synchronizer.deviceID())
            // Before B has synced, C (a member of the previous list) puts its own list at the new
            // epoch: itself, A and B, with keys it chose and wraps it signed.
            let forgedBundle = cBundle.rotated()
            #expect(forgedBundle.epoch == removal.epoch)
            let forged = try Roster(circleID: cState.circleID, members: cRoster.members, bundle: forgedBundle, signer: cIdentity)
            let transport = try circle.transport()
            for member in cRoster.members {
                try transport.put(CircleLayout.wrap(forged.epoch, member.id, signer: cState.deviceID),
                                  try KeyWrap(forgedBundle, to: member, circleID: cState.circleID, signer: cIdentity).encoded)
            }
            try transport.put(CircleLayout.roster(forged.epoch), forged.encoded)
            // A, which signed the genuine list, puts it back at its next pass; B then follows it.
            #expect(try a.sync().refused >= 1)
            try a.add("after", "2")
            try a.sync()
            #expect(try b.sync().epoch == removal.epoch)
            #expect(try b.synchronizer.members() == removal.members)
            #expect(try b.secret("after") == "2")
            #expect(throws: SyncError.removedFromCircle) { try c.sync() }
        }
    }

    @Test("records a removed device writes with its old keys are refused, also after etcd revisions were raised by re-putting the keys")
    func removedDeviceOldEpochRecords() async throws {
        try await onDedicatedThread {
            let (circle, cState) = try circleWithoutC()
            let (a, b) = (circle.a, circle.b)
            let transport = try circle.transport()
            let planted = try record("planted", "x", by: cState, time: Date().timeIntervalSinceReferenceDate + 60)
            let overwritten = try record("before", "forged", by: cState, time: Date().timeIntervalSinceReferenceDate + 60)
            try transport.put(planted.name, planted.bytes)
            try transport.put(overwritten.name, overwritten.bytes)
            // Raise every revision: re-put the member lists, the wraps, and the records, unchanged.
            for prefix in ["roster/", "wraps/", "requests/"] {
                for record in try transport.list(prefix: prefix) { try transport.put(record.name, record.bytes) }
            }
            try transport.put(planted.name, planted.bytes)
            try transport.put(overwritten.name, overwritten.bytes)
            let report = try b.sync()
            #expect(report.refused == 2 && report.pulled == 0)
            try a.sync()
            for device in [a, b] {
                #expect(try device.secret("planted") == nil)
                #expect(try device.secret("before") == "1")
            }
            // A record claiming a member as its writer but signed by C is refused the same way.
            var impersonated = planted.bytes
            let aID = try a.state().deviceID
            impersonated.replaceSubrange(6..<22, with: aID)  // the writer id, after version, epoch and class
            try transport.put(planted.name, impersonated)
            #expect(try b.sync().refused == 1)
            #expect(try b.secret("planted") == nil)
        }
    }

    @Test("a stolen copy of a password keychain and its device key cannot read the circle state, sync, or get a join sponsored")
    func stolenPasswordKeychain() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle(["a", "b"], passwords: ["b": "pw"])
            let (a, b, code, location) = (circle.a, circle.b, circle.code, circle.location)
            try a.add("w", "when-unlocked-secret")
            try a.sync()
            try b.sync()
            #expect(try b.secret("w") == "when-unlocked-secret")

            let stolen = try SyncDevice(stolenCopyOf: b)
            #expect(throws: SyncError.locked) { try CircleState.load(from: stolen.database) }
            #expect(throws: SyncError.locked) { try stolen.sync() }
            #expect(throws: SyncError.locked) { try stolen.synchronizer.members() }
            #expect(throws: SyncError.locked) { try stolen.synchronizer.join(code: code, location: location) }
            #expect(throws: KeychainStoreError.locked) { try stolen.secret("w") }
            // Without the code (it is inside the locked state) a new identity's request is refused.
            let thief = try SyncDevice("thief")
            let guess = CircleCode(circleID: code.circleID, secret: SymmetricKey(size: .bits256))
            let id = try thief.synchronizer.join(code: guess, location: location)
            let refused = #expect(throws: SyncError.self) { try a.synchronizer.sponsor(id) }
            if case .joinRequestRefused? = refused {} else { Issue.record("expected a refused request, got \(String(describing: refused))") }
            #expect(try a.synchronizer.members().count == 2)
        }
    }

    @Test("a record a removed device parks at an epoch nobody has cannot freeze the item: refused, reported and published over")
    func parkedLaterEpochRecord() async throws {
        try await onDedicatedThread {
            let (circle, cState) = try circleWithoutC()
            let (a, b) = (circle.a, circle.b)
            let transport = try circle.transport()
            let (_, cBundle, cIdentity) = try cState.parts()
            let current = try a.state().parts().bundle
            // C seals a record of "before" under keys of an epoch no member will ever have.
            var parkedBundle = cBundle
            while parkedBundle.epoch <= current.epoch + 3 { parkedBundle = parkedBundle.rotated() }
            let attributes = itemAttributes("before")
            let name = ItemClass.genericPassword.primaryKeyName(of: attributes, using: cBundle.namingKey)
            let parked = SyncRecord(name: name, protection: .whenUnlocked,
                                    version: RecordVersion(time: Date().timeIntervalSinceReferenceDate, device: cState.deviceID),
                                    isDeletion: false, itemClass: .genericPassword,
                                    payload: ItemPayload(attributes: attributes, data: Data("parked".utf8), accessControlFlags: nil))
            let sealed = try parked.sealed(circleID: cState.circleID, bundle: parkedBundle, writer: cIdentity)
            try transport.put(CircleLayout.item(name), sealed)

            try a.update("before", "2")
            let report = try a.sync()
            #expect(report.refused >= 1, "the parked record is reported")
            #expect(report.unknownEpoch == 1 && report.awaitingKeys == 0, "parked at an unknown epoch, not waited for: \(report)")
            let findings = try #require(try a.synchronizer.status().lastPass, "`sync status` shows the last pass's findings")
            #expect(findings.unknownEpoch == 1 && findings.awaitingKeys == 0)
            #expect(report.pushed == 1, "the owner publishes over it")
            #expect(try transport.read(CircleLayout.item(name))?.bytes != sealed)
            try b.sync()
            #expect(try b.secret("before") == "2")
            #expect(try a.secret("before") == "2")
        }
    }

    @Test("a key wrap withheld from a member delays its epoch; it neither overwrites newer records of that epoch nor loses them")
    func withheldWrap() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b, c) = (circle.a, circle.b, circle.c)
            try a.add("x", "old")
            try circle.syncAll(a, b, c)
            let removal = try a.synchronizer.removeDevice(try c.synchronizer.deviceID())
            let transport = try circle.transport()
            let wrapName = CircleLayout.wrap(removal.epoch, try b.state().deviceID, signer: try a.state().deviceID)
            let wrap = try #require(try transport.read(wrapName))
            try transport.publish([SyncTransportChange(name: wrapName, operation: .remove)])
            try a.update("x", "new")
            try a.sync()
            let written = try #require(try transport.items().first)
            let report = try b.sync()
            #expect(report.epoch == removal.epoch - 1 && report.refused >= 2, "the member list without its wrap, and the record")
            #expect(report.awaitingKeys == 1 && report.unknownEpoch == 1, "the newer record waits for its keys: \(report)")
            #expect(try b.synchronizer.status().lastPass?.awaitingKeys == 1)
            #expect(try transport.items().first?.bytes == written.bytes, "the newer record is left alone")
            #expect(try b.secret("x") == "old")
            try transport.put(wrapName, wrap.bytes)
            #expect(try b.sync().epoch == removal.epoch)
            #expect(try b.secret("x") == "new")
        }
    }

    @Test("a stolen keychain file without its device key (no password at all) does not give up the circle state")
    func stolenFileWithoutDeviceKey() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle(["a"])
            let a = circle.a
            #expect(try CircleState.load(from: a.database) != nil)
            let stolen: SyncDevice
            do {
                stolen = try SyncDevice(stolenCopyOf: a, withDeviceKey: false)
            } catch {
                return  // the copy does not even open: nothing to read
            }
            #expect(throws: (any Error).self) { try CircleState.load(from: stolen.database) }
            #expect(throws: (any Error).self) { try stolen.sync() }
        }
    }

    @Test("garbage member list, wrap, request and item records during a removal are reported and skipped; the removal completes")
    func garbageDuringRemoval() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b, c) = (circle.a, circle.b, circle.c)
            try a.add("before", "1")
            try circle.syncAll(a, b, c)
            let transport = try circle.transport()
            let epoch = try a.synchronizer.status().epoch
            let garbageRoster = CircleLayout.roster(epoch + 1)
            let garbageItem = CircleLayout.itemsPrefix + String(repeating: "ab", count: 32)
            try transport.put(garbageRoster, Data("not a member list".utf8))
            try transport.put(CircleLayout.wrap(epoch + 1, try b.state().deviceID, signer: try a.state().deviceID), Data([2, 0, 0]))
            try transport.put(garbageItem, Data(repeating: 2, count: 40))
            try transport.put(CircleLayout.request(Data(repeating: 9, count: 16)), Data("junk".utf8))
            try transport.put("members/" + String(repeating: "cd", count: 16), Data("junk".utf8))

            let removal = try a.synchronizer.removeDevice(try c.synchronizer.deviceID())
            #expect(removal.skipped.contains(garbageRoster) && removal.skipped.contains(garbageItem))
            #expect(removal.members == [try a.synchronizer.deviceID(), try b.synchronizer.deviceID()].sorted())
            #expect(removal.epoch == epoch + 1)
            try a.add("after", "2")
            try circle.syncAll(a, b)
            #expect(try b.synchronizer.status().epoch == epoch + 1)
            #expect(try b.contents() == ["before": "1", "after": "2"])
            #expect(throws: SyncError.removedFromCircle) { try c.sync() }
        }
    }

    @Test("removing an unknown id fails naming the members and changes nothing; ids are accepted in either case")
    func unknownDeviceID() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b, c) = (circle.a, circle.b, circle.c)
            let members = try a.synchronizer.members()
            let epoch = try a.synchronizer.status().epoch
            #expect(throws: SyncError.unknownDevice("00000000000000000000000000000000", members: members)) {
                try a.synchronizer.removeDevice("00000000000000000000000000000000")
            }
            #expect(throws: SyncError.invalidDeviceID("not-an-id")) { try a.synchronizer.removeDevice("not-an-id") }
            #expect(throws: SyncError.cannotRemoveSelf) { try a.synchronizer.removeDevice(try a.synchronizer.deviceID()) }
            #expect(try a.synchronizer.status().epoch == epoch && a.synchronizer.members() == members, "nothing changed")
            let removal = try a.synchronizer.removeDevice(try c.synchronizer.deviceID().uppercased())
            #expect(!removal.members.contains(try c.synchronizer.deviceID()))
            try b.sync()
            #expect(throws: SyncError.removedFromCircle) { try c.sync() }
        }
    }

    @Test("a record renamed into another access group is refused, and so is a signed record whose name is not its item's")
    func renamedRecord() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b) = (circle.a, circle.b)
            try a.add("x", "in-app")
            try circle.syncAll(a, b)
            let transport = try circle.transport()
            let original = try #require(try transport.items().first)
            let aState = try a.state()
            let bundle = try aState.parts().bundle
            // The same item's name in another app's access group, and as an internet password.
            let otherGroup = ItemClass.genericPassword.primaryKeyName(of: itemAttributes("x", group: "other"), using: bundle.namingKey)
            let otherClass = ItemClass.internetPassword.primaryKeyName(of: itemAttributes("x"), using: bundle.namingKey)
            try transport.put(CircleLayout.item(otherGroup), original.bytes)
            try transport.put(CircleLayout.item(otherClass), original.bytes)
            #expect(try b.sync().refused == 2)
            // A member's validly signed record whose payload is for group "other" under the name of "app"'s item.
            let mismatched = try record("x", "planted", by: aState, time: Date().timeIntervalSinceReferenceDate + 30, group: "other",
                                        name: try #require(CircleLayout.name(fromItem: original.name)))
            try transport.put(mismatched.name, mismatched.bytes)
            #expect(try b.sync().refused >= 1)
            var otherQuery = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["other"]))
            otherQuery.synchronizable = true
            #expect(try b.database.find(otherQuery, decrypt: true).isEmpty, "nothing planted in group other")
            var internet = ItemQuery(itemClass: .internetPassword, accessGroups: .only(["app"]))
            internet.synchronizable = true
            #expect(try b.database.find(internet, decrypt: true).isEmpty, "nothing planted as an internet password")
            var app = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["app"]))
            app.synchronizable = true
            #expect(try b.database.find(app, decrypt: true).count == 1, "the query shape finds what is there")
            #expect(try b.secret("x") == "in-app")
        }
    }

    @Test("a replayed old record (an earlier value, a deleted item) changes nothing and is overwritten")
    func replayedRecord() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b) = (circle.a, circle.b)
            try a.add("r", "v1")
            try a.add("gone", "v1")
            try circle.syncAll(a, b)
            let transport = try circle.transport()
            let old = Dictionary(uniqueKeysWithValues: try transport.items().map { ($0.name, $0.bytes) })
            circle.tick()
            try a.update("r", "v2")
            try a.delete("gone")
            try circle.syncAll(a, b)
            for (name, bytes) in old { try transport.put(name, bytes) }
            let report = try b.sync()
            #expect(report.pulled == 0)
            try a.sync()
            for device in [a, b] {
                #expect(try device.secret("r") == "v2")
                #expect(try device.secret("gone") == nil)
            }
            // The replayed copies were replaced by the current versions.
            let now = Dictionary(uniqueKeysWithValues: try transport.items().map { ($0.name, $0.bytes) })
            for (name, bytes) in old { #expect(now[name] != bytes) }
        }
    }

    @Test("a version time more than 10 minutes ahead is refused; one a minute ahead is taken")
    func futureVersionTime() async throws {
        try await onDedicatedThread {
            let circle = try SyncCircle()
            let (a, b) = (circle.a, circle.b)
            let transport = try circle.transport()
            let aState = try a.state()
            let now = b.clock.date().timeIntervalSinceReferenceDate  // what B checks version times against
            let far = try record("far", "x", by: aState, time: now + SyncRecord.futureAllowance + 3600)
            let near = try record("near", "y", by: aState, time: now + 60)
            try transport.put(far.name, far.bytes)
            try transport.put(near.name, near.bytes)
            let report = try b.sync()
            #expect(report.refused == 1 && report.pulled == 1)
            #expect(try b.secret("far") == nil)
            #expect(try b.secret("near") == "y")
        }
    }

    @Test("a circle of the first format is refused with instructions, never used; `leave` clears it for a new circle")
    func legacyCircle() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let device = try SyncDevice("legacy")
            // What the first format stored: an AlwaysThisDeviceOnly item holding JSON without a format.
            let legacy = Data(#"{"endpoints":["http://127.0.0.1:1"],"circleID":"AAAAAAAAAAAAAAAAAAAAAA==","deviceID":"AAAAAAAAAAAAAAAAAAAAAA==","memberPrivateKey":"","bundle":"","keysRevision":1,"synced":{}}"#.utf8)
            _ = try device.database.insert(NewItem(itemClass: .genericPassword,
                                                   attributes: ["svce": .string("com.keychainkit.sync"), "acct": .string("circle"),
                                                                "agrp": .string("com.keychainkit.sync"), "sync": .number(0)],
                                                   data: legacy, protection: .alwaysThisDeviceOnly))
            #expect(throws: SyncError.legacyCircle) { try device.sync() }
            #expect(throws: SyncError.legacyCircle) { try device.synchronizer.status() }
            #expect(throws: SyncError.legacyCircle) { try device.synchronizer.create(location: cluster.endpoints.joined(separator: ",")) }
            #expect(SyncError.legacyCircle.description.contains("sync leave"))
            #expect(throws: SyncError.legacyCircle) {
                try CircleCode(text: "kkc1-" + String(repeating: "0", count: 32) + "-" + String(repeating: "1", count: 64))
            }
            try device.synchronizer.leave()
            let code = try device.synchronizer.create(location: cluster.endpoints.joined(separator: ","))
            #expect(code.text.hasPrefix("kkc2-"))
            #expect(try device.synchronizer.status().epoch == 1)
        }
    }
}
