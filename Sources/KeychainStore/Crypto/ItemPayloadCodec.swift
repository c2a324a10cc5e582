import Foundation

/// The plaintext of an item's encrypted payload: its attributes, its secret and its access
/// control, in a small length-prefixed binary form. Decoding is strict and bounds-checked: the
/// input has passed AES-GCM authentication, but the decoder is also a fuzzing target.
///
/// Layout (all integers big-endian):
/// `version:u8` then records `tag:u8 …` where
/// `A` = attribute (`nameLength:u8 name kind:u8 valueLength:u32 value`),
/// `D` = data (`length:u32 bytes`), `C` = access-control flags (`u64`),
/// `B` = the biometric domain state of a `.biometryCurrentSet` item (`length:u8` = 32, a SHA-256
/// digest; only with a `C` record). Payloads written before `B` existed decode unchanged.
package struct ItemPayload: Equatable, Sendable {
    package var attributes: [String: AttributeValue]
    package var data: Data?
    package var accessControlFlags: UInt64?
    package var biometryDomainState: Data?

    /// The length of a biometric domain state (a SHA-256 digest).
    static let biometryDomainStateLength = 32

    package init(attributes: [String: AttributeValue], data: Data?, accessControlFlags: UInt64?,
                 biometryDomainState: Data? = nil) {
        self.attributes = attributes
        self.data = data
        self.accessControlFlags = accessControlFlags
        self.biometryDomainState = biometryDomainState
    }

    static let version: UInt8 = 1

    /// Encodes the payload; attribute order is sorted so equal payloads give equal bytes.
    package func encoded() -> Data {
        var out = Data([Self.version])
        for name in attributes.keys.sorted() {
            guard let value = attributes[name] else { continue }
            let nameBytes = Data(name.utf8)
            out.append(UInt8(ascii: "A"))
            out.append(UInt8(truncatingIfNeeded: nameBytes.count))
            out.append(nameBytes.prefix(255))
            let (kind, bytes) = Self.encode(value)
            out.append(kind)
            out.appendBigEndian(UInt32(truncatingIfNeeded: bytes.count))
            out.append(bytes)
        }
        if let data {
            out.append(UInt8(ascii: "D"))
            out.appendBigEndian(UInt32(truncatingIfNeeded: data.count))
            out.append(data)
        }
        if let accessControlFlags {
            out.append(UInt8(ascii: "C"))
            out.appendBigEndian(accessControlFlags)
            if let biometryDomainState {
                out.append(UInt8(ascii: "B"))
                out.append(UInt8(truncatingIfNeeded: biometryDomainState.count))
                out.append(biometryDomainState.prefix(255))
            }
        }
        return out
    }

    /// Decodes a payload, rejecting anything malformed (`ItemPayloadDecoder`).
    package init(decoding bytes: Data) throws(KeychainStoreError) {
        self = try ItemPayloadDecoder.decode(bytes)
    }

    private static func encode(_ value: AttributeValue) -> (UInt8, Data) {
        switch value {
        case .string(let text): return (UInt8(ascii: "s"), Data(text.utf8))
        case .data(let data): return (UInt8(ascii: "d"), data)
        case .number(let number):
            var out = Data()
            out.appendBigEndian(UInt64(bitPattern: number))
            return (UInt8(ascii: "n"), out)
        case .date(let date):
            var out = Data()
            out.appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern)
            return (UInt8(ascii: "t"), out)
        }
    }
}

/// Reads big-endian integers and byte runs from a buffer, failing instead of reading past its end.
struct ByteReader {
    private let bytes: Data
    private var offset: Int

    init(_ bytes: Data) {
        self.bytes = Data(bytes)  // rebase indices to zero
        self.offset = 0
    }

    var isAtEnd: Bool { offset == bytes.count }

    /// Bytes not read yet.
    var remaining: Int { bytes.count - offset }

    mutating func byte() throws(KeychainStoreError) -> UInt8 {
        guard offset < bytes.count else { throw .undecodable("a truncated record") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func bytes(_ count: Int) throws(KeychainStoreError) -> Data {
        guard count >= 0, count <= bytes.count - offset else { throw .undecodable("a truncated record") }
        defer { offset += count }
        return bytes.subdata(in: offset..<offset + count)
    }

    mutating func uint32() throws(KeychainStoreError) -> UInt32 {
        try bytes(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64() throws(KeychainStoreError) -> UInt64 {
        try bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}

extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    mutating func appendBigEndian(_ value: UInt64) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    /// Appends a length-prefixed field, so that concatenated fields cannot be re-split differently.
    mutating func appendField(_ field: Data) {
        appendBigEndian(UInt32(truncatingIfNeeded: field.count))
        append(field)
    }
}
