#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
import KeychainVocabulary

/// Decodes an item payload (layout: `ItemPayload`) straight from the plaintext's bytes. Every
/// read hit decodes one, so names and values are read where they lie (`PayloadBytes.take`):
/// copying each field into a `Data` first (about 20 copies per item) and decoding names and text
/// with Foundation's `String(data:encoding:)` cost 39,000 instructions per item.
///
/// The plaintext is lent once for the whole payload and read through `PayloadBytes`: a
/// `ByteReader` over the `Data` asked FoundationEssentials for its bytes at every field (a call
/// into the library and a closure each, not inlined across it), 17,700 instructions a read hit.
enum ItemPayloadDecoder {
    static func decode(_ bytes: Data) throws(KeychainStoreError) -> ItemPayload {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(KeychainStoreError) -> ItemPayload in
                var reader = PayloadBytes(buffer: buffer)
                return try decode(&reader)
            }
        }.get()
    }

    private static func decode(_ reader: inout PayloadBytes) throws(KeychainStoreError) -> ItemPayload {
        guard try reader.byte() == ItemPayload.version else { throw .undecodable("an item payload of an unknown version") }
        var attributes: [String: AttributeValue] = [:]
        attributes.reserveCapacity(12)  // an item has 6–12 attributes: one allocation instead of one per doubling
        var data: Data?
        var flags: UInt64?
        var domainState: Data?
        while !reader.isAtEnd {
            switch try reader.byte() {
            case UInt8(ascii: "A"):
                let nameLength = Int(try reader.byte())
                guard let name = text(try reader.take(nameLength)), !name.isEmpty
                else { throw .undecodable("an item payload (attribute name)") }
                let kind = try reader.byte()
                let length = Int(try reader.uint32())
                let decoded = try value(kind: kind, bytes: try reader.take(length)).get()
                // One hash of the name: inserted, and refused if it was there already.
                guard attributes.updateValue(decoded, forKey: name) == nil else {
                    throw .undecodable("an item payload (attribute name)")
                }
            case UInt8(ascii: "D"):
                guard data == nil else { throw .undecodable("an item payload (two data records)") }
                data = Data(try reader.take(Int(try reader.uint32())))
            case UInt8(ascii: "C"):
                guard flags == nil else { throw .undecodable("an item payload (two access controls)") }
                flags = try reader.uint64()
            case UInt8(ascii: "B"):
                guard domainState == nil else { throw .undecodable("an item payload (two biometric domain states)") }
                let state = Data(try reader.take(Int(try reader.byte())))
                guard state.count == ItemPayload.biometryDomainStateLength else {
                    throw .undecodable("an item payload (biometric domain state length)")
                }
                domainState = state
            case UInt8(ascii: "P"):
                // Padding: zeros up to a size bucket, last of all (anything else there is not ours).
                let padding = Int(try reader.uint32())
                let zeros = try reader.take(padding).allSatisfy { $0 == 0 }
                guard zeros, reader.isAtEnd else { throw .undecodable("an item payload (padding)") }
            default:
                throw .undecodable("an item payload (unknown record)")
            }
        }
        guard domainState == nil || flags != nil else {
            throw .undecodable("an item payload (a biometric domain state without access control)")
        }
        return ItemPayload(attributes: attributes, data: data, accessControlFlags: flags, biometryDomainState: domainState)
    }

    /// The value of one attribute, decoded from the bytes where they lie.
    private static func value(kind: UInt8, bytes: UnsafeRawBufferPointer) -> Result<AttributeValue, KeychainStoreError> {
        switch kind {
        case UInt8(ascii: "s"):
            guard let text = text(bytes) else { return .failure(.undecodable("an item payload (text)")) }
            return .success(.string(text))
        case UInt8(ascii: "d"):
            return .success(.data(Data(bytes)))
        case UInt8(ascii: "n"):
            guard bytes.count == 8 else { return .failure(.undecodable(bytes.count < 8 ? "a truncated record" : "an item payload (number)")) }
            return .success(.number(Int64(bitPattern: BigEndian.integer(bytes))))
        case UInt8(ascii: "t"):
            guard bytes.count == 8 else { return .failure(.undecodable(bytes.count < 8 ? "a truncated record" : "an item payload (date)")) }
            return .success(.date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: BigEndian.integer(bytes)))))
        default:
            return .failure(.undecodable("an item payload (value kind)"))
        }
    }

    /// Strict UTF-8, as `String(data:encoding: .utf8)` decodes it. Text that starts with a byte
    /// order mark goes through Foundation itself, so that whatever it does with the mark is kept.
    ///
    /// ASCII text (attribute names always, most values) is taken as it is: it is valid UTF-8, and
    /// `String(validating:as:)` is generic and unspecialised here, about 1,000 instructions a
    /// call, a tenth of a read hit for an item's dozen strings.
    private static func text(_ bytes: UnsafeRawBufferPointer) -> String? {
        let units = bytes.bindMemory(to: UInt8.self)
        var isASCII = true
        for unit in units where unit >= 0x80 {
            isASCII = false
            break
        }
        if isASCII { return String(decoding: units, as: UTF8.self) }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            return String(data: Data(bytes), encoding: .utf8)
        }
        return String(validating: units, as: UTF8.self)
    }
}

/// A payload's bytes, read in place while `Data.withUnsafeBytes` lends them: the reads of
/// `ByteReader(record:)` (big-endian integers, runs of bytes), with its error for a read past the
/// end, on the lent buffer.
private struct PayloadBytes {
    let buffer: UnsafeRawBufferPointer
    /// Bytes read so far.
    private var offset = 0

    init(buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == buffer.count }

    /// The next `count` bytes, valid while the buffer is lent.
    mutating func take(_ count: Int) throws(KeychainStoreError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= buffer.count - offset else { throw .undecodable("a truncated record") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
    }

    /// The next byte.
    mutating func byte() throws(KeychainStoreError) -> UInt8 { try take(1)[0] }

    /// A 4-byte big-endian integer.
    mutating func uint32() throws(KeychainStoreError) -> UInt32 { UInt32(truncatingIfNeeded: BigEndian.integer(try take(4))) }

    /// An 8-byte big-endian integer.
    mutating func uint64() throws(KeychainStoreError) -> UInt64 { BigEndian.integer(try take(8)) }
}
