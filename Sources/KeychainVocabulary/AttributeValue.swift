#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The value of one item attribute, typed as the caller gave it.
///
/// Blob attributes (account, service, label, …) keep the caller's choice of `String` or `Data`
/// and are returned the same way, but compare by their bytes, so `"x"` and `Data("x".utf8)` are
/// the same key — as on Apple platforms.
package enum AttributeValue: Sendable, Hashable {
    /// Text.
    case string(String)
    /// Bytes.
    case data(Data)
    /// An integer (numbers, booleans stored as 0/1, FourCC protocol codes given as numbers).
    case number(Int64)
    /// A point in time.
    case date(Date)
}

extension AttributeValue: CustomStringConvertible {
    /// Names the kind only: attribute values may be secret-adjacent and never reach logs.
    package var description: String {
        switch self {
        case .string: return "AttributeValue.string(<redacted>)"
        case .data(let data): return "AttributeValue.data(\(data.count) bytes)"
        case .number: return "AttributeValue.number(<redacted>)"
        case .date: return "AttributeValue.date(<redacted>)"
        }
    }
}

extension AttributeValue: CustomReflectable {
    /// The kind of value and, for bytes, their count; never the value.
    package var customMirror: Mirror {
        let kind: String
        switch self {
        case .string: kind = "string"
        case .data(let data): kind = "data (\(data.count) bytes)"
        case .number: kind = "number"
        case .date: kind = "date"
        }
        return Mirror(self, children: ["redacted": kind], displayStyle: .enum)
    }
}

// Each kind's rules: defaults, canonical bytes, matching. The store's uniqueness and blind indexes
// and sync's item names are built on them.
extension AttributeKind {
    /// The value a primary-key attribute takes when the caller leaves it out.
    package var defaultValue: AttributeValue {
        switch self {
        case .blob: return .data(Data())
        case .string: return .string("")
        case .number: return .number(0)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        }
    }

    /// The bytes that decide equality and uniqueness for this kind, tagged so that values of
    /// different meaning never collide.
    package func canonicalBytes(of value: AttributeValue) -> Data {
        switch (self, value) {
        case (.blob, .string(let text)), (.string, .string(let text)):
            return Data(text.utf8)
        case (.blob, .data(let data)), (.string, .data(let data)):
            return data
        case (.blob, .number(let number)), (.string, .number(let number)):
            return Data(String(number).utf8)
        case (.number, .number(let number)):
            return Data("#\(number)".utf8)
        case (.number, .string(let text)):
            if let number = Int64(text), String(number) == text { return Data("#\(number)".utf8) }
            return Data("$\(text)".utf8)
        case (.number, .data(let data)):
            return Data("$".utf8) + data
        case (_, .date(let date)):
            return Data("@\(date.timeIntervalSinceReferenceDate.bitPattern)".utf8)
        case (.date, .string(let text)):
            return Data("$\(text)".utf8)
        case (.date, .data(let data)):
            return Data("$".utf8) + data
        case (.date, .number(let number)):
            return Data("#\(number)".utf8)
        }
    }

    /// Calls `body` with the canonical bytes of `value` (`canonicalBytes(of:)`), without copying
    /// them into a new `Data` for the common text and data values: a lookup computes three or four
    /// blind indexes, and each copy was an allocation.
    package func withCanonicalBytes<R>(of value: AttributeValue, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch (self, value) {
        case (.blob, .string(let text)), (.string, .string(let text)):
            var text = text
            return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        case (.blob, .data(let data)), (.string, .data(let data)):
            return data.withUnsafeBytes(body)
        default:
            return canonicalBytes(of: value).withUnsafeBytes(body)
        }
    }

    /// Whether two values are equal under this kind's rules (equal canonical bytes).
    package func matches(_ lhs: AttributeValue, _ rhs: AttributeValue) -> Bool {
        switch (self, lhs, rhs) {
        case (.blob, .string(let left), .string(let right)), (.string, .string(let left), .string(let right)):
            // Byte equality, as the canonical bytes compare (not `==`, which is Unicode equivalence).
            return left.utf8.elementsEqual(right.utf8)
        case (.blob, .data(let left), .data(let right)), (.string, .data(let left), .data(let right)):
            return left == right
        case (.number, .number(let left), .number(let right)):
            return left == right  // "#" and the decimal digits: equal exactly when the numbers are
        default:
            return canonicalBytes(of: lhs) == canonicalBytes(of: rhs)
        }
    }
}
