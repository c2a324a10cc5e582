import Crypto
import Foundation

/// The circle's key records in etcd: the bundle sealed for joiners under the circle secret, each
/// member's public key vouched for with the secret, and the bundle sealed to one member's public
/// key (HPKE, X25519 + ChaCha20-Poly1305) when the circle is re-keyed without it.
enum CircleKeys {
    // MARK: keys

    static func sealBundle(_ bundle: KeyBundle, code: CircleCode) throws(SyncError) -> Data {
        var out = SyncBytes()
        out.append(UInt8(1))
        out.append(bundle.epoch)
        return out.data + (try SyncSealing.seal(bundle.encoded, using: code.joinKey, binding: bundleAAD(code.circleID, bundle.epoch)))
    }

    /// The epoch a `keys` record announces (readable without any key).
    static func announcedEpoch(_ sealed: Data) throws(SyncError) -> UInt32 {
        var reader = SyncBytes(sealed)
        guard try reader.byte() == 1 else { throw .tampered("the circle's keys") }
        return try reader.uint32()
    }

    static func openBundle(_ sealed: Data, code: CircleCode) throws(SyncError) -> KeyBundle {
        var reader = SyncBytes(sealed)
        guard try reader.byte() == 1 else { throw .tampered("the circle's keys") }
        let epoch = try reader.uint32()
        let bundle = try KeyBundle(decoding: try SyncSealing.open(reader.rest(), using: code.joinKey,
                                                                  binding: bundleAAD(code.circleID, epoch), what: "the circle's keys"))
        guard bundle.epoch == epoch else { throw .tampered("the circle's keys") }
        return bundle
    }

    private static func bundleAAD(_ circleID: Data, _ epoch: UInt32) -> Data {
        var aad = SyncBytes(Data("keychainkit-sync-keys-v1".utf8))
        aad.appendField(circleID)
        aad.append(epoch)
        return aad.data
    }

    // MARK: members

    static func memberRecord(deviceID: Data, publicKey: Curve25519.KeyAgreement.PublicKey, code: CircleCode) -> Data {
        var out = SyncBytes()
        out.append(UInt8(1))
        out.appendField(publicKey.rawRepresentation)
        out.appendField(memberTag(deviceID: deviceID, publicKey: publicKey.rawRepresentation, code: code))
        return out.data
    }

    /// A member's public key, if its record was vouched for with `code` (when given).
    static func memberKey(_ record: Data, deviceID: Data, code: CircleCode?) throws(SyncError) -> Curve25519.KeyAgreement.PublicKey {
        var reader = SyncBytes(record)
        guard try reader.byte() == 1 else { throw .tampered("a member record") }
        let raw = try reader.field()
        let tag = try reader.field()
        guard reader.isAtEnd else { throw .tampered("a member record") }
        if let code {
            let expected = memberTag(deviceID: deviceID, publicKey: raw, code: code)
            guard tag.count == expected.count, zip(tag, expected).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else {
                throw .tampered("a member record")
            }
        }
        do {
            return try Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw)
        } catch {
            throw .tampered("a member record")
        }
    }

    private static func memberTag(deviceID: Data, publicKey: Data, code: CircleCode) -> Data {
        var message = SyncBytes(Data("keychainkit-sync-member-v1".utf8))
        message.appendField(code.circleID)
        message.appendField(deviceID)
        message.appendField(publicKey)
        return Data(HMAC<SHA256>.authenticationCode(for: message.data, using: code.memberKey))
    }

    // MARK: wraps

    private static let suite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly

    static func wrap(_ bundle: KeyBundle, to publicKey: Curve25519.KeyAgreement.PublicKey, deviceID: Data, circleID: Data) throws(SyncError) -> Data {
        do {
            var sender = try HPKE.Sender(recipientKey: publicKey, ciphersuite: suite, info: wrapInfo(circleID))
            let sealed = try sender.seal(bundle.encoded, authenticating: wrapAAD(circleID, deviceID, bundle.epoch))
            var out = SyncBytes()
            out.append(UInt8(1))
            out.append(bundle.epoch)
            out.appendField(sender.encapsulatedKey)
            return out.data + sealed
        } catch {
            throw .tampered("a key wrap that could not be made")
        }
    }

    static func unwrap(_ record: Data, privateKey: Curve25519.KeyAgreement.PrivateKey, deviceID: Data, circleID: Data) throws(SyncError) -> KeyBundle {
        var reader = SyncBytes(record)
        guard try reader.byte() == 1 else { throw .tampered("this device's key wrap") }
        let epoch = try reader.uint32()
        let encapsulated = try reader.field()
        let ciphertext = reader.rest()
        let plaintext: Data
        do {
            var recipient = try HPKE.Recipient(privateKey: privateKey, ciphersuite: suite, info: wrapInfo(circleID),
                                               encapsulatedKey: encapsulated)
            plaintext = try recipient.open(ciphertext, authenticating: wrapAAD(circleID, deviceID, epoch))
        } catch {
            throw .tampered("this device's key wrap")
        }
        let bundle = try KeyBundle(decoding: plaintext)
        guard bundle.epoch == epoch else { throw .tampered("this device's key wrap") }
        return bundle
    }

    private static func wrapInfo(_ circleID: Data) -> Data { Data("keychainkit-sync-wrap-v1".utf8) + circleID }

    private static func wrapAAD(_ circleID: Data, _ deviceID: Data, _ epoch: UInt32) -> Data {
        var aad = SyncBytes()
        aad.appendField(circleID)
        aad.appendField(deviceID)
        aad.append(epoch)
        return aad.data
    }
}
