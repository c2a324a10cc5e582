import Foundation

/// Decodes an item payload (layout: `ItemPayload`) straight from the plaintext's bytes. Every
/// read hit decodes one; doing it through `ByteReader` copied each field into a `Data` first
/// (`subdata`, about 20 copies per item) and decoded names and text with Foundation's
/// `String(data:encoding:)`, 39,000 instructions per item (issue 11). Same checks, same errors.
enum ItemPayloadDecoder {
    static func decode(_ bytes: Data) throws(KeychainStoreError) -> ItemPayload {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(KeychainStoreError) -> ItemPayload in try decode(raw) }
        }
        return try result.get()
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) throws(KeychainStoreError) -> ItemPayload {
        var reader = RawByteReader(bytes)
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
                guard let name = text(try reader.bytes(nameLength)), !name.isEmpty
                else { throw .undecodable("an item payload (attribute name)") }
                let kind = try reader.byte()
                let length = Int(try reader.uint32())
                let decoded = try value(kind: kind, bytes: try reader.bytes(length))
                // One hash of the name: inserted, and refused if it was there already.
                guard attributes.updateValue(decoded, forKey: name) == nil else {
                    throw .undecodable("an item payload (attribute name)")
                }
            case UInt8(ascii: "D"):
                guard data == nil else { throw .undecodable("an item payload (two data records)") }
                data = Data(try reader.bytes(Int(try reader.uint32())))
            case UInt8(ascii: "C"):
                guard flags == nil else { throw .undecodable("an item payload (two access controls)") }
                flags = try reader.uint64()
            case UInt8(ascii: "B"):
                guard domainState == nil else { throw .undecodable("an item payload (two biometric domain states)") }
                let state = try reader.bytes(Int(try reader.byte()))
                guard state.count == ItemPayload.biometryDomainStateLength else {
                    throw .undecodable("an item payload (biometric domain state length)")
                }
                domainState = Data(state)
            default:
                throw .undecodable("an item payload (unknown record)")
            }
        }
        guard domainState == nil || flags != nil else {
            throw .undecodable("an item payload (a biometric domain state without access control)")
        }
        return ItemPayload(attributes: attributes, data: data, accessControlFlags: flags, biometryDomainState: domainState)
    }

    private static func value(kind: UInt8, bytes: UnsafeRawBufferPointer) throws(KeychainStoreError) -> AttributeValue {
        switch kind {
        case UInt8(ascii: "s"):
            guard let text = text(bytes) else { throw .undecodable("an item payload (text)") }
            return .string(text)
        case UInt8(ascii: "d"):
            return .data(Data(bytes))
        case UInt8(ascii: "n"):
            guard bytes.count == 8 else { throw .undecodable(bytes.count < 8 ? "a truncated record" : "an item payload (number)") }
            return .number(Int64(bitPattern: RawByteReader.bigEndian(bytes)))
        case UInt8(ascii: "t"):
            guard bytes.count == 8 else { throw .undecodable(bytes.count < 8 ? "a truncated record" : "an item payload (date)") }
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: RawByteReader.bigEndian(bytes))))
        default:
            throw .undecodable("an item payload (value kind)")
        }
    }

    /// Strict UTF-8, as `String(data:encoding: .utf8)` decodes it. Text that starts with a byte
    /// order mark goes through Foundation itself, so that whatever it does with the mark is kept.
    ///
    /// ASCII text (attribute names always, most values) is taken as it is: it is valid UTF-8, and
    /// `String(validating:as:)` is generic and unspecialised here, about 1,000 instructions a
    /// call, a tenth of a read hit for an item's dozen strings (issue 11).
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

/// `ByteReader` over borrowed bytes: runs are returned as slices of the buffer, not copies.
private struct RawByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws(KeychainStoreError) -> UInt8 {
        guard offset < bytes.count else { throw .undecodable("a truncated record") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func bytes(_ count: Int) throws(KeychainStoreError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= bytes.count - offset else { throw .undecodable("a truncated record") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func uint32() throws(KeychainStoreError) -> UInt32 {
        UInt32(truncatingIfNeeded: Self.bigEndian(try bytes(4)))
    }

    mutating func uint64() throws(KeychainStoreError) -> UInt64 {
        Self.bigEndian(try bytes(8))
    }

    /// The bytes as one big-endian unsigned integer (at most 8 bytes).
    static func bigEndian(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
