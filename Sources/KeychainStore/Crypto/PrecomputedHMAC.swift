import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HMAC-SHA256 (RFC 2104) under one fixed key, from SHA-256 states that have already absorbed
/// the key's inner and outer pad blocks. A MAC is then a copy of each state, the message through
/// `SHA256.update(bufferPointer:)` and two `finalize` calls: the same bytes as `HMAC<SHA256>`,
/// without re-keying and without swift-crypto's generic `HMAC.update<D: DataProtocol>`, which is
/// not specialised for callers in other modules (about 2,900 instructions a call).
struct PrecomputedHMAC {
    /// SHA-256 after `K0 ⊕ ipad` (one 64-byte block).
    private let inner: SHA256
    /// SHA-256 after `K0 ⊕ opad`.
    private let outer: SHA256

    /// Keys the states with `key` (any length: a key longer than the 64-byte block is hashed
    /// first, a shorter one padded with zeros, as RFC 2104 says).
    init(key: SymmetricKey) {
        let blockSize = SHA256.blockByteCount
        var block = [UInt8](repeating: 0, count: blockSize)
        key.withUnsafeBytes { keyBytes in
            if keyBytes.count > blockSize {
                SHA256.hash(data: keyBytes).withUnsafeBytes { digest in
                    for index in 0..<digest.count { block[index] = digest[index] }
                }
            } else {
                for index in 0..<keyBytes.count { block[index] = keyBytes[index] }
            }
        }
        var inner = SHA256()
        var outer = SHA256()
        var pad = [UInt8](repeating: 0, count: blockSize)
        for index in 0..<blockSize { pad[index] = block[index] ^ 0x36 }
        pad.withUnsafeBytes { inner.update(bufferPointer: $0) }
        for index in 0..<blockSize { pad[index] = block[index] ^ 0x5C }
        pad.withUnsafeBytes { outer.update(bufferPointer: $0) }
        // The padded key stays in memory no longer than needed.
        for index in 0..<blockSize {
            block[index] = 0
            pad[index] = 0
        }
        self.inner = inner
        self.outer = outer
    }

    /// HMAC-SHA256 of `message`, passed to `body` as its 32 bytes (valid during the call only).
    func withCode<R>(for message: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        var innerHash = inner
        innerHash.update(bufferPointer: message)
        let innerDigest = innerHash.finalize()
        var outerHash = outer
        innerDigest.withUnsafeBytes { outerHash.update(bufferPointer: $0) }
        return outerHash.finalize().withUnsafeBytes(body)
    }
}
