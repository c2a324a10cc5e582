import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a person carries from a member to a new device: the circle's identity and its join
/// secret, as one line of text — `kkc2-<circle id, 32 hex digits>-<secret, 64 hex digits>`.
/// Shown once when a circle is created (or re-keyed at a removal). It authorises a join request
/// (a member checks it before sponsoring the device); it is not what devices trust — the signed
/// member list is. It never goes to the transport.
package struct CircleCode: Sendable, Equatable {
    /// The circle's public identity (16 random bytes): names its folder in etcd.
    package let circleID: Data
    /// The join secret (32 random bytes): authenticates join requests.
    let secret: SymmetricKey

    static let prefix = "kkc2-"
    /// The prefix of codes of the first sync format (unauthenticated membership), refused.
    static let legacyPrefix = "kkc1-"

    /// A new circle identity and secret.
    static func random() -> CircleCode {
        CircleCode(circleID: Data(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }), secret: SymmetricKey(size: .bits256))
    }

    /// A new secret for the same circle (after a device was removed).
    func rekeyed() -> CircleCode { CircleCode(circleID: circleID, secret: SymmetricKey(size: .bits256)) }

    init(circleID: Data, secret: SymmetricKey) {
        self.circleID = circleID
        self.secret = secret
    }

    /// Parses the text form; surrounding white space is ignored.
    package init(text: String) throws(SyncError) {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if trimmed.hasPrefix(Self.legacyPrefix) { throw .legacyCircle }
        guard trimmed.hasPrefix(Self.prefix) else { throw .invalidCircleCode }
        let parts = trimmed.dropFirst(Self.prefix.count).split(separator: "-")
        guard parts.count == 2, let id = HexEncoding.bytes(String(parts[0])), id.count == 16,
              let secretBytes = HexEncoding.bytes(String(parts[1])), secretBytes.count == 32
        else { throw .invalidCircleCode }
        circleID = id
        secret = SymmetricKey(data: secretBytes)
    }

    /// The text form (contains the secret: show it once, never log it).
    package var text: String {
        Self.prefix + HexEncoding.string(circleID) + "-" + secret.withUnsafeBytes { HexEncoding.string($0) }
    }

    /// The key a join request is authenticated with.
    var requestKey: SymmetricKey { derive("request") }

    private func derive(_ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, salt: circleID, info: Data("keychainkit-circle-v2-\(purpose)".utf8),
                               outputByteCount: 32)
    }

    package static func == (lhs: CircleCode, rhs: CircleCode) -> Bool {
        lhs.circleID == rhs.circleID && lhs.secret == rhs.secret
    }

}
