import Foundation

/// A value a SecItem dictionary or result may carry across the service's socket: a closed set of
/// plain types. Objects (`SecAccessControl`, `SecKey`, `LAContext`, `SecKeychain`) have no wire
/// form, so a request that holds one never leaves the client.
package indirect enum WireValue: Equatable, Sendable {
    case string(String)
    case data(Data)
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    /// Seconds since 2001-01-01 00:00 UTC (`Date.timeIntervalSinceReferenceDate`).
    case date(Double)
    case array([WireValue])
    /// Keys in the order sent; the decoder refuses a repeated key.
    case dictionary([WireEntry])

    /// The wire form of a Swift value as the SecItem layer holds them (`String`, `Data`, `Bool`,
    /// `NSNumber`, `Date`, arrays and string-keyed dictionaries of these), or nil for anything else.
    package init?(_ value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case let data as Data: self = .data(data)
        case let flag as Bool where type(of: value) == Bool.self: self = .bool(flag)
        case let date as Date: self = .date(date.timeIntervalSinceReferenceDate)
        case let number as NSNumber:
            let kind = String(cString: number.objCType)
            if kind == "d" || kind == "f" { self = .double(number.doubleValue) } else { self = .integer(number.int64Value) }
        case let number as Int: self = .integer(Int64(number))
        case let number as Double: self = .double(number)
        case let dictionary as [String: Any]:
            guard let entries = WireEntry.entries(dictionary) else { return nil }
            self = .dictionary(entries)
        case let array as [Any]:
            var elements: [WireValue] = []
            for element in array {
                guard let wire = WireValue(element) else { return nil }
                elements.append(wire)
            }
            self = .array(elements)
        default:
            return nil
        }
    }

    /// The Swift value the SecItem layer expects (`Bool` for booleans, `NSNumber` for numbers).
    package var swiftValue: Any {
        switch self {
        case .string(let text): return text
        case .data(let data): return data
        case .bool(let flag): return flag
        case .integer(let number): return NSNumber(value: number)
        case .double(let number): return NSNumber(value: number)
        case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .array(let elements): return elements.map(\.swiftValue) as [Any]
        case .dictionary(let entries): return WireEntry.dictionary(entries)
        }
    }
}

/// One key and value of a ``WireValue/dictionary(_:)``.
package struct WireEntry: Equatable, Sendable {
    /// The key, as Apple's string value of a `kSec…` constant.
    package var key: String
    /// The value.
    package var value: WireValue

    /// An entry.
    package init(key: String, value: WireValue) {
        self.key = key
        self.value = value
    }

    /// `dictionary`'s entries sorted by key (a stable encoding), or nil if a value has no wire form.
    package static func entries(_ dictionary: [String: Any]) -> [WireEntry]? {
        var entries: [WireEntry] = []
        entries.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            guard let wire = WireValue(value) else { return nil }
            entries.append(WireEntry(key: key, value: wire))
        }
        return entries.sorted { $0.key < $1.key }
    }

    /// The first key of `dictionary` whose value has no wire form, or nil when every value has one.
    package static func firstUnsendableKey(_ dictionary: [String: Any]) -> String? {
        dictionary.first { WireValue($0.value) == nil }?.key
    }

    /// The entries as a Swift dictionary.
    package static func dictionary(_ entries: [WireEntry]) -> [String: Any] {
        var dictionary = [String: Any](minimumCapacity: entries.count)
        for entry in entries { dictionary[entry.key] = entry.value.swiftValue }
        return dictionary
    }
}
