import Foundation
import KeychainPrimitives
import Testing

private struct Truncated: Error, Equatable {}

@Suite("ByteReader and ByteWriter")
struct ByteReaderTests {
    @Test("integers and fields read back what the writers wrote, big-endian")
    func roundTrip() throws {
        var data = Data([0x07])
        data.appendBigEndian(UInt16(0x0102))
        data.appendBigEndian(UInt32(0x0304_0506))
        data.appendBigEndian(UInt64(0x0708_090A_0B0C_0D0E))
        data.appendField(Data("field".utf8))
        data.append(contentsOf: [0xAA, 0xBB])
        #expect(data.prefix(3) == Data([0x07, 0x01, 0x02]))
        var reader = ByteReader(data, truncated: Truncated())
        #expect(try reader.byte() == 0x07)
        #expect(try reader.uint16() == 0x0102)
        #expect(try reader.uint32() == 0x0304_0506)
        #expect(try reader.uint64() == 0x0708_090A_0B0C_0D0E)
        #expect(try reader.field() == Data("field".utf8))
        #expect(reader.remaining == 2)
        #expect(reader.rest() == Data([0xAA, 0xBB]))
        #expect(reader.isAtEnd)
    }

    @Test("the fixed-buffer writer lays out the same bytes as the growing one")
    func fixedWriterMatchesData() {
        var grown = Data([0x01])
        grown.appendBigEndian(UInt32(9))
        grown.appendBigEndian(UInt64.max)
        grown.appendField(Data([0xFE, 0xFF]))
        var fixed = Data(count: grown.count)
        let written = fixed.withUnsafeMutableBytes { buffer in
            var writer = ByteWriter(buffer)
            writer.put(byte: 0x01)
            writer.put(bigEndian: UInt32(9))
            writer.put(bigEndian: UInt64.max)
            [UInt8]([0xFE, 0xFF]).withUnsafeBytes { writer.putField($0) }
            return writer.offset
        }
        #expect(written == grown.count)
        #expect(fixed == grown)
    }

    @Test("a read past the end throws the caller's error and reads nothing")
    func truncation() throws {
        var reader = ByteReader(Data([0x00, 0x00, 0x01]), truncated: Truncated())
        #expect(throws: Truncated()) { try reader.uint32() }
        #expect(reader.remaining == 3, "a failed read must not move the reader")
        #expect(try reader.uint16() == 0)
        #expect(throws: Truncated()) { try reader.uint16() }
        #expect(try reader.byte() == 1)
        #expect(throws: Truncated()) { try reader.byte() }
    }

    @Test("hostile lengths: negative, larger than the input, a field claiming 4 GiB")
    func hostileLengths() throws {
        var reader = ByteReader(Data([0xFF, 0xFF, 0xFF, 0xFF, 0x00]), truncated: Truncated())
        #expect(throws: Truncated()) { try reader.bytes(-1) }
        #expect(throws: Truncated()) { try reader.bytes(Int.max) }
        #expect(throws: Truncated()) { try reader.field() }
        var lending = ByteReader(Data([1, 2]), truncated: Truncated())
        #expect(throws: Truncated()) { try lending.withBytes(3) { $0.count } }
        #expect(try lending.withBytes(2) { Array($0) } == [1, 2])
    }

    @Test("a slice of a larger Data is read from its own first byte")
    func slices() throws {
        let whole = Data([9, 9, 9, 0x00, 0x2A, 9])
        var reader = ByteReader(whole[3..<5], truncated: Truncated())
        #expect(try reader.uint16() == 42)
        #expect(reader.isAtEnd)
        var again = ByteReader(whole[3..<5], truncated: Truncated())
        #expect(try again.bytes(2) == Data([0x00, 0x2A]))
        var tail = ByteReader(whole[4...], truncated: Truncated())
        #expect(try tail.bytes(2).startIndex == 0)
    }
}
