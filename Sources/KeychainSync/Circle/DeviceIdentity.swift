import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A device's syncing identity: an Ed25519 signing key pair (signs member lists, key wraps and
/// records) and an X25519 key-agreement pair (receives key wraps). The private halves never leave
/// the device's keychain; the device id is the first 16 bytes of SHA-256 of the signing public key,
/// so an id names exactly one signing key.
struct DeviceIdentity {
    let signingKey: Curve25519.Signing.PrivateKey
    let agreementKey: Curve25519.KeyAgreement.PrivateKey

    /// A new identity.
    static func generate() -> DeviceIdentity {
        DeviceIdentity(signingKey: Curve25519.Signing.PrivateKey(), agreementKey: Curve25519.KeyAgreement.PrivateKey())
    }

    init(signingKey: Curve25519.Signing.PrivateKey, agreementKey: Curve25519.KeyAgreement.PrivateKey) {
        self.signingKey = signingKey
        self.agreementKey = agreementKey
    }

    /// The identity from its stored private keys.
    init(signing: Data, agreement: Data) throws(SyncError) {
        do {
            signingKey = try Curve25519.Signing.PrivateKey(rawRepresentation: signing)
            agreementKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: agreement)
        } catch {
            throw .tampered("this device's syncing identity (in the keychain)")
        }
    }

    /// What other devices know of this one.
    var member: Member {
        Member(signingKey: signingKey.publicKey.rawRepresentation, agreementKey: agreementKey.publicKey.rawRepresentation)
    }

    /// An Ed25519 signature over `message`.
    func sign(_ message: Data) throws(SyncError) -> Data {
        do {
            return try signingKey.signature(for: message)
        } catch {
            throw .tampered("a signature that could not be made")
        }
    }
}

/// One member as the signed member list names it: its two public keys (the id derives from the
/// signing key).
struct Member: Equatable, Hashable {
    /// Ed25519 public key (32 bytes).
    var signingKey: Data
    /// X25519 public key (32 bytes).
    var agreementKey: Data

    /// The device id: SHA-256 of the signing key, first 16 bytes.
    var id: Data { Self.id(ofSigningKey: signingKey) }

    static func id(ofSigningKey key: Data) -> Data { Data(SHA256.hash(data: key).prefix(16)) }

    /// Whether `signature` over `message` was made by this member.
    func verifies(_ signature: Data, over message: Data) -> Bool {
        do {
            return try Curve25519.Signing.PublicKey(rawRepresentation: signingKey).isValidSignature(signature, for: message)
        } catch {
            return false  // a malformed key verifies nothing
        }
    }

    var agreementPublicKey: Curve25519.KeyAgreement.PublicKey {
        get throws(SyncError) {
            do {
                return try Curve25519.KeyAgreement.PublicKey(rawRepresentation: agreementKey)
            } catch {
                throw .tampered("a member's key-agreement key")
            }
        }
    }
}
