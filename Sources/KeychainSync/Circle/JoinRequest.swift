import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A new device's request to be sponsored, stored as `requests/<device id>`: its public keys,
/// signed with its own signing key (it holds the private half) and authenticated with the circle
/// code (whoever made it knows the code). A member checks both and, when a person approves with
/// `sponsor`, signs a new member list that includes the device.
///
/// Layout: `0x02 ‖ circle id (16) ‖ signing key (32) ‖ agreement key (32) ‖ signature (64) ‖
/// HMAC-SHA256 tag (32)`; the signature and the tag cover the domain string and the first four fields.
struct JoinRequest {
    var circleID: Data
    var member: Member

    static let size = 1 + 16 + 32 + 32 + 64 + 32
    private static let domain = Data("keychainkit-sync-join-request-v2".utf8)

    init(circleID: Data, member: Member) {
        self.circleID = circleID
        self.member = member
    }

    private var body: Data {
        var out = Data()
        out.append(UInt8(2))
        out.append(circleID)
        out.append(member.signingKey)
        out.append(member.agreementKey)
        return out
    }

    /// The request of `identity`, for `code`.
    static func make(identity: DeviceIdentity, code: CircleCode) throws(SyncError) -> Data {
        let request = JoinRequest(circleID: code.circleID, member: identity.member)
        let body = request.body
        let signature = try identity.sign(domain + body)
        let tag = Data(HMAC<SHA256>.authenticationCode(for: domain + body, using: code.requestKey))
        return body + signature + tag
    }

    /// A request checked against `code`: the right size and circle, signed by the key it names,
    /// and authenticated with the code. `.tampered` otherwise.
    init(verifying data: Data, code: CircleCode) throws(SyncError) {
        guard data.count == Self.size else { throw .tampered("a join request of the wrong size") }
        var reader = ByteReader(data)
        guard try reader.byte() == 2 else { throw .tampered("a join request of an unknown version") }
        circleID = try reader.bytes(16)
        member = Member(signingKey: try reader.bytes(32), agreementKey: try reader.bytes(32))
        let signature = try reader.bytes(64)
        let tag = try reader.bytes(32)
        let body = self.body
        guard circleID == code.circleID,
              HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: Self.domain + body, using: code.requestKey)
        else { throw .tampered("a join request not made with the current circle code") }
        guard member.verifies(signature, over: Self.domain + body) else { throw .tampered("a join request whose signature does not verify") }
    }
}
