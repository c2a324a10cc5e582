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

/// Unmarshals D-Bus values, guided by their signatures, in the byte order a message declares.
/// Every length is checked against the bytes present, nesting is bounded, and so is the number of
/// values one message may decode to (``maximumValues``); byte arrays (`ay`) become one `Data`
/// each, never a value per byte. A hostile or broken peer gets a `protocolViolation` instead of a
/// crash or an allocation out of proportion to the bytes it sent.
struct DBusReader {
    private let bytes: [UInt8]
    private let littleEndian: Bool
    /// The position of the next byte to read.
    private(set) var offset: Int
    /// Nested containers and variants allowed below the current value.
    private static let maximumDepth = 64
    /// Values (other than the bytes of a byte array) one reader decodes at most: each costs a heap
    /// allocation of tens of bytes, so a 16 MiB message of empty strings or one-byte structures
    /// would otherwise cost hundreds of megabytes. No Secret Service or fprintd call comes near it.
    static let maximumValues = 1 << 16
    /// Values still allowed.
    private var valuesLeft = maximumValues

    /// A reader of `bytes` from `offset` (alignment counts from the start of `bytes`).
    init(_ bytes: [UInt8], littleEndian: Bool, offset: Int = 0) {
        self.bytes = bytes
        self.littleEndian = littleEndian
        self.offset = offset
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset >= bytes.count }

    /// Reads the values of a whole signature (a message body).
    mutating func readAll(signature: String) throws(DBusFailure) -> [DBusValue] {
        var values: [DBusValue] = []
        for type in try DBusSignature.completeTypes(of: signature) {
            values.append(try read(type: Array(type.utf8)[...], depth: 0))
        }
        return values
    }

    /// Reads one value of the single complete type `type`.
    mutating func read(type: ArraySlice<UInt8>, depth: Int) throws(DBusFailure) -> DBusValue {
        guard depth <= Self.maximumDepth else { throw .protocolViolation("values nested too deeply") }
        guard let code = type.first else { throw .protocolViolation("an empty type") }
        valuesLeft -= 1
        guard valuesLeft >= 0 else { throw .protocolViolation("a message of more than \(Self.maximumValues) values") }
        switch code {
        case UInt8(ascii: "y"): return .byte(try byte())
        case UInt8(ascii: "b"):
            let raw: UInt32 = try integer()
            guard raw <= 1 else { throw .protocolViolation("a boolean other than 0 or 1") }
            return .boolean(raw == 1)
        case UInt8(ascii: "n"): return .int16(Int16(bitPattern: try integer()))
        case UInt8(ascii: "q"): return .uint16(try integer())
        case UInt8(ascii: "i"): return .int32(Int32(bitPattern: try integer()))
        case UInt8(ascii: "u"): return .uint32(try integer())
        case UInt8(ascii: "h"): return .unixFileDescriptor(try integer())
        case UInt8(ascii: "x"): return .int64(Int64(bitPattern: try integer()))
        case UInt8(ascii: "t"): return .uint64(try integer())
        case UInt8(ascii: "d"): return .double(Double(bitPattern: try integer()))
        case UInt8(ascii: "s"): return .string(try string())
        case UInt8(ascii: "o"): return .objectPath(try string())
        case UInt8(ascii: "g"): return .signature(try signature())
        case UInt8(ascii: "v"):
            let inner = Array(try signature().utf8)[...]
            // One complete type, walked on its bytes (no string per type: every header field is a variant).
            guard !inner.isEmpty, try DBusSignature.endOfCompleteType(inner, from: inner.startIndex) == inner.endIndex else {
                throw .protocolViolation("a variant whose signature is not one type")
            }
            return .variant(try read(type: inner, depth: depth + 1))
        case UInt8(ascii: "a"):
            return try array(elementType: type.dropFirst(), depth: depth)
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            try align(8)
            // The fields' types, walked on the signature's bytes (no string per field).
            let inside = type.dropFirst().dropLast()
            guard inside.count <= 255 else { throw .protocolViolation("a signature longer than 255 bytes") }
            var fields: [DBusValue] = []
            var start = inside.startIndex
            while start < inside.endIndex {
                let end = try DBusSignature.endOfCompleteType(inside, from: start)
                fields.append(try read(type: inside[start..<end], depth: depth + 1))
                start = end
            }
            if code == UInt8(ascii: "{") {
                guard fields.count == 2 else { throw .protocolViolation("a dictionary entry without two fields") }
                return .dictEntry(key: fields[0], value: fields[1])
            }
            return .structure(fields)
        default:
            throw .protocolViolation("a type this client does not read")
        }
    }

    private mutating func array(elementType: ArraySlice<UInt8>, depth: Int) throws(DBusFailure) -> DBusValue {
        let length = Int(try integer() as UInt32)
        guard length <= 1 << 26 else { throw .protocolViolation("an array longer than 64 MiB") }
        guard let first = elementType.first else { throw .protocolViolation("an array without an element type") }
        try align(DBusSignature.alignment(of: first))
        let end = offset + length
        guard end <= bytes.count else { throw .protocolViolation("an array past the end of the message") }
        if first == UInt8(ascii: "y") {
            defer { offset = end }
            return .byteArray(Data(bytes[offset..<end]))
        }
        var elements: [DBusValue] = []
        while offset < end {
            elements.append(try read(type: elementType, depth: depth + 1))
        }
        guard offset == end else { throw .protocolViolation("an array whose elements overrun its length") }
        return .array(elementSignature: String(decoding: elementType, as: UTF8.self), elements)
    }

    /// Skips padding up to the next multiple of `alignment`; padding must be zero.
    mutating func align(_ alignment: Int) throws(DBusFailure) {
        let padding = (alignment - offset % alignment) % alignment
        for byte in try take(padding) where byte != 0 {
            throw .protocolViolation("non-zero padding")
        }
    }

    /// Reads an unsigned integer aligned to its size.
    mutating func integer<T: FixedWidthInteger & UnsignedInteger>() throws(DBusFailure) -> T {
        let size = MemoryLayout<T>.size
        try align(size)
        let raw = try take(size)
        var value: T = 0
        for (index, byte) in raw.enumerated() {
            let shift = littleEndian ? index : size - 1 - index
            value |= T(byte) << (8 * shift)
        }
        return value
    }

    private mutating func string() throws(DBusFailure) -> String {
        let length = Int(try integer() as UInt32)
        return try text(length: length)
    }

    private mutating func signature() throws(DBusFailure) -> String {
        let length = Int(try byte())
        return try text(length: length)
    }

    private mutating func text(length: Int) throws(DBusFailure) -> String {
        let raw = try take(length)
        guard try byte() == 0 else { throw .protocolViolation("a string without its terminating zero") }
        // Checked through a buffer pointer (memchr, the standard library's validation): element by
        // element through the slice costs hundreds of nanoseconds a byte unoptimized, seconds for
        // a string of a few MiB that any client may send.
        let text: String? = raw.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return "" }
            guard memchr(base, 0, buffer.count) == nil else { return nil }
            return String(validating: buffer, as: UTF8.self)
        }
        guard let text else { throw .protocolViolation("a string that is not valid UTF-8") }
        return text
    }

    private mutating func byte() throws(DBusFailure) -> UInt8 {
        guard let byte = try take(1).first else { throw .protocolViolation("a truncated message") }
        return byte
    }

    private mutating func take(_ count: Int) throws(DBusFailure) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - offset else { throw .protocolViolation("a truncated message") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }
}
