#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One value of the D-Bus type system, as carried in a message body or header field.
///
/// The basic types, arrays, structures, dictionary entries and variants are modelled; a Unix file
/// descriptor (`h`) is its index into the descriptors its message carries
/// (``DBusMessage/fileDescriptors``).
package indirect enum DBusValue: Equatable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// The element type's signature and the elements (never `y`: byte arrays are ``byteArray(_:)``).
    case array(elementSignature: String, [DBusValue])
    /// An array of bytes (`ay`), kept as one buffer: a message's bytes are never one value each.
    case byteArray(Data)
    case structure([DBusValue])
    case dictEntry(key: DBusValue, value: DBusValue)
    /// A value together with its own signature.
    case variant(DBusValue)
    /// A Unix file descriptor (`h`): its index among the descriptors the message carries.
    case unixFileDescriptor(UInt32)

    /// The signature of this value's type.
    package var signature: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .array(let element, _): return "a" + element
        case .byteArray: return "ay"
        case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
        case .dictEntry(let key, let value): return "{" + key.signature + value.signature + "}"
        case .variant: return "v"
        case .unixFileDescriptor: return "h"
        }
    }

    /// The text of a string or object path (also inside a variant); nil for other types.
    package var text: String? {
        switch self {
        case .string(let text), .objectPath(let text): return text
        case .variant(let inner): return inner.text
        default: return nil
        }
    }

    /// The value of a boolean (also inside a variant); nil for other types.
    package var bool: Bool? {
        switch self {
        case .boolean(let value): return value
        case .variant(let inner): return inner.bool
        default: return nil
        }
    }

    /// The value of an unsigned 32-bit integer; nil for other types.
    package var uint32: UInt32? {
        if case .uint32(let value) = self { return value }
        return nil
    }

    /// The texts of an array of strings or object paths; nil for other types.
    package var texts: [String]? {
        guard case .array(_, let elements) = self else { return nil }
        var out: [String] = []
        for element in elements {
            guard let text = element.text else { return nil }
            out.append(text)
        }
        return out
    }
}
