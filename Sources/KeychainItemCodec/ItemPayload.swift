import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// The plaintext of an item's encrypted payload: its attributes, its secret and its access
/// control, in a small length-prefixed binary form. Decoding is strict and bounds-checked: the
/// input has passed AES-GCM authentication, but the decoder is also a fuzzing target.
///
/// Layout (all integers big-endian):
/// `version:u8` then records `tag:u8 …` where
/// `A` = attribute (`nameLength:u8 name kind:u8 valueLength:u32 value`),
/// `D` = data (`length:u32 bytes`), `C` = access-control flags (`u64`),
/// `B` = the biometric domain state of a `.biometryCurrentSet` item (`length:u8` = 32, a SHA-256
/// digest; only with a `C` record), `P` = padding (`length:u32` zero bytes; last, only in a
/// sealed item: see ``paddedLength(of:)``). Payloads written before `B` or `P` existed decode
/// unchanged.
package struct ItemPayload: Equatable, Sendable {
    package var attributes: [String: AttributeValue]
    package var data: Data?
    package var accessControlFlags: UInt64?
    package var biometryDomainState: Data?

    /// The length of a biometric domain state (a SHA-256 digest).
    package static let biometryDomainStateLength = 32

    package init(attributes: [String: AttributeValue], data: Data?, accessControlFlags: UInt64?,
                 biometryDomainState: Data? = nil) {
        self.attributes = attributes
        self.data = data
        self.accessControlFlags = accessControlFlags
        self.biometryDomainState = biometryDomainState
    }

    package static let version: UInt8 = 1

    /// Encodes the payload; attribute order is sorted so equal payloads give equal bytes.
    ///
    /// Written into one buffer of the final size: appended piece by piece to a `Data`, this cost
    /// 50,000 instructions of every add, most of them in `Data`'s growth and exclusivity checks
    ///. The bytes are the same.
    ///
    /// With `padded` (an item sealed into the keychain file), a `P` record of zeros follows, so
    /// that the payload's length is a size bucket (``paddedLength(of:)``) and a stolen file does
    /// not show how long each secret is. The buffer is allocated at its final size either way.
    package func encoded(padded: Bool = false) -> Data {
        let names = attributes.keys.sorted()
        let unpadded = unpaddedLength
        var length = unpadded
        if padded { length = Self.paddedLength(of: unpadded) }
        var out = Data(count: length)  // zero-filled: the padding's bytes are already written
        out.withUnsafeMutableBytes { buffer in
            var writer = ByteWriter(buffer)
            writer.put(byte: Self.version)
            for name in names {
                guard let value = attributes[name] else { continue }
                writer.put(byte: UInt8(ascii: "A"))
                writer.put(byte: UInt8(truncatingIfNeeded: name.utf8.count))
                var name = name
                name.withUTF8 { writer.put(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0).prefix(255))) }
                Self.write(value, to: &writer)
            }
            if let data {
                writer.put(byte: UInt8(ascii: "D"))
                writer.put(bigEndian: UInt32(truncatingIfNeeded: data.count))
                data.withUnsafeBytes { writer.put($0) }
            }
            if let accessControlFlags {
                writer.put(byte: UInt8(ascii: "C"))
                writer.put(bigEndian: accessControlFlags)
                if let biometryDomainState {
                    writer.put(byte: UInt8(ascii: "B"))
                    writer.put(byte: UInt8(truncatingIfNeeded: biometryDomainState.count))
                    biometryDomainState.prefix(255).withUnsafeBytes { writer.put($0) }
                }
            }
            if padded {
                writer.put(byte: UInt8(ascii: "P"))
                writer.put(bigEndian: UInt32(truncatingIfNeeded: length - unpadded - Self.paddingRecordOverhead))
            }
        }
        return out
    }

    /// The length of the encoding without padding: what the caller stored.
    package var unpaddedLength: Int {
        var length = 1
        for (name, value) in attributes {
            length += 3 + min(name.utf8.count, 255) + 4 + Self.encodedLength(value)
        }
        if let data { length += 5 + data.count }
        if accessControlFlags != nil {
            length += 9
            if let biometryDomainState { length += 2 + min(biometryDomainState.count, 255) }
        }
        return length
    }

    /// A `P` record's tag and length.
    package static let paddingRecordOverhead = 5

    /// The length of a sealed payload whose records take `length` bytes, padding included: the
    /// smallest bucket that holds them and a `P` record — 256 bytes, then powers of two up to
    /// 64 KiB, then multiples of 64 KiB (so a large certificate grows by less than 64 KiB). The
    /// file then shows which bucket an item's attributes and secret fall in, not their lengths.
    package static func paddedLength(of length: Int) -> Int {
        let needed = length + paddingRecordOverhead
        let largeBucket = 64 * 1024
        guard needed <= largeBucket else { return (needed + largeBucket - 1) / largeBucket * largeBucket }
        var bucket = 256
        while bucket < needed { bucket *= 2 }
        return bucket
    }

    /// The length of a value's bytes in the encoding.
    private static func encodedLength(_ value: AttributeValue) -> Int {
        switch value {
        case .string(let text): return text.utf8.count
        case .data(let data): return data.count
        case .number, .date: return 8
        }
    }

    /// Writes a value's kind, length and bytes.
    private static func write(_ value: AttributeValue, to writer: inout ByteWriter) {
        switch value {
        case .string(let text):
            writer.put(byte: UInt8(ascii: "s"))
            writer.put(bigEndian: UInt32(truncatingIfNeeded: text.utf8.count))
            var text = text
            text.withUTF8 { writer.put(UnsafeRawBufferPointer($0)) }
        case .data(let data):
            writer.put(byte: UInt8(ascii: "d"))
            writer.put(bigEndian: UInt32(truncatingIfNeeded: data.count))
            data.withUnsafeBytes { writer.put($0) }
        case .number(let number):
            writer.put(byte: UInt8(ascii: "n"))
            writer.put(bigEndian: UInt32(8))
            writer.put(bigEndian: UInt64(bitPattern: number))
        case .date(let date):
            writer.put(byte: UInt8(ascii: "t"))
            writer.put(bigEndian: UInt32(8))
            writer.put(bigEndian: date.timeIntervalSinceReferenceDate.bitPattern)
        }
    }

    /// Decodes a payload, rejecting anything malformed (`ItemPayloadDecoder`).
    package init(decoding bytes: Data) throws(KeychainStoreError) {
        self = try ItemPayloadDecoder.decode(bytes)
    }
}
