#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decompression of gzip (RFC 1952) members holding DEFLATE data (RFC 1951): KDBX payloads are
/// gzip-compressed by default, and Foundation on Linux has no decompressor. Bounded: output beyond
/// `maximumOutput` is an error (a small hostile file must not expand without limit).
package enum Inflate {
    /// Data that is not valid gzip/DEFLATE, or expands past the limit.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The decompressed bytes of a gzip member (its CRC and length checked).
    package static func gunzip(_ bytes: [UInt8], maximumOutput: Int) throws(Failure) -> [UInt8] {
        guard bytes.count >= 18, bytes[0] == 0x1f, bytes[1] == 0x8b, bytes[2] == 8 else { throw Failure(description: "not gzip data") }
        let flags = bytes[3]
        var offset = 10
        if flags & 0x04 != 0 {
            guard offset + 2 <= bytes.count else { throw Failure(description: "a truncated gzip header") }
            offset += 2 + (Int(bytes[offset]) | Int(bytes[offset + 1]) << 8)
        }
        for flag in [UInt8(0x08), 0x10] where flags & flag != 0 {
            while offset < bytes.count && bytes[offset] != 0 { offset += 1 }
            offset += 1
        }
        if flags & 0x02 != 0 { offset += 2 }
        guard offset <= bytes.count - 8 else { throw Failure(description: "a truncated gzip header") }
        var reader = BitReader(bytes: bytes, offset: offset)
        let output = try inflate(&reader, maximumOutput: maximumOutput)
        let trailer = reader.alignedByteOffset
        guard trailer + 8 <= bytes.count else { throw Failure(description: "a truncated gzip trailer") }
        let crc = UInt32(bytes[trailer]) | UInt32(bytes[trailer + 1]) << 8 | UInt32(bytes[trailer + 2]) << 16 | UInt32(bytes[trailer + 3]) << 24
        guard crc == crc32(output) else { throw Failure(description: "the gzip checksum does not match (the data is damaged)") }
        return output
    }

    private struct BitReader {
        let bytes: [UInt8]
        var offset: Int
        var bitBuffer: UInt32 = 0
        var bitCount = 0

        init(bytes: [UInt8], offset: Int) {
            self.bytes = bytes
            self.offset = offset
        }

        mutating func bits(_ count: Int) throws(Failure) -> Int {
            while bitCount < count {
                guard offset < bytes.count else { throw Failure(description: "DEFLATE data ends early") }
                bitBuffer |= UInt32(bytes[offset]) << UInt32(bitCount)
                offset += 1
                bitCount += 8
            }
            let value = Int(bitBuffer & ((1 << UInt32(count)) - 1))
            bitBuffer >>= UInt32(count)
            bitCount -= count
            return value
        }

        /// The first byte not yet consumed, after dropping the bits left of the current byte.
        var alignedByteOffset: Int { offset - bitCount / 8 }

        mutating func alignToByte() {
            bitBuffer = 0
            bitCount = 0
        }
    }

    /// A canonical Huffman code: symbol counts per length and the symbols in code order.
    private struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        init(lengths: [Int]) throws(Failure) {
            for length in lengths { counts[length] += 1 }
            counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<16 { offsets[length] = offsets[length - 1] + counts[length - 1] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }

        func decode(_ reader: inout BitReader) throws(Failure) -> Int {
            var code = 0, first = 0, index = 0
            for length in 1..<16 {
                code |= try reader.bits(1)
                let count = counts[length]
                if code - first < count { return symbols[index + code - first] }
                index += count
                first = (first + count) << 1
                code <<= 1
            }
            throw Failure(description: "an invalid DEFLATE code")
        }
    }

    private static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
                                       4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static func inflate(_ reader: inout BitReader, maximumOutput: Int) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        var isLast = false
        while !isLast {
            isLast = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0:
                let start = reader.alignedByteOffset
                reader.alignToByte()
                reader.offset = start
                guard start + 4 <= reader.bytes.count else { throw Failure(description: "DEFLATE data ends early") }
                let length = Int(reader.bytes[start]) | Int(reader.bytes[start + 1]) << 8
                let complement = Int(reader.bytes[start + 2]) | Int(reader.bytes[start + 3]) << 8
                guard length == ~complement & 0xFFFF else { throw Failure(description: "a damaged stored DEFLATE block") }
                guard start + 4 + length <= reader.bytes.count else { throw Failure(description: "DEFLATE data ends early") }
                guard output.count + length <= maximumOutput else { throw Failure(description: "the data expands beyond \(maximumOutput) bytes") }
                output += reader.bytes[(start + 4)..<(start + 4 + length)]
                reader.offset = start + 4 + length
            case 1:
                let literal = try Huffman(lengths: (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 })
                let distance = try Huffman(lengths: [Int](repeating: 5, count: 30))
                try inflateBlock(&reader, &output, literal, distance, maximumOutput: maximumOutput)
            case 2:
                let literalCount = try reader.bits(5) + 257
                let distanceCount = try reader.bits(5) + 1
                let codeCount = try reader.bits(4) + 4
                guard literalCount <= 286, distanceCount <= 30 else { throw Failure(description: "a damaged DEFLATE block header") }
                var codeLengths = [Int](repeating: 0, count: 19)
                for index in 0..<codeCount { codeLengths[[16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15][index]] = try reader.bits(3) }
                let codeLengthCode = try Huffman(lengths: codeLengths)
                var lengths: [Int] = []
                while lengths.count < literalCount + distanceCount {
                    let symbol = try codeLengthCode.decode(&reader)
                    switch symbol {
                    case 0...15: lengths.append(symbol)
                    case 16:
                        guard let last = lengths.last else { throw Failure(description: "a damaged DEFLATE code length") }
                        lengths += [Int](repeating: last, count: 3 + (try reader.bits(2)))
                    case 17: lengths += [Int](repeating: 0, count: 3 + (try reader.bits(3)))
                    default: lengths += [Int](repeating: 0, count: 11 + (try reader.bits(7)))
                    }
                }
                guard lengths.count == literalCount + distanceCount else { throw Failure(description: "a damaged DEFLATE code length") }
                let literal = try Huffman(lengths: Array(lengths[0..<literalCount]))
                let distance = try Huffman(lengths: Array(lengths[literalCount...]))
                try inflateBlock(&reader, &output, literal, distance, maximumOutput: maximumOutput)
            default:
                throw Failure(description: "a DEFLATE block of the reserved type")
            }
        }
        return output
    }

    private static func inflateBlock(_ reader: inout BitReader, _ output: inout [UInt8], _ literal: Huffman, _ distance: Huffman,
                                     maximumOutput: Int) throws(Failure) {
        while true {
            let symbol = try literal.decode(&reader)
            if symbol < 256 {
                guard output.count < maximumOutput else { throw Failure(description: "the data expands beyond \(maximumOutput) bytes") }
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let index = symbol - 257
                guard index < lengthBase.count else { throw Failure(description: "an invalid DEFLATE length") }
                let length = lengthBase[index] + (try reader.bits(lengthExtra[index]))
                let distanceSymbol = try distance.decode(&reader)
                guard distanceSymbol < distanceBase.count else { throw Failure(description: "an invalid DEFLATE distance") }
                let back = distanceBase[distanceSymbol] + (try reader.bits(distanceExtra[distanceSymbol]))
                guard back <= output.count else { throw Failure(description: "a DEFLATE distance before the start") }
                guard output.count + length <= maximumOutput else { throw Failure(description: "the data expands beyond \(maximumOutput) bytes") }
                let start = output.count - back
                for step in 0..<length { output.append(output[start + step]) }
            }
        }
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// CRC-32 (the gzip trailer's).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
