import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// Opens the transport a circle's records live on: its location as the user gave it and the
/// circle's id (hex).
package typealias SyncTransportOpener = @Sendable (_ location: String, _ circleID: String) throws(SyncError) -> any SyncTransport

/// Synchronizable items of one keychain kept in step with the other devices of its circle over
/// any ``SyncTransport``, end to end encrypted and signed (docs/SYNC.md).
///
/// - `create` starts a circle and returns its code;
/// - `join` asks to join the circle a code names; a member then runs `sponsor` with the new
///   device's id, and `confirmJoin` on the device, with the confirmation the sponsor showed, pins
///   the member list the sponsor signed and starts syncing;
/// - `synchronize` merges once: for every record name, the newest version (time, then device id)
///   wins on both sides; deletions are records too (tombstones);
/// - `removeDevice` signs a member list without a device, seals a new epoch's keys to the members
///   that remain, re-encrypts the records and returns a new code.
///
/// Nothing the transport says decides what is accepted: member lists, key wraps and records are
/// each verified (signatures by members, epochs inside the signed bytes) before use.
package final class KeychainSynchronizer {
    /// Item classes that synchronize.
    static let classes: [ItemClass] = [.genericPassword, .internetPassword]

    /// The keychain synchronized, through what sync needs of it (the store implements it).
    let database: any SyncableKeychain
    let openTransport: SyncTransportOpener
    /// How many earlier versions of each item this device keeps on the transport when it
    /// replaces one (at least 1); the losing side of a merge is kept the same way.
    package var historyDepth = KeychainSynchronizer.defaultHistoryDepth
    /// Records in the keychain's access log what a pass does to items (``SyncItemAccess``): the
    /// items it wrote or deleted here, and — before they are published — those whose secrets it
    /// read to publish. Nil: nothing is recorded (the library alone keeps no log). A failure stops
    /// the pass (`SyncError.accessNotLogged`); nothing is published unlogged.
    package var recordAccess: (([SyncItemAccess]) throws -> Void)?

    /// A synchronizer for `database` (which must be in a circle for anything but `create`/`join`),
    /// reaching its circle through `openTransport` (etcd by default).
    package init(database: any SyncableKeychain, openTransport: @escaping SyncTransportOpener = EtcdTransport.open) {
        self.database = database
        self.openTransport = openTransport
    }

    // MARK: Membership

    /// Starts a circle at `location` (etcd endpoints, comma-separated) with this keychain as its
    /// only member; returns its code.
    package func create(location: String) throws(SyncError) -> CircleCode {
        guard try CircleState.load(from: database) == nil else { throw .alreadyInCircle }
        let code = CircleCode.random()
        let transport = try openTransport(location, HexEncoding.string(code.circleID))
        try Self.transport { () throws(SyncTransportError) in try transport.refresh() }  // a remote that cannot be reached fails here, before anything is made
        let identity = DeviceIdentity.generate()
        let bundle = KeyBundle.first(joinSecret: code.secret)
        let roster = try Roster(circleID: code.circleID, members: [identity.member], bundle: bundle, signer: identity)
        let wrap = try KeyWrap(bundle, to: identity.member, circleID: code.circleID, signer: identity)
        try Self.transport { () throws(SyncTransportError) in
            try transport.publish([SyncTransportChange(name: CircleLayout.wrap(1, identity.member.id, signer: identity.member.id), operation: .write(wrap.encoded)),
                                   SyncTransportChange(name: CircleLayout.roster(1), operation: .write(roster.encoded), expected: .some(nil))])
        }
        var state = CircleState(location: location, circleID: code.circleID, identity: identity)
        state.roster = roster.encoded
        state.bundle = bundle.encoded
        try state.save(to: database)
        return code
    }

    /// Asks to join the circle `code` names at `location`: publishes this device's join request
    /// (its public keys, signed, authenticated with the code) and returns this device's id, which a
    /// member passes to ``sponsor(_:)``. ``confirmJoin(_:)`` then completes the join.
    @discardableResult
    package func join(code: CircleCode, location: String) throws(SyncError) -> String {
        guard try CircleState.load(from: database) == nil else { throw .alreadyInCircle }
        let transport = try openTransport(location, HexEncoding.string(code.circleID))
        guard try Self.transport({ () throws(SyncTransportError) in
            try transport.refresh()  // a git transport answers from its last fetch: fetch first
            return try transport.read(CircleLayout.roster(1))
        }) != nil else {
            throw .circleNotFound
        }
        let identity = DeviceIdentity.generate()
        let request = try JoinRequest.make(identity: identity, code: code)
        var state = CircleState(location: location, circleID: code.circleID, identity: identity)
        state.pendingJoinSecret = SyncSealing.bytes(of: code.secret)
        try state.save(to: database)
        try Self.transport { () throws(SyncTransportError) in
            try transport.publish([SyncTransportChange(name: CircleLayout.request(identity.member.id), operation: .write(request))])
        }
        return HexEncoding.string(identity.member.id)
    }

    /// What a sponsorship did.
    package struct Sponsorship: Sendable, Equatable {
        /// The members after (hex ids), the new device among them.
        package var members: [String]
        /// What the person types on the new device (`sync confirm`): the digest of the member
        /// list this device signed to add it, the only list the new device will pin.
        package var confirmation: JoinConfirmation
    }

    /// Sponsors the device `deviceID` (hex, either case) into the circle: checks its join request
    /// (made with the current code, signed by the key it names), signs a member list that adds it
    /// and seals the next epoch's keys to every member. Returns the members after and the
    /// confirmation the new device needs (``confirmJoin(_:)``).
    @discardableResult
    package func sponsor(_ deviceID: String) throws(SyncError) -> Sponsorship {
        let id = try CircleLayout.deviceID(deviceID)
        var session = try Session(self)
        let (roster, bundle) = try session.state.membership()
        let idHex = HexEncoding.string(id)
        guard roster.member(id) == nil else { throw .alreadyMember(idHex) }
        guard let record = try session.read(CircleLayout.request(id)) else { throw .noJoinRequest(idHex) }
        let request: JoinRequest
        do {
            request = try JoinRequest(verifying: record.bytes, code: CircleCode(circleID: session.state.circleID, secret: bundle.joinSecret))
        } catch .tampered(let reason) {
            throw .joinRequestRefused(reason)
        }
        guard request.member.id == id else { throw .joinRequestRefused("the request names another device") }
        let nextBundle = bundle.rotated()
        let next = try Roster(circleID: roster.circleID, members: roster.members + [request.member], bundle: nextBundle,
                              signer: try session.state.identity)
        _ = try session.changeMembership(to: next, bundle: nextBundle)
        try session.publish([SyncTransportChange(name: CircleLayout.request(id), operation: .remove)])
        return Sponsorship(members: next.memberIDs, confirmation: JoinConfirmation(ofEncodedRoster: next.encoded))
    }

    /// Completes this device's join with the confirmation its sponsor showed (``sponsor(_:)``):
    /// pins the member list it names — never another list on the transport, whoever signed it —
    /// and follows the chain from there. Returns the members. The confirmation is remembered, so
    /// when the sponsor's list has not reached this device yet (``SyncError/sponsorshipNotFound(_:)``)
    /// a later ``synchronize()`` completes the join.
    @discardableResult
    package func confirmJoin(_ confirmation: JoinConfirmation) throws(SyncError) -> [String] {
        var state = try requireState()
        if state.roster == nil {
            guard state.pendingJoinSecret != nil else { throw .awaitingSponsorship(HexEncoding.string(state.deviceID)) }
            state.pendingConfirmation = confirmation.digest
            try state.save(to: database)
        } else if let pinned = state.roster, JoinConfirmation(ofEncodedRoster: pinned) != confirmation {
            throw .alreadyInCircle
        }
        let session = try Session(self)
        return try session.state.membership().roster.memberIDs
    }

    /// What a removal did.
    package struct Removal: Sendable, Equatable {
        /// The circle's new code (the old one no longer authorises join requests).
        package var code: CircleCode
        /// The members that remain (hex ids).
        package var members: [String]
        /// The new epoch.
        package var epoch: UInt32
        /// Records that did not verify and were skipped (overwritten or left for their owner to
        /// replace): their transport names.
        package var skipped: [String]
    }

    /// Removes the device `deviceID` (hex, either case) from the circle: a member list without it
    /// at the next epoch, that epoch's keys sealed to the remaining members only, every record this
    /// device can read re-encrypted under them, and a new code. Records that do not verify are
    /// reported in the result and skipped, never a reason to stop half-way; until the new member
    /// list is published nothing has changed, so a failed removal is simply run again.
    package func removeDevice(_ deviceID: String) throws(SyncError) -> Removal {
        let id = try CircleLayout.deviceID(deviceID)
        var session = try Session(self)
        let (roster, bundle) = try session.state.membership()
        guard roster.member(id) != nil else { throw .unknownDevice(HexEncoding.string(id), members: roster.memberIDs) }
        guard id != session.state.deviceID else { throw .cannotRemoveSelf }
        let code = CircleCode(circleID: roster.circleID, secret: bundle.joinSecret).rekeyed()
        let nextBundle = bundle.rotated(joinSecret: code.secret)
        let next = try Roster(circleID: roster.circleID, members: roster.members.filter { $0.id != id }, bundle: nextBundle,
                              signer: try session.state.identity)
        var skipped = try session.changeMembership(to: next, bundle: nextBundle)
        skipped += try session.reencryptRecords()
        // Every pending join request was made with the old code: it dies with it (the device
        // joins again with the new code), and the removed device's own request goes too.
        let requests = Set(try session.list(CircleLayout.requestPrefix).map(\.name) + [CircleLayout.request(id)])
        try session.publish(requests.sorted().map { SyncTransportChange(name: $0, operation: .remove) })
        return Removal(code: code, members: next.memberIDs, epoch: next.epoch, skipped: skipped)
    }

    /// Leaves the circle: this device's circle state (of either format) is removed from its
    /// keychain. Its keys are rotated out when a member runs `removeDevice` for it.
    package func leave() throws(SyncError) {
        try CircleState.remove(from: database)
    }

    /// The ids (hex) of the circle's members, from the member list this device verified last
    /// (brought up to date first).
    package func members() throws(SyncError) -> [String] {
        let session = try Session(self)
        return try session.state.membership().roster.memberIDs
    }

    /// The ids (hex) of devices whose join request was made with the current code and awaits a
    /// sponsor, so that a person sees every request before approving one. Requests that do not
    /// verify are left out.
    package func joinRequests() throws(SyncError) -> [String] {
        let session = try Session(self)
        let (roster, bundle) = try session.state.membership()
        let code = CircleCode(circleID: roster.circleID, secret: bundle.joinSecret)
        var ids: [String] = []
        for record in try session.list(CircleLayout.requestPrefix) {
            do {
                let request = try JoinRequest(verifying: record.bytes, code: code)
                guard record.name == CircleLayout.request(request.member.id), roster.member(request.member.id) == nil else { continue }
                ids.append(HexEncoding.string(request.member.id))
            } catch .tampered {
                continue
            }
        }
        return ids.sorted()
    }

    /// This device's id in its circle (hex).
    package func deviceID() throws(SyncError) -> String { HexEncoding.string(try requireState().deviceID) }

    // MARK: Plumbing

    func requireState() throws(SyncError) -> CircleState {
        guard let state = try CircleState.load(from: database) else { throw .notInCircle }
        return state
    }

    static func transport<T>(_ body: () throws(SyncTransportError) -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch {
            throw .transport(error)
        }
    }

    static func keychain<T>(_ body: () throws(KeychainStoreError) -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch .locked {
            throw .locked
        } catch {
            throw .keychain(error)
        }
    }
}

/// Where this keychain stands in its circle (no secret in it).
package struct CircleStatus: Sendable, Equatable {
    /// The circle's id (hex).
    package var circleID: String
    /// This device's id in the circle (hex).
    package var deviceID: String
    /// Where the circle's records are.
    package var location: String
    /// The epoch of the member list and keys this device holds (0 while awaiting sponsorship).
    package var epoch: UInt32
    /// The members of that list (hex ids; empty while awaiting sponsorship).
    package var members: [String]
    /// How many records this device has agreed on with the circle.
    package var syncedRecords: Int
    /// What this device's last pass left unapplied (records unread over the limits, refused, of
    /// an unknown epoch); nil before its first pass.
    package var lastPass: SyncPassFindings?
}

extension KeychainSynchronizer {
    /// This keychain's circle, from its local state (no network).
    package func status() throws(SyncError) -> CircleStatus {
        let state = try requireState()
        var epoch: UInt32 = 0
        var members: [String] = []
        if state.roster != nil {
            let roster = try state.membership().roster
            epoch = roster.epoch
            members = roster.memberIDs
        }
        return CircleStatus(circleID: HexEncoding.string(state.circleID), deviceID: HexEncoding.string(state.deviceID),
                            location: state.location, epoch: epoch, members: members, syncedRecords: state.synced.count,
                            lastPass: state.lastPass)
    }
}
