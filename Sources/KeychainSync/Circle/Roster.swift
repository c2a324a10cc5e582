import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The circle's signed member list (the trusted-device list) at one epoch, stored as
/// `roster/<epoch>`. Every change of membership (a sponsored join, a removal) is a new roster with
/// the next epoch, signed by a member of the previous roster who is also in the new one; a device
/// accepts roster `e + 1` only when it verifies against the roster `e` it already trusts, so the
/// member list is a chain of signatures back to the roster the device joined with.
///
/// The list also commits to the epoch's keys (``KeyBundle/check``): a key wrap is taken only if the
/// bundle inside matches the list it belongs to.
///
/// Layout (the signature covers the domain string and every byte before it):
/// `0x02 ‖ circle id (16) ‖ epoch:u32 ‖ count:u16 ‖ count × (signing key (32) ‖ agreement key (32))
/// ‖ key check (32) ‖ signer id (16) ‖ signature (64)`.
struct Roster: Equatable {
    var circleID: Data
    var epoch: UInt32
    /// Members in id order.
    var members: [Member]
    /// ``KeyBundle/check`` of this epoch's bundle.
    var keyCheck: Data
    var signerID: Data
    var signature: Data

    /// The most members a roster holds (a decoder bound; a household has a handful of devices).
    static let maximumMembers = 256
    static let maximumSize = 1 + 16 + 4 + 2 + maximumMembers * 64 + 32 + 16 + 64
    private static let domain = Data("keychainkit-sync-roster-v2".utf8)

    /// A roster of `members` at `bundle`'s epoch, committing to `bundle`, signed by `signer`.
    init(circleID: Data, members: [Member], bundle: KeyBundle, signer: DeviceIdentity) throws(SyncError) {
        self.circleID = circleID
        self.epoch = bundle.epoch
        self.keyCheck = bundle.check(circleID: circleID)
        self.members = Array(Set(members)).sorted { $0.id.lexicographicallyPrecedes($1.id) }
        self.signerID = signer.member.id
        self.signature = Data()
        guard self.members.count <= Self.maximumMembers else { throw .tampered("a member list over \(Self.maximumMembers) devices") }
        self.signature = try signer.sign(Self.domain + signedBytes)
    }

    /// Decodes a roster (no signature check: see ``verified(after:)`` and ``verifiedAlone()``).
    init(decoding data: Data) throws(SyncError) {
        guard data.count <= Self.maximumSize else { throw .tampered("a member list over its size limit") }
        var reader = ByteReader(data)
        guard try reader.byte() == 2 else { throw .tampered("a member list of an unknown version") }
        circleID = try reader.bytes(16)
        epoch = try reader.uint32()
        let count = Int(try reader.uint16())
        guard count >= 1, count <= Self.maximumMembers else { throw .tampered("a member list with \(count) members") }
        var members: [Member] = []
        for _ in 0..<count {
            members.append(Member(signingKey: try reader.bytes(32), agreementKey: try reader.bytes(32)))
        }
        keyCheck = try reader.bytes(32)
        signerID = try reader.bytes(16)
        signature = try reader.bytes(64)
        guard reader.isAtEnd else { throw .tampered("a member list with trailing bytes") }
        guard Set(members.map(\.id)).count == members.count else { throw .tampered("a member list naming a device twice") }
        self.members = members
    }

    var encoded: Data { signedBytes + signature }

    private var signedBytes: Data {
        var out = Data()
        out.append(UInt8(2))
        out.append(circleID)
        out.appendBigEndian(epoch)
        out.appendBigEndian(UInt16(members.count))
        for member in members {
            out.append(member.signingKey)
            out.append(member.agreementKey)
        }
        out.append(keyCheck)
        out.append(signerID)
        return out
    }

    /// The member with `id`, if listed.
    func member(_ id: Data) -> Member? { members.first { $0.id == id } }

    /// Member ids (hex), sorted.
    var memberIDs: [String] { members.map { HexEncoding.string($0.id) }.sorted() }

    private func signatureIsValid() -> Bool {
        guard let signer = member(signerID) else { return false }
        return signer.verifies(signature, over: Self.domain + signedBytes)
    }

    /// This roster, if it is the next one after `previous`: same circle, epoch one higher, signed
    /// by a member of `previous` who is still a member here.
    func verified(after previous: Roster) throws(SyncError) -> Roster {
        guard circleID == previous.circleID, epoch == previous.epoch + 1 else {
            throw .tampered("a member list out of sequence")
        }
        guard previous.member(signerID) != nil else { throw .tampered("a member list signed by a device that is not a member") }
        guard signatureIsValid() else { throw .tampered("a member list whose signature does not verify") }
        return self
    }

    /// This roster checked on its own (signed by one of its members): what a joining device can
    /// check before its sponsorship pins it.
    func verifiedAlone(circleID expected: Data) throws(SyncError) -> Roster {
        guard circleID == expected else { throw .tampered("a member list of another circle") }
        guard signatureIsValid() else { throw .tampered("a member list whose signature does not verify") }
        return self
    }
}
