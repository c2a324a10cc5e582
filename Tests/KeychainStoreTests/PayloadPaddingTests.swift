import Foundation
import KeychainTestSupport
@testable import KeychainStore
import Testing
import KeychainItemCodec

/// Item payloads are padded to size buckets, so a stolen file does not show each secret's length;
/// padding is checked as strictly as every other record, and payloads from before padding read.
@Suite("Payload padding")
struct PayloadPaddingTests {
    @Test("secrets of 1, 8 and 40 bytes with the same attributes are stored in payloads of one size")
    func equalStoredSizes() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "pw")
        for (account, length) in [("a1", 1), ("a2", 8), ("a3", 40)] {
            _ = try database.insert(genericPassword(account: account, secret: String(repeating: "x", count: length)))
        }
        let sizes = try rawPayloads(keychain.path).map(\.count)
        #expect(sizes.count == 3)
        #expect(Set(sizes).count == 1, "payload sizes \(sizes)")
        #expect(try readSecret(database, account: "a3") == String(repeating: "x", count: 40))
    }

    @Test("buckets: 256, then powers of two to 64 KiB, then multiples of 64 KiB; never smaller than the records")
    func buckets() {
        #expect(ItemPayload.paddedLength(of: 1) == 256)
        #expect(ItemPayload.paddedLength(of: 251) == 256)
        #expect(ItemPayload.paddedLength(of: 252) == 512)
        #expect(ItemPayload.paddedLength(of: 65_531) == 65_536)
        #expect(ItemPayload.paddedLength(of: 65_532) == 131_072)
        #expect(ItemPayload.paddedLength(of: 200_000) == 262_144)
        for length in [1, 100, 255, 256, 4_000, 70_000, 16 << 20] {
            #expect(ItemPayload.paddedLength(of: length) >= length + 5)
        }
    }

    @Test("a padded payload decodes to the same item; padding that is not zeros, is not last, or is cut short is refused")
    func strictPadding() throws {
        let payload = ItemPayload(attributes: ["acct": .string("a"), "svce": .string("s")], data: Data("secret".utf8), accessControlFlags: nil)
        let padded = payload.encoded(padded: true)
        #expect(padded.count == 256)
        #expect(try ItemPayload(decoding: padded) == payload)
        #expect(try ItemPayload(decoding: payload.encoded()) == payload, "a payload from before padding reads unchanged")

        var nonzero = padded
        nonzero[nonzero.count - 1] = 1
        var followed = payload.encoded() + Data([UInt8(ascii: "P"), 0, 0, 0, 0])
        followed.append(contentsOf: [UInt8(ascii: "C")] + [UInt8](repeating: 0, count: 8))
        for (what, bytes) in [("non-zero padding", nonzero), ("a record after the padding", followed), ("cut short", padded.dropLast())] {
            do {
                _ = try ItemPayload(decoding: Data(bytes))
                Issue.record("\(what) was accepted")
            } catch {
                guard case .undecodable = error.reason else {
                    Issue.record("\(what): \(error)")
                    continue
                }
            }
        }
    }
}
