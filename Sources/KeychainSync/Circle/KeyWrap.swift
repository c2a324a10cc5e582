import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One epoch's key bundle for one member, stored as `wraps/<epoch>/<member id>/<signer id>`: sealed to the
/// member's X25519 key with HPKE (Base mode: X25519, HKDF-SHA256, ChaCha20-Poly1305) and signed
/// by the member of that epoch's roster who made it. Base mode alone would let anyone who knows
/// the recipient's public key make a wrap; the signature (over the circle id, the epoch, the
/// recipient, the signer and the whole sealed wrap) is what makes it the circle's.
///
/// Layout: `0x02 ‖ epoch:u32 ‖ recipient id (16) ‖ signer id (16) ‖ encapsulated key (field) ‖
/// ciphertext (field) ‖ signature (64)`.
struct KeyWrap {
    var epoch: UInt32
    var recipientID: Data
    var signerID: Data
    var encapsulatedKey: Data
    var ciphertext: Data
    var signature: Data

    /// A wrap is a bundle of at most ``KeyBundle/maximumEpochs`` secrets and a few headers.
    static let maximumSize = 128 + 73 + KeyBundle.maximumEpochs * 36 + 16 + 64
    private static let suite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly
    private static let domain = Data("keychainkit-sync-wrap-v2".utf8)

    /// Seals `bundle` to `recipient`, signed by `signer`.
    init(_ bundle: KeyBundle, to recipient: Member, circleID: Data, signer: DeviceIdentity) throws(SyncError) {
        epoch = bundle.epoch
        recipientID = recipient.id
        signerID = signer.member.id
        do {
            var sender = try HPKE.Sender(recipientKey: try recipient.agreementPublicKey, ciphersuite: Self.suite,
                                         info: Self.domain + circleID)
            var plaintext = bundle.encoded
            defer { plaintext.resetBytes(in: 0..<plaintext.count) }
            ciphertext = try sender.seal(plaintext, authenticating: Self.aad(circleID, recipientID, epoch))
            encapsulatedKey = sender.encapsulatedKey
        } catch {
            throw .tampered("a key wrap that could not be made")
        }
        signature = Data()
        signature = try signer.sign(signedBytes(circleID: circleID))
    }

    /// Decodes a wrap (nothing verified yet: see ``open(circleID:roster:identity:)``).
    init(decoding data: Data) throws(SyncError) {
        guard data.count <= Self.maximumSize else { throw .tampered("a key wrap over its size limit") }
        var reader = ByteReader(data)
        guard try reader.byte() == 2 else { throw .tampered("a key wrap of an unknown version") }
        epoch = try reader.uint32()
        recipientID = try reader.bytes(16)
        signerID = try reader.bytes(16)
        encapsulatedKey = try reader.field()
        ciphertext = try reader.field()
        signature = try reader.bytes(64)
        guard reader.isAtEnd, encapsulatedKey.count == 32 else { throw .tampered("a key wrap") }
    }

    var encoded: Data { header + signature }

    private var header: Data {
        var out = Data()
        out.append(UInt8(2))
        out.appendBigEndian(epoch)
        out.append(recipientID)
        out.append(signerID)
        out.appendField(encapsulatedKey)
        out.appendField(ciphertext)
        return out
    }

    private func signedBytes(circleID: Data) -> Data {
        var out = Data(Self.domain)
        out.append(circleID)
        return out + header
    }

    private static func aad(_ circleID: Data, _ recipientID: Data, _ epoch: UInt32) -> Data {
        var aad = Data(domain)
        aad.append(circleID)
        aad.append(recipientID)
        aad.appendBigEndian(epoch)
        return aad
    }

    /// The bundle, after checking that the wrap is for `identity` at `roster`'s epoch and signed
    /// by a member of `roster`; the bundle inside must be of that epoch.
    func open(circleID: Data, roster: Roster, identity: DeviceIdentity) throws(SyncError) -> KeyBundle {
        guard epoch == roster.epoch, recipientID == identity.member.id else { throw .tampered("a key wrap for another epoch or device") }
        guard let signer = roster.member(signerID), signer.verifies(signature, over: signedBytes(circleID: circleID)) else {
            throw .tampered("a key wrap not signed by a member")
        }
        var plaintext: Data
        do {
            var recipient = try HPKE.Recipient(privateKey: identity.agreementKey, ciphersuite: Self.suite, info: Self.domain + circleID,
                                               encapsulatedKey: encapsulatedKey)
            plaintext = try recipient.open(ciphertext, authenticating: Self.aad(circleID, recipientID, epoch))
        } catch {
            throw .tampered("a key wrap that does not open")
        }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        let bundle = try KeyBundle(decoding: plaintext)
        guard bundle.epoch == epoch else { throw .tampered("a key wrap whose bundle names another epoch") }
        guard bundle.check(circleID: circleID) == roster.keyCheck else { throw .tampered("a key wrap whose keys are not the member list's") }
        return bundle
    }
}
