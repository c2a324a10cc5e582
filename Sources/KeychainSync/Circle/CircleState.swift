import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// What one device remembers about its circle, kept in its own keychain as a
/// WhenUnlockedThisDeviceOnly item (never synchronized; on a keychain with a password it needs the
/// password, like the WhenUnlocked items it synchronizes): where the circle's records are, this
/// device's syncing identity, the member list and key bundle it trusts, and, per record name, the
/// last version this device agreed on with the circle — how a local change is told from a copy
/// of a remote one, and how a local deletion finds its record.
struct CircleState: Codable {
    struct Synced: Codable, Equatable {
        /// The version both sides had at the last sync.
        var version: RecordVersion
        /// The item's identity in this keychain (empty if it never existed here).
        var localIdentity: Data
        /// Whether that version is a deletion.
        var isDeletion: Bool
        /// The item's modification date here once that version was in place (seconds since
        /// 2001), which is how a later local change is recognised: the version's own time is a
        /// hybrid logical clock value and may differ from it. Nil in states written before.
        var localModified: Double? = nil
    }

    /// 2: signed membership. (The first format had no such field; it is refused.)
    var format: Int
    /// The transport's location (etcd endpoints, comma-separated; a remote's URL).
    var location: String
    var circleID: Data
    /// This device's id (derived from its signing key).
    var deviceID: Data
    var signingKey: Data
    var agreementKey: Data
    /// The join secret of the code this device joined with, until a sponsorship is verified.
    var pendingJoinSecret: Data?
    /// The ``JoinConfirmation`` digest the person typed on this device (`sync confirm`): the one
    /// member list the join may pin. Nil until then, and once the join completed.
    var pendingConfirmation: Data?
    /// The member list this device trusts (encoded ``Roster``); nil until sponsored.
    var roster: Data?
    /// The key bundle of that epoch (encoded ``KeyBundle``); nil until sponsored.
    var bundle: Data?
    /// Record name (hex) → the last version agreed on.
    var synced: [String: Synced]
    /// Where the last pass's listing stopped when the transport held more records than one pass
    /// reads (``SyncListingLimits/resumingAfter``): the next pass starts there. Nil: from the start.
    var listingCursor: String? = nil
    /// What the last pass left unapplied (``SyncPassFindings``), for `sync status`. Nil before
    /// the first pass.
    var lastPass: SyncPassFindings? = nil

    var identity: DeviceIdentity {
        get throws(SyncError) { try DeviceIdentity(signing: signingKey, agreement: agreementKey) }
    }

    /// A new state for `identity`, not yet holding a member list.
    init(location: String, circleID: Data, identity: DeviceIdentity) {
        format = 2
        self.location = location
        self.circleID = circleID
        deviceID = identity.member.id
        signingKey = identity.signingKey.rawRepresentation
        agreementKey = identity.agreementKey.rawRepresentation
        synced = [:]
    }

    /// The trusted roster and bundle, or `.awaitingSponsorship`.
    func membership() throws(SyncError) -> (roster: Roster, bundle: KeyBundle) {
        guard let roster, let bundle else { throw .awaitingSponsorship(HexEncoding.string(deviceID)) }
        return (try Roster(decoding: roster), try KeyBundle(decoding: bundle))
    }

    // MARK: Keeping it in the keychain

    static let accessGroup = "com.keychainkit.sync"
    private static let service = "com.keychainkit.sync"
    private static let account = "circle-v2"
    /// The account of the first format's state (an AlwaysThisDeviceOnly item), detected and refused.
    private static let legacyAccount = "circle"

    private static func stateItem(_ account: String) -> SyncStateItem {
        SyncStateItem(service: service, account: account, accessGroup: accessGroup)
    }

    /// The state stored in `database`, or nil when it is in no circle. `.locked` while the
    /// keychain is locked; `.legacyCircle` for a state of the first format.
    static func load(from database: any SyncableKeychain) throws(SyncError) -> CircleState? {
        let found: Data?
        do {
            found = try database.readSyncState(stateItem(account))
        } catch .locked {
            throw .locked
        } catch {
            throw .keychain(error)
        }
        guard let data = found else {
            if try hasLegacyState(database) { throw .legacyCircle }
            return nil
        }
        let state: CircleState
        do {
            state = try JSONDecoder().decode(CircleState.self, from: data)
        } catch {
            throw .tampered("this device's circle state (in the keychain)")
        }
        guard state.format == 2 else { throw .legacyCircle }
        return state
    }

    private static func hasLegacyState(_ database: any SyncableKeychain) throws(SyncError) -> Bool {
        do {
            return try database.containsSyncState(stateItem(legacyAccount))
        } catch {
            throw .keychain(error)
        }
    }

    /// Stores the state (adding the item the first time).
    func save(to database: any SyncableKeychain) throws(SyncError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(self)
        } catch {
            throw .tampered("this device's circle state")
        }
        do {
            try database.writeSyncState(data, to: Self.stateItem(Self.account))
        } catch .locked {
            throw .locked
        } catch {
            throw .keychain(error)
        }
    }

    /// Removes the state, of either format (the device left the circle).
    static func remove(from database: any SyncableKeychain) throws(SyncError) {
        for account in [account, legacyAccount] {
            do {
                try database.removeSyncState(stateItem(account))
            } catch .locked {
                throw .locked
            } catch {
                throw .keychain(error)
            }
        }
    }
}
