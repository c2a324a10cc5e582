/// Writes byte runs one after another into a buffer sized for them in advance (associated data,
/// blind-index messages). A struct with its own offset, instead of nested functions capturing a
/// `var`: a captured `var` is boxed and each access to it is checked for
/// exclusivity at run time, which cost several thousand instructions per lookup (issue 11).
struct ByteCursor {
    private let buffer: UnsafeMutableRawBufferPointer
    /// Bytes written so far.
    private(set) var offset = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    /// Appends `bytes`; writing past the buffer's end is a programming error and traps.
    mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        precondition(bytes.count <= buffer.count - offset, "ByteCursor overflow")
        buffer.baseAddress.unsafelyUnwrapped.advanced(by: offset).copyMemory(from: source, byteCount: bytes.count)
        offset += bytes.count
    }

    /// Appends a 4-byte big-endian integer.
    mutating func put(bigEndian value: UInt32) {
        precondition(4 <= buffer.count - offset, "ByteCursor overflow")
        buffer.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
        offset += 4
    }

    /// Appends one byte.
    mutating func put(byte: UInt8) {
        precondition(1 <= buffer.count - offset, "ByteCursor overflow")
        buffer.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
        offset += 1
    }
}

extension ByteCursor {
    /// Appends a length-prefixed field (4-byte big-endian length, then the bytes), as
    /// `Data.appendField` does.
    mutating func putField(_ field: UnsafeRawBufferPointer) {
        put(bigEndian: UInt32(truncatingIfNeeded: field.count))
        put(field)
    }
}
