import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a person carries from the sponsor back to the joining device: a digest of the member list
/// the sponsor signed to add it, shown by `sync sponsor` and typed into `sync confirm` —
/// `xxxx-xxxx-xxxx-xxxx-xxxx-xxxx-xxxx-xxxx`, 128 bits of SHA-256 over a domain string and the
/// whole encoded list (its members, epoch, key check, signer and signature).
///
/// It is how a joining device knows which list to trust without trusting the transport: the
/// circle code authenticates the device to its sponsor, the confirmation authenticates the
/// sponsor's list to the device. Anyone who can write to the transport and knew a code (a device
/// removed since) can plant a list naming the joiner, but not one with this digest: that would
/// take a second preimage of SHA-256 truncated to 128 bits. It reveals nothing secret (the list
/// is on the transport for every member to read), so it may be read aloud or typed on a command
/// line.
package struct JoinConfirmation: Sendable, Equatable, CustomStringConvertible {
    /// The first 16 bytes of the digest.
    let digest: Data

    static let size = 16
    private static let domain = Data("keychainkit-sync-join-confirmation-v2".utf8)

    /// The confirmation of an encoded member list.
    init(ofEncodedRoster encoded: Data) {
        digest = Data(SHA256.hash(data: Self.domain + encoded).prefix(Self.size))
    }

    init(digest: Data) {
        self.digest = digest
    }

    /// Parses what a person typed: 32 hex digits in either case; dashes and white space are
    /// ignored. `.invalidJoinConfirmation` otherwise.
    package init(text: String) throws(SyncError) {
        let digits = text.filter { !$0.isWhitespace && $0 != "-" }
        guard let bytes = HexEncoding.bytes(digits.lowercased()), bytes.count == Self.size else { throw .invalidJoinConfirmation }
        digest = Data(bytes)
    }

    /// The text form: 32 hex digits in groups of four.
    package var text: String {
        let hex = Array(HexEncoding.string(digest))
        return stride(from: 0, to: hex.count, by: 4).map { String(hex[$0..<min($0 + 4, hex.count)]) }.joined(separator: "-")
    }

    package var description: String { text }
}
