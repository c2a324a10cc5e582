import KeychainVocabulary

/// Why a sync operation failed. Messages never contain secrets, item names or values; each says
/// what to do.
package enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The circle code is not one this library writes.
    case invalidCircleCode
    /// A code, or this keychain's circle, is of the first sync format (membership not
    /// authenticated): refused, never used in a weaker mode.
    case legacyCircle
    /// This keychain is not in a circle (create or join one first).
    case notInCircle
    /// This keychain is already in a circle (or has asked to join one).
    case alreadyInCircle
    /// No circle with this id on the transport.
    case circleNotFound
    /// This device asked to join and no member has sponsored it yet: its id.
    case awaitingSponsorship(String)
    /// This device was sponsored, by the confirmation the person typed, but no member list with
    /// that confirmation (and a key wrap to this device) is on the transport: its id.
    case sponsorshipNotFound(String)
    /// Not a join confirmation (32 hex digits, as `sync sponsor` shows it).
    case invalidJoinConfirmation
    /// This device was removed from the circle.
    case removedFromCircle
    /// The keychain is locked: the circle state (kept WhenUnlockedThisDeviceOnly) cannot be read.
    case locked
    /// Not a device id (32 hex digits): the text given.
    case invalidDeviceID(String)
    /// No member has this id: the id and the members there are.
    case unknownDevice(String, members: [String])
    /// This device cannot remove itself (`leave` it instead, and remove it from another member).
    case cannotRemoveSelf
    /// The device is a member already: its id.
    case alreadyMember(String)
    /// No join request from this device: its id.
    case noJoinRequest(String)
    /// A join request that was not made with the current code, or not by the key it names.
    case joinRequestRefused(String)
    /// Another member changed the membership at the same time: nothing was changed here.
    case membershipChanged
    /// Something on the transport or in the keychain did not authenticate or decode: what.
    case tampered(String)
    /// The transport failed.
    case transport(SyncTransportError)
    /// No synchronized item with this account is on the transport, current or in history.
    case itemNotInHistory(String)
    /// Several synchronized items have this account: the service tells them apart.
    case ambiguousItem(String)
    /// No version with this number: how many there are.
    case noSuchVersion(Int, available: Int)
    /// The version asked for is the item's deletion.
    case versionIsDeletion(Int)
    /// The access log could not record what a sync pass did or was about to do: what happened
    /// meanwhile, and why the log failed.
    case accessNotLogged(String, String)
    /// The local keychain failed.
    case keychain(KeychainStoreError)

    /// A sentence for people and logs.
    package var description: String {
        switch self {
        case .invalidCircleCode: return "not a circle code (it starts with kkc2-)"
        case .legacyCircle:
            return "this circle uses the first sync format, whose membership was not authenticated, and is no longer synchronized; "
                + "run `keychainctl sync leave` on each device (items stay in the keychain), then `sync create` on one device "
                + "and `sync join` + `sync sponsor` for the others"
        case .notInCircle: return "this keychain is not in a sync circle (run `keychainctl sync create` or `sync join`)"
        case .alreadyInCircle: return "this keychain is already in a sync circle (or waiting to join one); `keychainctl sync leave` first"
        case .circleNotFound: return "no circle with this code on the sync transport (check the code and the endpoints)"
        case .awaitingSponsorship(let id):
            return "waiting for a member to sponsor this device: on a member run `keychainctl sync sponsor \(id)`, "
                + "then run `keychainctl sync confirm <confirmation>` here with the confirmation it shows"
        case .sponsorshipNotFound(let id):
            return "no member list with this confirmation names device \(id) on the sync transport yet: check the confirmation "
                + "against the one `sync sponsor` showed, and that the sponsor's changes reached this device (a shared folder "
                + "may take a while); then run `keychainctl sync confirm` again"
        case .invalidJoinConfirmation:
            return "not a join confirmation (32 hex digits, as `keychainctl sync sponsor` shows it on the sponsoring member)"
        case .removedFromCircle: return "this device was removed from the circle (join again with a new code and a sponsor)"
        case .locked: return "the keychain is locked and its circle state needs the password: run `keychainctl unlock-keychain` first"
        case .invalidDeviceID(let text): return "not a device id (32 hex digits, as `keychainctl sync status` shows): \(text)"
        case .unknownDevice(let id, let members):
            return "no member with id \(id); the members are: \(members.joined(separator: ", "))"
        case .cannotRemoveSelf: return "a device cannot remove itself: run `keychainctl sync leave` here and `sync remove-device` on another member"
        case .alreadyMember(let id): return "device \(id) is a member already"
        case .noJoinRequest(let id): return "no join request from device \(id): run `keychainctl sync join` on it first"
        case .joinRequestRefused(let reason): return "join request refused: \(reason) (a request dies when the circle's code changes: on the device run `keychainctl sync leave`, then `sync join` with the current code)"
        case .membershipChanged: return "another member changed the circle at the same time; nothing was changed, run the command again"
        case .tampered(let what): return "\(what) did not authenticate"
        case .transport(let error): return error.description
        case .itemNotInHistory(let account): return "no synchronized item with account \(account) in the circle or its history (check the account, or run `keychainctl sync` first)"
        case .ambiguousItem(let account): return "several synchronized items have account \(account): give the service too (--service)"
        case .noSuchVersion(let number, let available): return "there is no version \(number); this item has \(available) (see `keychainctl sync history`)"
        case .versionIsDeletion(let number): return "version \(number) is the item's deletion; choose a version with contents, or delete the item"
        case .accessNotLogged(let consequence, let reason): return "the access log could not record this sync (\(consequence)): \(reason)"
        case .keychain(let error): return error.description
        }
    }
}
