import Foundation

/// The value of one item attribute, typed as the caller gave it.
///
/// Blob attributes (account, service, label, …) keep the caller's choice of `String` or `Data`
/// and are returned the same way, but compare by their bytes, so `"x"` and `Data("x".utf8)` are
/// the same key — as on Apple platforms.
public enum AttributeValue: Sendable, Hashable {
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
    public var description: String {
        switch self {
        case .string: return "AttributeValue.string(<redacted>)"
        case .data(let data): return "AttributeValue.data(\(data.count) bytes)"
        case .number: return "AttributeValue.number(<redacted>)"
        case .date: return "AttributeValue.date(<redacted>)"
        }
    }
}

/// How an attribute's value is interpreted, compared and defaulted (Apple's schema kinds).
public enum AttributeKind: Sendable {
    /// Bytes given as String or Data, type preserved, compared by bytes; default empty.
    case blob
    /// Text; Data is decoded as UTF-8; default empty.
    case string
    /// Integer; a numeric string becomes a number, any other string stays a string; default 0.
    case number
    /// A date; default the reference date.
    case date

    /// The value a primary-key attribute takes when the caller leaves it out.
    var defaultValue: AttributeValue {
        switch self {
        case .blob: return .data(Data())
        case .string: return .string("")
        case .number: return .number(0)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        }
    }

    /// The bytes that decide equality and uniqueness for this kind, tagged so that values of
    /// different meaning never collide.
    func canonicalBytes(of value: AttributeValue) -> Data {
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

    /// Whether two values are equal under this kind's rules.
    func matches(_ lhs: AttributeValue, _ rhs: AttributeValue) -> Bool {
        canonicalBytes(of: lhs) == canonicalBytes(of: rhs)
    }
}
