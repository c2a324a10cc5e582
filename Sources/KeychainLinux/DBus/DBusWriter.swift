#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Marshals D-Bus values in little-endian byte order, aligning each value to its type's boundary
/// relative to the start of the buffer (a message's header and its body each start 8-aligned).
struct DBusWriter {
    /// The marshalled bytes.
    private(set) var bytes: [UInt8] = []

    /// Appends zero bytes up to the next multiple of `alignment`.
    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    /// Marshals `value`.
    mutating func write(_ value: DBusValue) {
        switch value {
        case .byte(let byte): bytes.append(byte)
        case .boolean(let flag): writeInteger(UInt32(flag ? 1 : 0))
        case .int16(let number): writeInteger(UInt16(bitPattern: number))
        case .uint16(let number): writeInteger(number)
        case .int32(let number): writeInteger(UInt32(bitPattern: number))
        case .uint32(let number), .unixFileDescriptor(let number): writeInteger(number)
        case .int64(let number): writeInteger(UInt64(bitPattern: number))
        case .uint64(let number): writeInteger(number)
        case .double(let number): writeInteger(number.bitPattern)
        case .string(let text), .objectPath(let text):
            let utf8 = Array(text.utf8)
            writeInteger(UInt32(truncatingIfNeeded: utf8.count))
            bytes.append(contentsOf: utf8)
            bytes.append(0)
        case .signature(let text):
            writeSignature(text)
        case .array(let elementSignature, let elements):
            writeArray(elementSignature: elementSignature, elements: elements)
        case .byteArray(let data):
            writeInteger(UInt32(truncatingIfNeeded: data.count))
            bytes.append(contentsOf: data)
        case .structure(let fields):
            pad(to: 8)
            for field in fields { write(field) }
        case .dictEntry(let key, let entryValue):
            pad(to: 8)
            write(key)
            write(entryValue)
        case .variant(let inner):
            writeSignature(inner.signature)
            write(inner)
        }
    }

    private mutating func writeSignature(_ text: String) {
        let utf8 = Array(text.utf8)
        bytes.append(UInt8(truncatingIfNeeded: utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    private mutating func writeArray(elementSignature: String, elements: [DBusValue]) {
        writeInteger(UInt32(0))
        let lengthOffset = bytes.count - 4
        pad(to: DBusSignature.alignment(of: elementSignature.utf8.first ?? UInt8(ascii: "y")))
        let start = bytes.count
        for element in elements { write(element) }
        let length = UInt32(truncatingIfNeeded: bytes.count - start)
        for shift in 0..<4 { bytes[lengthOffset + shift] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(shift))) }
    }

    /// Appends an unsigned integer, aligned to its size, least significant byte first.
    mutating func writeInteger<T: FixedWidthInteger & UnsignedInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        pad(to: size)
        for index in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
