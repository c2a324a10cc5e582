#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainServiceWire
// BridgedNumber: Foundation's NSNumber, read without importing Foundation.
import KeychainVocabulary

/// The SecItem layer's loosely typed values (`Any`: Swift values or Foundation's `NSNumber`) and
/// their wire form: kept out of KeychainServiceWire so that a client speaking wire values needs no
/// SecItem dictionaries. FoundationEssentials only: Foundation's numbers are read through
/// ``BridgedNumber``, which the module importing Foundation conforms `NSNumber` to.
extension WireValue {
    /// The wire form of a Swift value as the SecItem layer holds them (`String`, `Data`, `Bool`,
    /// `NSNumber`, a Swift number, `Date`, arrays and string-keyed dictionaries of these), or nil
    /// for anything else.
    ///
    /// Only a Swift `Bool` is a boolean: an `NSNumber` (a `CFBoolean` included) is a number, sent
    /// as a double when its C type is `d` or `f` and as an integer otherwise. Swift numbers are
    /// sent as the `NSNumber` Foundation bridges them to would be.
    package init?(_ value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case let data as Data: self = .data(data)
        case let flag as Bool where type(of: value) == Bool.self: self = .bool(flag)
        case let date as Date: self = .date(date.timeIntervalSinceReferenceDate)
        case let number as any BridgedNumber:
            self = number.isFloatingPoint ? .double(number.doubleValue) : .integer(number.int64Value)
        default:
            if let number = Self.integerReading(value) {
                self = .integer(number)
            } else if let number = Self.doubleReading(value) {
                self = .double(number)
            } else if let dictionary = value as? [String: Any] {
                guard let entries = WireEntry.entries(dictionary) else { return nil }
                self = .dictionary(entries)
            } else if let array = value as? [Any] {
                var elements: [WireValue] = []
                elements.reserveCapacity(array.count)
                for element in array {
                    guard let wire = WireValue(element) else { return nil }
                    elements.append(wire)
                }
                self = .array(elements)
            } else {
                return nil
            }
        }
    }

    /// A Swift integer as `NSNumber.int64Value` reads the number it bridges to (an unsigned value
    /// above `Int64.max` wraps, as there), or nil for any other value.
    static func integerReading(_ value: Any) -> Int64? {
        switch value {
        case let number as Int: return Int64(number)
        case let number as Int64: return number
        case let number as Int32: return Int64(number)
        case let number as Int16: return Int64(number)
        case let number as Int8: return Int64(number)
        case let number as UInt: return Int64(truncatingIfNeeded: number)
        case let number as UInt64: return Int64(truncatingIfNeeded: number)
        case let number as UInt32: return Int64(number)
        case let number as UInt16: return Int64(number)
        case let number as UInt8: return Int64(number)
        default: return nil
        }
    }

    /// A Swift `Double` or `Float` as a double, or nil for any other value.
    static func doubleReading(_ value: Any) -> Double? {
        switch value {
        case let number as Double: return number
        case let number as Float: return Double(number)
        default: return nil
        }
    }

    /// The Swift value the SecItem layer expects: `Bool` for booleans; for numbers the `Int` or
    /// `Double` `as AnyObject` makes, which is Foundation's `NSNumber(value:)` wherever Foundation
    /// is linked (what Apple's callers read with `as? Int` or `as? NSNumber`) and the Swift value
    /// itself in a process without it.
    package var swiftValue: Any {
        switch self {
        case .string(let text): return text
        case .data(let data): return data
        case .bool(let flag): return flag
        case .integer(let number): return Int(truncatingIfNeeded: number) as AnyObject
        case .double(let number): return number as AnyObject
        case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .array(let elements): return elements.map(\.swiftValue) as [Any]
        case .dictionary(let entries): return WireEntry.dictionary(entries)
        }
    }
}
