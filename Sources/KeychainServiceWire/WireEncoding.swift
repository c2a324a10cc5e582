#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The byte form of ``WireValue``: a one-byte tag, then the value. Strings and data are
/// length-prefixed (4-byte big-endian), numbers 8 bytes big-endian, arrays and dictionaries a
/// 4-byte count then their elements (a dictionary's as a string key, then a value).
package enum WireEncoding {
    /// The tags, one per case of ``WireValue``; any other byte is refused.
    enum Tag: UInt8 {
        case string = 1, data = 2, bool = 3, integer = 4, double = 5, date = 6, array = 7, dictionary = 8
    }

    /// How deep arrays and dictionaries may nest: a SecItem result is at most an array of
    /// dictionaries of plain values; deeper input is refused before it can exhaust the stack.
    package static let maximumDepth = 4

    /// Appends `value` to `bytes`.
    package static func append(_ value: WireValue, to bytes: inout Data) {
        switch value {
        case .string(let text):
            bytes.append(Tag.string.rawValue)
            bytes.appendField(Data(text.utf8))
        case .data(let data):
            bytes.append(Tag.data.rawValue)
            bytes.appendField(data)
        case .bool(let flag):
            bytes.append(Tag.bool.rawValue)
            bytes.append(flag ? 1 : 0)
        case .integer(let number):
            bytes.append(Tag.integer.rawValue)
            bytes.appendBigEndian(UInt64(bitPattern: number))
        case .double(let number):
            bytes.append(Tag.double.rawValue)
            bytes.appendBigEndian(number.bitPattern)
        case .date(let seconds):
            bytes.append(Tag.date.rawValue)
            bytes.appendBigEndian(seconds.bitPattern)
        case .array(let elements):
            bytes.append(Tag.array.rawValue)
            bytes.appendBigEndian(UInt32(elements.count))
            for element in elements { append(element, to: &bytes) }
        case .dictionary(let entries):
            bytes.append(Tag.dictionary.rawValue)
            appendEntries(entries, to: &bytes)
        }
    }

    /// Appends a count, then each entry's key and value (a dictionary without its tag).
    package static func appendEntries(_ entries: [WireEntry], to bytes: inout Data) {
        bytes.appendBigEndian(UInt32(entries.count))
        for entry in entries {
            bytes.appendField(Data(entry.key.utf8))
            append(entry.value, to: &bytes)
        }
    }

    /// Appends a length-prefixed UTF-8 string.
    package static func appendString(_ text: String, to bytes: inout Data) {
        bytes.appendField(Data(text.utf8))
    }
}
