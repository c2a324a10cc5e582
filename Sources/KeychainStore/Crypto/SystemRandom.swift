import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainVocabulary

/// Random bytes from the kernel, up to 256 bytes per system call. `SystemRandomNumberGenerator`
/// makes one `getrandom` per 8 bytes, and swift-crypto draws keys and nonces through it: a new
/// item's key and two nonces were 8 system calls, its persistent id a ninth read of
/// `/dev/urandom`. `ItemRandomness` takes all of them in one.
enum SystemRandom {
    /// Fills `buffer` with cryptographically secure random bytes.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Glibc) || canImport(Musl)
        // getentropy(3): the getrandom(2) system call, at most 256 bytes a call, all or nothing.
        var filled = 0
        while filled < buffer.count {
            let count = min(256, buffer.count - filled)
            guard getentropy(base + filled, count) == 0 else {
                // Fails only for a kernel without getrandom (before 3.17): the portable generator
                // serves the rest.
                fillPortably(UnsafeMutableRawBufferPointer(start: base + filled, count: buffer.count - filled))
                return
            }
            filled += count
        }
        #else
        fillPortably(buffer)
        #endif
    }

    private static func fillPortably(_ buffer: UnsafeMutableRawBufferPointer) {
        var generator = SystemRandomNumberGenerator()
        var offset = 0
        while offset < buffer.count {
            let word = generator.next()
            let count = min(8, buffer.count - offset)
            withUnsafeBytes(of: word) { bytes in
                buffer.baseAddress.unsafelyUnwrapped.advanced(by: offset)
                    .copyMemory(from: bytes.baseAddress.unsafelyUnwrapped, byteCount: count)
            }
            offset += count
        }
    }
}

/// The random values sealing one item needs: a fresh item key and the AES-GCM nonces of the
/// payload and of the wrapped item key.
struct SealRandomness {
    var itemKey: SymmetricKey
    var payloadNonce: AES.GCM.Nonce
    var keyNonce: AES.GCM.Nonce

    static let byteCount = 32 + 12 + 12

    /// Fresh values, drawn in one system call.
    static func draw() throws(KeychainStoreError) -> SealRandomness {
        try withRandomBytes(byteCount) { bytes throws(KeychainStoreError) in try SealRandomness(bytes) }
    }

    /// Values taken from the first `byteCount` bytes of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) throws(KeychainStoreError) {
        guard bytes.count >= Self.byteCount else { throw .internalFailure("random bytes") }
        itemKey = SymmetricKey(data: UnsafeRawBufferPointer(rebasing: bytes[0..<32]))
        do {
            payloadNonce = try AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: bytes[32..<44]))
            keyNonce = try AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: bytes[44..<56]))
        } catch {
            throw .internalFailure("AES-GCM nonce")
        }
    }
}

/// A new item's random values: its persistent id and what sealing it needs, in one system call.
struct ItemRandomness {
    var persistentID: UUID
    var seal: SealRandomness

    /// Fresh values.
    static func draw() throws(KeychainStoreError) -> ItemRandomness {
        try withRandomBytes(16 + SealRandomness.byteCount) { bytes throws(KeychainStoreError) in
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<16]))
                // A version-4 (random) UUID, as `UUID()` makes: RFC 9562 §5.4.
                target[6] = (target[6] & 0x0F) | 0x40
                target[8] = (target[8] & 0x3F) | 0x80
            }
            return ItemRandomness(persistentID: UUID(uuid: uuid),
                                  seal: try SealRandomness(UnsafeRawBufferPointer(rebasing: bytes[16...])))
        }
    }
}

/// Runs `body` with `count` fresh random bytes in a temporary buffer, zeroed afterwards (it held
/// key material).
private func withRandomBytes<R>(_ count: Int, _ body: (UnsafeRawBufferPointer) throws(KeychainStoreError) -> R) throws(KeychainStoreError) -> R {
    try withUnsafeTemporaryAllocation(byteCount: count, alignment: 8) { buffer throws(KeychainStoreError) -> R in
        SystemRandom.fill(buffer)
        defer { buffer.initializeMemory(as: UInt8.self, repeating: 0) }
        return try body(UnsafeRawBufferPointer(buffer))
    }
}
