#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// BLAKE2b (RFC 7693), unkeyed, with a digest of 1 to 64 bytes: the hash Argon2 (RFC 9106) is
/// built on. Neither swift-crypto nor the OpenSSL of Debian 12 offers a variable-length BLAKE2b.
package struct BLAKE2b {
    private static let iv: [UInt64] = [
        0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
        0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
    ]
    private static let sigma: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
        [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
        [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
        [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
        [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
        [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
        [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
        [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
        [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    ]

    private var state: [UInt64]
    private var buffer: [UInt8] = []
    private var byteCount: UInt64 = 0
    private let digestLength: Int

    /// A hash of `digestLength` bytes (1...64).
    package init(digestLength: Int) {
        precondition((1...64).contains(digestLength), "BLAKE2b digests are 1 to 64 bytes")
        self.digestLength = digestLength
        state = Self.iv
        state[0] ^= 0x0101_0000 ^ UInt64(digestLength)
    }

    /// The `digestLength`-byte BLAKE2b of `bytes`.
    package static func hash(_ bytes: [UInt8], digestLength: Int = 64) -> [UInt8] {
        var hasher = BLAKE2b(digestLength: digestLength)
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: [UInt8]) {
        for byte in bytes {
            // A full block is compressed only once more bytes follow: the last block is flagged.
            if buffer.count == 128 {
                byteCount &+= 128
                compress(buffer, isLast: false)
                buffer.removeAll(keepingCapacity: true)
            }
            buffer.append(byte)
        }
    }

    /// The digest (the hasher is spent).
    package mutating func finalize() -> [UInt8] {
        byteCount &+= UInt64(buffer.count)
        compress(buffer + [UInt8](repeating: 0, count: 128 - buffer.count), isLast: true)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for word in state {
            for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Array(out.prefix(digestLength))
    }

    private mutating func compress(_ block: [UInt8], isLast: Bool) {
        var m = [UInt64](repeating: 0, count: 16)
        for index in 0..<16 {
            var word: UInt64 = 0
            for byte in 0..<8 { word |= UInt64(block[index * 8 + byte]) << UInt64(8 * byte) }
            m[index] = word
        }
        var v = state + Self.iv
        v[12] ^= byteCount
        if isLast { v[14] = ~v[14] }
        for round in 0..<12 {
            let s = Self.sigma[round % 10]
            Self.mix(&v, 0, 4, 8, 12, m[s[0]], m[s[1]])
            Self.mix(&v, 1, 5, 9, 13, m[s[2]], m[s[3]])
            Self.mix(&v, 2, 6, 10, 14, m[s[4]], m[s[5]])
            Self.mix(&v, 3, 7, 11, 15, m[s[6]], m[s[7]])
            Self.mix(&v, 0, 5, 10, 15, m[s[8]], m[s[9]])
            Self.mix(&v, 1, 6, 11, 12, m[s[10]], m[s[11]])
            Self.mix(&v, 2, 7, 8, 13, m[s[12]], m[s[13]])
            Self.mix(&v, 3, 4, 9, 14, m[s[14]], m[s[15]])
        }
        for index in 0..<8 { state[index] ^= v[index] ^ v[index + 8] }
    }

    private static func mix(_ v: inout [UInt64], _ a: Int, _ b: Int, _ c: Int, _ d: Int, _ x: UInt64, _ y: UInt64) {
        v[a] = v[a] &+ v[b] &+ x
        v[d] = rotateRight(v[d] ^ v[a], 32)
        v[c] = v[c] &+ v[d]
        v[b] = rotateRight(v[b] ^ v[c], 24)
        v[a] = v[a] &+ v[b] &+ y
        v[d] = rotateRight(v[d] ^ v[a], 16)
        v[c] = v[c] &+ v[d]
        v[b] = rotateRight(v[b] ^ v[c], 63)
    }

    @inline(__always)
    static func rotateRight(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value >> count) | (value << (64 - count))
    }
}
