// Foundation: NSNumber, the number type of SecItem dictionaries, which FoundationEssentials lacks.
import Foundation
import KeychainServiceWire

/// The SecItem layer's loosely typed values (`Any`, `NSNumber`) and their wire form: kept out of
/// KeychainServiceWire so that a client speaking wire values links no Foundation.
extension WireValue {
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
