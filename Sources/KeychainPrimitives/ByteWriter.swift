#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes bytes and big-endian integers one after another into a buffer sized for them in advance
/// (item payloads, associated data, blind-index messages: the hot paths that compute their size
/// first and allocate once). Writing past the buffer's end is a bug in that size computation and
/// traps; nothing is ever written outside the buffer.
///
/// A struct with its own offset rather than nested functions capturing a `var`: a captured `var` is
/// boxed and every access to it checked for exclusivity at run time, several thousand instructions
/// per keychain lookup.
package struct ByteWriter {
    @usableFromInline let buffer: UnsafeMutableRawBufferPointer
    /// Bytes written so far.
    @inlinable package var offset: Int { written }
    @usableFromInline var written = 0

    /// A writer at the start of `buffer`.
    @inlinable
    package init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    /// Appends `bytes`.
    @inlinable
    package mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(bytes.count <= buffer.count - written, "ByteWriter: buffer too small")
        buffer.baseAddress.unsafelyUnwrapped.advanced(by: written).copyMemory(from: source, byteCount: bytes.count)
        written += bytes.count
    }

    /// Appends one byte.
    @inlinable
    package mutating func put(byte: UInt8) {
        precondition(written < buffer.count, "ByteWriter: buffer too small")
        buffer[written] = byte
        written += 1
    }

    /// Appends a 4-byte big-endian integer.
    @inlinable
    package mutating func put(bigEndian value: UInt32) { withUnsafeBytes(of: value.bigEndian) { put($0) } }

    /// Appends an 8-byte big-endian integer.
    @inlinable
    package mutating func put(bigEndian value: UInt64) { withUnsafeBytes(of: value.bigEndian) { put($0) } }

    /// Appends a length-prefixed field (4-byte big-endian length, then the bytes), as
    /// `Data.appendField` does and `ByteReader.field()` reads.
    @inlinable
    package mutating func putField(_ field: UnsafeRawBufferPointer) {
        put(bigEndian: UInt32(truncatingIfNeeded: field.count))
        put(field)
    }
}

/// The growing counterpart of ``ByteWriter``, for formats built without a size computed first.
extension Data {
    /// Appends a 2-byte big-endian integer.
    @inlinable
    package mutating func appendBigEndian(_ value: UInt16) { Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) } }

    /// Appends a 4-byte big-endian integer.
    @inlinable
    package mutating func appendBigEndian(_ value: UInt32) { Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) } }

    /// Appends an 8-byte big-endian integer.
    @inlinable
    package mutating func appendBigEndian(_ value: UInt64) { Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) } }

    /// Appends a length-prefixed field (4-byte big-endian length, then the bytes), so that
    /// concatenated fields cannot be re-split differently. `ByteReader.field()` reads it.
    @inlinable
    package mutating func appendField(_ field: Data) {
        appendBigEndian(UInt32(truncatingIfNeeded: field.count))
        append(field)
    }
}
