import KeychainPrimitives
import Crypto
import Foundation
import KeychainStore
import KeychainTestSupport
import RequiredToolSupport
import Testing
@testable import KeychainSync

/// A removed device that keeps its circle state and can still write to the transport (the normal
/// case: removal does not take away its shared folder or push access) tries to capture a device
/// that is joining, over a shared folder and over a git remote. It plants a member list naming
/// itself and the joiner and a key wrap under keys it chose, made with the project's own code from
/// the state it kept and the join secret of a code it knew.
@Suite("A joining device is never captured by a removed one", .serialized, .integration, .tags(.external, .git))
struct JoinCaptureTests {
    enum Medium: String, CaseIterable, CustomTestStringConvertible {
        case folder, git
        var testDescription: String { rawValue }
    }

    /// A circle of three over `medium`, with one item everyone has; `keep` holds what must live as
    /// long as the circle (the folder or the remote).
    private static func circle(_ medium: Medium) throws -> (circle: DeviceCircle, opener: (URL) -> SyncTransportOpener, keep: AnyObject) {
        let circle: DeviceCircle
        let keep: AnyObject
        switch medium {
        case .folder: (circle, keep) = try PersonalSyncTests.folderCircle(count: 3)
        case .git: (circle, keep) = try PersonalSyncTests.gitCircle(count: 3)
        }
        try circle.devices[0].add("before", "1")
        try circle.syncAll()
        let opener: (URL) -> SyncTransportOpener
        switch medium {
        case .folder: opener = { PersonalSyncTests.folderOpener($0) }
        case .git: opener = { PersonalSyncTests.gitOpener($0) }
        }
        return (circle, opener, keep)
    }

    /// The removed device's own reach into the transport (its own clone for git).
    private static func attackerTransport(_ circle: DeviceCircle, _ opener: (URL) -> SyncTransportOpener) throws -> any SyncTransport {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-sync-attacker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let transport = try opener(directory)(circle.location, HexEncoding.string(circle.code.circleID))
        try transport.refresh()
        return transport
    }

    /// The joiner's public keys, as anyone who can read the transport sees them in its join request
    /// (`0x02 ‖ circle id ‖ signing key ‖ agreement key ‖ …`).
    private static func requestedMember(_ joiner: String, on transport: any SyncTransport) throws -> Member {
        try transport.refresh()
        let id = try #require(HexEncoding.bytes(joiner))
        let record = try #require(try transport.read(CircleLayout.request(id)))
        let bytes = Data(record.bytes)
        return Member(signingKey: bytes[17..<49], agreementKey: bytes[49..<81])
    }

    /// What the removed device plants: an epoch-0 member list naming itself and the joiner, signed
    /// by itself, and a wrap to the joiner of keys it chose that hold `joinSecret`.
    private static func plantCapture(by removed: CircleState, joinSecret: SymmetricKey, joiner member: Member,
                                     on transport: any SyncTransport) throws -> (roster: Roster, bundle: KeyBundle) {
        let (roster, bundle, identity) = try removed.parts()
        let planted = KeyBundle(epoch: 0, secrets: [0: SymmetricKey(size: .bits256)], namingKey: bundle.namingKey, joinSecret: joinSecret)
        let list = try Roster(circleID: removed.circleID, members: [try #require(roster.member(removed.deviceID)), member],
                              bundle: planted, signer: identity)
        try transport.put(CircleLayout.wrap(0, member.id, signer: removed.deviceID),
                          try KeyWrap(planted, to: member, circleID: removed.circleID, signer: identity).encoded)
        try transport.put(CircleLayout.roster(0), list.encoded)
        return (list, planted)
    }

    /// The joiner is not captured: it pins nothing, syncs with nobody, publishes nothing, and says
    /// it is waiting for a sponsor.
    private static func expectNotCaptured(_ joiner: SyncDevice, transport: any SyncTransport, planted: KeyBundle, list: Roster) throws {
        let failure = PersonalSyncTests.syncError { try joiner.sync() }
        guard case .awaitingSponsorship? = failure else {
            Issue.record("the joiner must still await its sponsor, got \(String(describing: failure))")
            return
        }
        let status = try joiner.synchronizer.status()
        #expect(status.epoch == 0 && status.members.isEmpty)
        try transport.refresh()
        for record in try transport.items() {
            let name = try #require(CircleLayout.name(fromItem: record.name))
            #expect(throws: SyncError.self, "no record opens under the planted keys") {
                try SyncRecord(opening: record.bytes, name: name, circleID: list.circleID, bundle: planted, roster: list)
            }
        }
    }

    @Test("a device joining with an old code after a removal is not captured by the removed device", arguments: Medium.allCases)
    func oldCodeAfterRemoval(_ medium: Medium) throws {
        let (circle, opener, keep) = try Self.circle(medium)
        let (a, removed) = (circle.devices[0], circle.devices[2])
        let removedState = try removed.state()
        _ = try a.synchronizer.removeDevice(try removed.synchronizer.deviceID())
        try circle.syncAll(Array(circle.devices.prefix(2)))

        // The new device joins with the code from before the removal (found in the user's notes).
        let joiner = try SyncDevice("joiner", clock: circle.clock, opener: opener)
        let id = try joiner.synchronizer.join(code: circle.code, location: circle.location)
        try joiner.add("joiner-secret", "j-1")
        let transport = try Self.attackerTransport(circle, opener)
        let (list, planted) = try Self.plantCapture(by: removedState, joinSecret: circle.code.secret,
                                                    joiner: try Self.requestedMember(id, on: transport), on: transport)
        try Self.expectNotCaptured(joiner, transport: transport, planted: planted, list: list)
        // An honest member refuses the old code's request.
        #expect(throws: SyncError.self) { try a.synchronizer.sponsor(id) }
        withExtendedLifetime(keep) {}
    }

    @Test("a device that asked to join with the current code is not captured by a lost laptop removed before it was sponsored",
          arguments: Medium.allCases)
    func lostLaptopRemovedBeforeSponsoring(_ medium: Medium) throws {
        let (circle, opener, keep) = try Self.circle(medium)
        let (a, lost) = (circle.devices[0], circle.devices[2])
        let lostState = try lost.state()
        let joiner = try SyncDevice("joiner", clock: circle.clock, opener: opener)
        let id = try joiner.synchronizer.join(code: circle.code, location: circle.location)
        try joiner.add("joiner-secret", "j-1")
        // The lost laptop watches the transport and sees the request.
        let transport = try Self.attackerTransport(circle, opener)
        let joinerMember = try Self.requestedMember(id, on: transport)
        // The user removes the lost laptop before sponsoring: a new code, and the pending request dies.
        let removalCode: CircleCode? = try a.synchronizer.removeDevice(try lost.synchronizer.deviceID()).code
        #expect(throws: SyncError.noJoinRequest(id)) { try a.synchronizer.sponsor(id) }
        #expect(try a.synchronizer.joinRequests().isEmpty)
        // The lost laptop knew the code the joiner used.
        #expect(try lostState.parts().bundle.joinSecret == circle.code.secret)
        try transport.refresh()
        let (list, planted) = try Self.plantCapture(by: lostState, joinSecret: circle.code.secret, joiner: joinerMember, on: transport)
        try Self.expectNotCaptured(joiner, transport: transport, planted: planted, list: list)
        // The user starts over with the new code; the planted list stays on the transport, and the
        // device pins the list its sponsor signed and the person confirmed.
        try joiner.synchronizer.leave()
        let removal = try #require(removalCode)
        let again = try joiner.synchronizer.join(code: removal, location: circle.location)
        let sponsorship = try a.synchronizer.sponsor(again)
        #expect(try joiner.synchronizer.confirmJoin(sponsorship.confirmation) == sponsorship.members)
        #expect(!sponsorship.members.contains(try lost.synchronizer.deviceID()))
        try joiner.sync()
        try a.sync()
        #expect(try a.secret("joiner-secret") == "j-1")
        #expect(try joiner.secret("before") == "1")
        #expect(try joiner.synchronizer.status().members == sponsorship.members)
        withExtendedLifetime(keep) {}
    }

    @Test("a confirmation names one list: a device given the confirmation of another list, or of a list that is not at its epoch's name, pins nothing",
          arguments: Medium.allCases)
    func confirmationPinsOnlyItsList(_ medium: Medium) throws {
        let (circle, opener, keep) = try Self.circle(medium)
        let (a, removed) = (circle.devices[0], circle.devices[2])
        let removedState = try removed.state()
        let removal = try a.synchronizer.removeDevice(try removed.synchronizer.deviceID())
        try circle.syncAll(Array(circle.devices.prefix(2)))
        let joiner = try SyncDevice("joiner", clock: circle.clock, opener: opener)
        let id = try joiner.synchronizer.join(code: removal.code, location: circle.location)
        // The removed device (which does not know the new code) plants a list, and the person is
        // tricked into typing its confirmation: an epoch-0 list is refused whatever it holds.
        let transport = try Self.attackerTransport(circle, opener)
        let (list, _) = try Self.plantCapture(by: removedState, joinSecret: circle.code.secret,
                                              joiner: try Self.requestedMember(id, on: transport), on: transport)
        let planted = JoinConfirmation(ofEncodedRoster: list.encoded)
        let refused = PersonalSyncTests.syncError { try joiner.synchronizer.confirmJoin(planted) }
        #expect(refused != nil && refused != .sponsorshipNotFound(id), "an epoch-0 list is refused outright: \(String(describing: refused))")
        #expect(try joiner.synchronizer.status().epoch == 0)
        // The honest sponsorship, confirmed, is pinned.
        let sponsorship = try a.synchronizer.sponsor(id)
        #expect(try joiner.synchronizer.confirmJoin(sponsorship.confirmation) == sponsorship.members)
        #expect(try joiner.synchronizer.status().epoch == removal.epoch + 1)
        withExtendedLifetime(keep) {}
    }
}
