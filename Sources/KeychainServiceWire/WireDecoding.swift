#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The strict reader of ``WireEncoding``'s bytes: an unknown tag, a count larger than the bytes
/// left, text that is not UTF-8, a repeated dictionary key, nesting deeper than
/// ``WireEncoding/maximumDepth`` or a boolean byte other than 0 or 1 is refused with
/// ``WireFailure/malformed(_:)``; nothing is guessed.
package struct WireDecoder {
    private var reader: ByteReader<WireFailure>

    /// A decoder at the first byte of `bytes`.
    package init(_ bytes: Data) {
        reader = ByteReader(bytes, truncated: .malformed("the message ends early"))
    }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { reader.isAtEnd }

    /// Refuses bytes left over after the message.
    package func requireEnd() throws(WireFailure) {
        guard reader.isAtEnd else { throw .malformed("\(reader.remaining) bytes after the end of the message") }
    }

    /// One byte.
    package mutating func byte() throws(WireFailure) -> UInt8 { try reader.byte() }

    /// A 4-byte big-endian integer.
    package mutating func uint32() throws(WireFailure) -> UInt32 { try reader.uint32() }

    /// A length-prefixed UTF-8 string.
    package mutating func string() throws(WireFailure) -> String {
        let bytes = try reader.field()
        guard let text = String(validatingUTF8Bytes: bytes) else { throw .malformed("a string is not UTF-8") }
        return text
    }

    /// A count of elements, each at least `minimumElementBytes` long, that the bytes left can hold.
    private mutating func count(minimumElementBytes: Int) throws(WireFailure) -> Int {
        let count = Int(try reader.uint32())
        guard count <= reader.remaining / minimumElementBytes else { throw .malformed("a count of \(count) exceeds the bytes left") }
        return count
    }

    /// A tagged value nested `depth` levels deep.
    package mutating func value(depth: Int = 0) throws(WireFailure) -> WireValue {
        guard depth <= WireEncoding.maximumDepth else { throw .malformed("values nest deeper than \(WireEncoding.maximumDepth) levels") }
        let tagByte = try reader.byte()
        guard let tag = WireEncoding.Tag(rawValue: tagByte) else { throw .malformed("unknown value tag \(tagByte)") }
        switch tag {
        case .string: return .string(try string())
        case .data: return .data(try reader.field())
        case .bool:
            switch try reader.byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            case let other: throw .malformed("a boolean byte is \(other), not 0 or 1")
            }
        case .integer: return .integer(Int64(bitPattern: try reader.uint64()))
        case .double: return .double(Double(bitPattern: try reader.uint64()))
        case .date: return .date(Double(bitPattern: try reader.uint64()))
        case .array:
            let count = try count(minimumElementBytes: 2)
            var elements: [WireValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try value(depth: depth + 1)) }
            return .array(elements)
        case .dictionary:
            return .dictionary(try entries(depth: depth + 1))
        }
    }

    /// A count, then that many keys and values, no key twice.
    package mutating func entries(depth: Int = 0) throws(WireFailure) -> [WireEntry] {
        let count = try count(minimumElementBytes: 6)
        var entries: [WireEntry] = []
        var seen = Set<String>()
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let key = try string()
            guard seen.insert(key).inserted else { throw .malformed("a dictionary repeats a key") }
            entries.append(WireEntry(key: key, value: try value(depth: depth)))
        }
        return entries
    }
}

extension String {
    /// `bytes` as a string if they are valid UTF-8 (no replacement characters), else nil.
    init?(validatingUTF8Bytes bytes: Data) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break decoding
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}
