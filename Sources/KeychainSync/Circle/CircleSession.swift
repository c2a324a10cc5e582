import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

extension KeychainSynchronizer {
    /// One operation on the circle: this device's state, its transport, and the member list and
    /// keys brought up to date — each newer member list verified against the one before, each key
    /// wrap against its member list — before anything else is read.
    struct Session {
        let database: any SyncableKeychain
        let transport: any SyncTransport
        var state: CircleState
        /// Member lists or key wraps that did not verify while catching up (left alone).
        var refused = 0

        init(_ synchronizer: KeychainSynchronizer) throws(SyncError) {
            database = synchronizer.database
            state = try synchronizer.requireState()
            transport = try synchronizer.openTransport(state.location, HexEncoding.string(state.circleID))
            try KeychainSynchronizer.transport { () throws(SyncTransportError) in try transport.refresh() }
            if state.roster == nil { try completeJoin() }
            try catchUp()
        }

        func read(_ name: String) throws(SyncError) -> SyncTransportRecord? {
            try KeychainSynchronizer.transport { () throws(SyncTransportError) in try transport.read(name) }
        }

        /// The records under `prefix` within ``SyncListingLimits/standard``; names left unread are
        /// dropped (use ``listing(_:)`` where acting on an absent name would overwrite or delete it).
        func list(_ prefix: String) throws(SyncError) -> [SyncTransportRecord] {
            try listing(prefix).records
        }

        /// The records under `prefix` within ``SyncListingLimits/standard`` (records of one size
        /// taken from `resumingAfter` on), and the names not read.
        func listing(_ prefix: String, resumingAfter cursor: String? = nil) throws(SyncError) -> SyncTransportListing {
            try KeychainSynchronizer.transport { () throws(SyncTransportError) in
                try transport.list(prefix: prefix, within: .standard(resumingAfter: cursor))
            }
        }

        func publish(_ changes: [SyncTransportChange]) throws(SyncError) {
            try KeychainSynchronizer.transport { () throws(SyncTransportError) in try transport.publish(changes) }
        }

        // MARK: Joining

        /// Completes a join: pins the member list whose ``JoinConfirmation`` the person typed
        /// (`sync confirm`, from what `sync sponsor` showed on the sponsor) — a list at its own
        /// name, of epoch 2 or later (epoch 1 is the creator alone; nothing is before it), signed
        /// by one of its members, naming this device, with a wrap to this device by the list's
        /// signer that holds the join secret of the code this device joined with. Any other list
        /// on the transport, however well signed, is refused (counted in ``refused``): a device
        /// removed from the circle still knows the codes of its time and can sign lists, so
        /// nothing but what the person carried over decides which list is the circle's. From the
        /// pinned list on the device follows the chain.
        private mutating func completeJoin() throws(SyncError) {
            let id = HexEncoding.string(state.deviceID)
            guard let joinSecret = state.pendingJoinSecret, let confirmed = state.pendingConfirmation else {
                throw .awaitingSponsorship(id)
            }
            let expected = JoinConfirmation(digest: confirmed)
            let identity = try state.identity
            for record in try list(CircleLayout.rosterPrefix) {
                // A list the person did not confirm is never this device's circle, whoever signed it.
                guard JoinConfirmation(ofEncodedRoster: record.bytes) == expected else { continue }
                let roster = try Roster(decoding: record.bytes).verifiedAlone(circleID: state.circleID)
                guard roster.epoch >= 2, record.name == CircleLayout.roster(roster.epoch) else {
                    throw .tampered("the confirmed member list is not at its epoch's name")
                }
                guard roster.member(state.deviceID) != nil else { throw .tampered("the confirmed member list does not name this device") }
                guard let wrap = try read(CircleLayout.wrap(roster.epoch, state.deviceID, signer: roster.signerID)) else {
                    throw .sponsorshipNotFound(id)
                }
                let bundle = try KeyWrap(decoding: wrap.bytes).open(circleID: state.circleID, roster: roster, identity: identity)
                guard bundle.joinSecret == SymmetricKey(data: joinSecret) else {
                    throw .tampered("the key wrap of the confirmed member list (its sponsor did not know this device's code)")
                }
                state.roster = roster.encoded
                state.bundle = bundle.encoded
                state.pendingJoinSecret = nil
                state.pendingConfirmation = nil
                try state.save(to: database)
                return
            }
            throw .sponsorshipNotFound(id)
        }

        // MARK: Catching up

        /// Follows the chain of member lists from the one this device trusts: `roster/<e + 1>` is
        /// taken only if a member of list `e` signed it, and its keys only from a wrap to this device
        /// signed by a member of `e + 1` whose bundle extends the one held. The epoch never goes
        /// backwards. A list without this device means it was removed. Anything that does not
        /// verify stops the walk there (counted in ``refused``): this device keeps the keys it has.
        private mutating func catchUp() throws(SyncError) {
            var (roster, bundle) = try state.membership()
            let identity = try state.identity
            try restore(roster)
            while true {
                guard let record = try read(CircleLayout.roster(roster.epoch + 1)) else { return }
                let next: Roster
                let nextBundle: KeyBundle
                do throws(SyncError) {
                    next = try Roster(decoding: record.bytes).verified(after: roster)
                    guard next.member(state.deviceID) != nil else { throw SyncError.removedFromCircle }
                    guard let wrap = try read(CircleLayout.wrap(next.epoch, state.deviceID, signer: next.signerID)) else {
                        throw SyncError.tampered("this device's key wrap for epoch \(next.epoch) is missing")
                    }
                    nextBundle = try KeyWrap(decoding: wrap.bytes).open(circleID: state.circleID, roster: next, identity: identity)
                    guard bundle.isExtended(by: nextBundle) else { throw SyncError.tampered("a key bundle that drops earlier keys") }
                } catch .tampered {
                    refused += 1
                    return
                }
                roster = next
                bundle = nextBundle
                state.roster = roster.encoded
                state.bundle = bundle.encoded
                try state.save(to: database)
            }
        }

        /// Puts the list this device trusts back at its name when something else is there (a
        /// removed device racing to fork the chain, garbage) or nothing is: members that have not
        /// caught up yet then find the genuine list. Counted in ``refused``; a lost race is left to
        /// the next pass.
        private mutating func restore(_ roster: Roster) throws(SyncError) {
            let name = CircleLayout.roster(roster.epoch)
            let existing = try read(name)
            guard existing?.bytes != roster.encoded else { return }
            refused += 1
            do {
                try transport.publish([SyncTransportChange(name: name, operation: .write(roster.encoded), expected: .some(existing?.version))])
            } catch .conflict {
                return
            } catch {
                throw .transport(error)
            }
        }

        // MARK: Changing the membership

        /// Publishes `next` (the next epoch's member list, signed by this device) with `bundle`
        /// sealed to each of its members, wraps first and the list last: until the list is
        /// published nothing has changed for anyone. Something already at the list's name that
        /// verifies is another member's concurrent change (`.membershipChanged`); anything else
        /// there is reported in the result and overwritten.
        mutating func changeMembership(to next: Roster, bundle: KeyBundle) throws(SyncError) -> [String] {
            let current = try state.membership().roster
            let identity = try state.identity
            let rosterName = CircleLayout.roster(next.epoch)
            var skipped: [String] = []
            var expected: String?? = .some(nil)
            if let existing = try read(rosterName) {
                do throws(SyncError) {
                    _ = try Roster(decoding: existing.bytes).verified(after: current)
                    throw SyncError.membershipChanged
                } catch .tampered {
                    skipped.append(rosterName)
                    expected = .some(existing.version)
                }
            }
            var wraps: [SyncTransportChange] = []
            for member in next.members {
                let wrap = try KeyWrap(bundle, to: member, circleID: state.circleID, signer: identity)
                wraps.append(SyncTransportChange(name: CircleLayout.wrap(next.epoch, member.id, signer: identity.member.id),
                                                 operation: .write(wrap.encoded)))
            }
            try publish(wraps)
            do {
                try transport.publish([SyncTransportChange(name: rosterName, operation: .write(next.encoded), expected: expected)])
            } catch .conflict {
                throw .membershipChanged
            } catch {
                throw .transport(error)
            }
            state.roster = next.encoded
            state.bundle = bundle.encoded
            try state.save(to: database)
            return skipped
        }

        /// After a removal: every record of an earlier epoch that this device can open is written
        /// again under the current epoch, signed by this device. Returns the names of records it
        /// could not open (left for a device that has the item to replace).
        func reencryptRecords() throws(SyncError) -> [String] {
            let (roster, bundle) = try state.membership()
            let identity = try state.identity
            let listing = try listing(CircleLayout.itemsPrefix)
            var skipped = listing.unread.sorted()  // not read this pass: left for a later one
            for record in listing.records {
                guard let name = CircleLayout.name(fromItem: record.name) else {
                    skipped.append(record.name)
                    continue
                }
                let opened: SyncRecord
                do {
                    guard try SyncRecord.Envelope(decoding: record.bytes).epoch < bundle.epoch else { continue }
                    opened = try SyncRecord(opening: record.bytes, name: name, circleID: state.circleID, bundle: bundle, roster: roster)
                } catch .tampered {
                    skipped.append(record.name)
                    continue
                }
                let sealed = try opened.sealed(circleID: state.circleID, bundle: bundle, writer: identity)
                do {
                    try transport.publish([SyncTransportChange(name: record.name, operation: .write(sealed), expected: .some(record.version))])
                } catch .conflict {
                    continue  // written meanwhile by a member that has the new keys
                } catch {
                    throw .transport(error)
                }
            }
            return skipped
        }
    }
}
