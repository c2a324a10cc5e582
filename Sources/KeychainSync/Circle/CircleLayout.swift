import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The names of a circle's records on its transport (see ``SyncTransport``):
/// `roster/<epoch>` (the signed member list of each epoch, 10 digits),
/// `wraps/<epoch>/<device id>/<signer id>` (that epoch's key bundle sealed to one member and signed), `requests/<device id>` (a join
/// request awaiting sponsorship) and `items/<record name>` (the records). Every component is a
/// number or hex of random or keyed bytes: no item name, account or service appears.
enum CircleLayout {
    static let rosterPrefix = "roster/"
    static let itemsPrefix = "items/"

    static func roster(_ epoch: UInt32) -> String { rosterPrefix + epochName(epoch) }
    /// Where `signer` leaves `deviceID`'s wrap of `epoch`: one place per signer, so two members
    /// changing the membership at once do not overwrite each other's wraps (readers take the wrap
    /// of the member who signed the list).
    static func wrap(_ epoch: UInt32, _ deviceID: Data, signer: Data) -> String {
        "wraps/" + epochName(epoch) + "/" + HexEncoding.string(deviceID) + "/" + HexEncoding.string(signer)
    }
    /// An epoch as 10 decimal digits with leading zeros (every `UInt32` fits), so that names sort
    /// in epoch order.
    static func epochName(_ epoch: UInt32) -> String {
        let digits = String(epoch)
        return String(repeating: "0", count: 10 - digits.count) + digits
    }
    static let requestPrefix = "requests/"
    static func request(_ deviceID: Data) -> String { requestPrefix + HexEncoding.string(deviceID) }
    static func item(_ name: Data) -> String { itemsPrefix + HexEncoding.string(name) }

    /// The record name in a transport name under `items/`, or nil for anything else.
    static func name(fromItem transportName: String) -> Data? {
        guard transportName.hasPrefix(itemsPrefix) else { return nil }
        let hex = String(transportName.dropFirst(itemsPrefix.count))
        guard hex.count == 64 else { return nil }
        return HexEncoding.bytes(hex)
    }

    /// A device id given by a person: 32 hex digits in either case.
    static func deviceID(_ text: String) throws(SyncError) -> Data {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.count == 32, let id = HexEncoding.bytes(trimmed) else { throw .invalidDeviceID(text) }
        return id
    }
}
