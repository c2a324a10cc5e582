#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads big-endian integers, fixed-size runs and length-prefixed fields from bytes, throwing the
/// caller's own error instead of reading past the end: every binary format the keychain and its
/// sync protocol parse (item payloads, keybag entries, KDF parameters, sync records, key wraps,
/// member lists) reads through this one type.
///
/// The bytes are not copied: a `Data` slice is read in place, and ``withBytes(_:_:)`` lends a run
/// without copying it (the item payload decoder reads every field so, on every read hit).
/// Everything is `@inlinable` so that the callers in other modules get it specialised for their
/// error type, as fast as a reader declared in their own module.
package struct ByteReader<Failure: Error> {
    @usableFromInline let storage: Data
    /// Bytes read so far, counted from `storage.startIndex`.
    @usableFromInline var offset = 0
    /// What every read past the end throws.
    @usableFromInline let truncated: Failure

    /// A reader at the first byte of `bytes`; a read past their end throws `truncated`.
    @inlinable
    package init(_ bytes: Data, truncated: Failure) {
        storage = bytes
        self.truncated = truncated
    }

    /// Whether every byte has been read.
    @inlinable package var isAtEnd: Bool { offset == storage.count }

    /// Bytes not read yet.
    @inlinable package var remaining: Int { storage.count - offset }

    /// Moves past `count` bytes and returns where they start (relative to the first byte).
    @inlinable
    mutating func advance(_ count: Int) throws(Failure) -> Int {
        guard count >= 0, count <= storage.count - offset else { throw truncated }
        defer { offset += count }
        return offset
    }

    /// Lends the next `count` bytes to `body` without copying them; they are valid during the call only.
    @inlinable
    package mutating func withBytes<Result>(_ count: Int, _ body: (UnsafeRawBufferPointer) -> Result) throws(Failure) -> Result {
        let start = try advance(count)
        return storage.withUnsafeBytes { all in body(UnsafeRawBufferPointer(rebasing: all[start..<start + count])) }
    }

    /// The next byte.
    @inlinable
    package mutating func byte() throws(Failure) -> UInt8 {
        let start = try advance(1)
        return storage[storage.startIndex + start]
    }

    /// The next `count` bytes, as a `Data` of their own (indices from zero).
    @inlinable
    package mutating func bytes(_ count: Int) throws(Failure) -> Data {
        try withBytes(count) { Data($0) }
    }

    /// A 2-byte big-endian integer.
    @inlinable
    package mutating func uint16() throws(Failure) -> UInt16 { UInt16(truncatingIfNeeded: try withBytes(2, BigEndian.integer)) }

    /// A 4-byte big-endian integer.
    @inlinable
    package mutating func uint32() throws(Failure) -> UInt32 { UInt32(truncatingIfNeeded: try withBytes(4, BigEndian.integer)) }

    /// An 8-byte big-endian integer.
    @inlinable
    package mutating func uint64() throws(Failure) -> UInt64 { try withBytes(8, BigEndian.integer) }

    /// A length-prefixed field (4-byte big-endian length, then the bytes), as `Data.appendField` writes.
    @inlinable
    package mutating func field() throws(Failure) -> Data { try bytes(Int(try uint32())) }

    /// Every byte not read yet.
    @inlinable
    package mutating func rest() -> Data {
        // `remaining` bytes are always there: this read cannot fail.
        let start = offset
        offset = storage.count
        return storage.withUnsafeBytes { Data(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }
}

/// Big-endian integers in byte runs.
package enum BigEndian {
    /// `bytes` (at most 8) as one big-endian unsigned integer.
    @inlinable
    package static func integer(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
