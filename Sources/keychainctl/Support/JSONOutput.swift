#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
// BridgedNumber: Foundation's NSNumber, read without importing Foundation.
import KeychainVocabulary

/// The JSON keychainctl prints for scripts (`--json`, the access log, `app-access list`): a tree
/// of `[String: Any]`, `[Any]`, strings, booleans, numbers and ``JSONNull`` written with
/// KeychainPrimitives' ``JSONWriter`` exactly as Foundation's `JSONSerialization` wrote it with
/// `.sortedKeys` and `.withoutEscapingSlashes` (FoundationEssentials has no `JSONSerialization`),
/// so that scripts reading the output see the same bytes.
enum JSONOutput {
    /// A value JSON cannot hold (a type it has no form for, a number that is not finite).
    struct Unrepresentable: Error, CustomStringConvertible {
        /// What the value was.
        let description: String
    }

    /// `value` pretty-printed (two spaces a level, `"key" : value`), keys sorted.
    static func prettyPrinted(_ value: Any) throws(Unrepresentable) -> String {
        String(decoding: JSONWriter.prettyPrinted(try json(value)), as: UTF8.self)
    }

    /// `value` on one line, keys sorted.
    static func compact(_ value: Any) throws(Unrepresentable) -> String {
        String(decoding: JSONWriter.compact(try json(value)), as: UTF8.self)
    }

    /// `value` as a JSON value, each object's members in ``precedes(_:_:)`` order.
    static func json(_ value: Any) throws(Unrepresentable) -> JSONValue {
        switch value {
        case let text as String:
            return .string(text)
        case is JSONNull:
            return JSONValue(.null)
        case let dictionary as [String: Any]:
            var members: [(String, JSONValue)] = []
            for key in dictionary.keys.sorted(by: precedes) {
                members.append((key, try json(dictionary[key]!)))
            }
            return .object(members)
        case let array as [Any]:
            var elements: [JSONValue] = []
            for element in array { elements.append(try json(element)) }
            return .array(elements)
        default:
            if let kind = try number(value) { return JSONValue(kind) }
            throw Unrepresentable(description: "\(type(of: value)) has no JSON form")
        }
    }

    /// A boolean or number as `JSONSerialization` wrote it: a Swift `Bool` or a Foundation
    /// boolean as `true`/`false`, an integer in decimal, a floating-point number without a
    /// fraction as an integer. Nil for anything else.
    private static func number(_ value: Any) throws(Unrepresentable) -> JSONValue.Kind? {
        if let number = value as? any BridgedNumber {
            if number.isBoolean { return .bool(number.boolValue) }
            return number.isFloatingPoint ? .number(try text(of: number.doubleValue)) : .number(String(number.int64Value))
        }
        switch value {
        case let flag as Bool: return .bool(flag)
        case let integer as Int: return .number(String(integer))
        case let integer as Int64: return .number(String(integer))
        case let integer as Int32: return .number(String(integer))
        case let integer as Int16: return .number(String(integer))
        case let integer as Int8: return .number(String(integer))
        case let integer as UInt: return .number(String(integer))
        case let integer as UInt64: return .number(String(integer))
        case let integer as UInt32: return .number(String(integer))
        case let integer as UInt16: return .number(String(integer))
        case let integer as UInt8: return .number(String(integer))
        case let double as Double: return .number(try text(of: double))
        case let float as Float: return .number(try text(of: Double(float)))
        default: return nil
        }
    }

    /// A floating-point number's text: whole numbers without `.0`, as Foundation writes them.
    private static func text(of double: Double) throws(Unrepresentable) -> String {
        guard double.isFinite else { throw Unrepresentable(description: "the number \(double) has no JSON form") }
        if double == double.rounded(), abs(double) < 1e15 { return String(Int64(double)) }
        return "\(double)"
    }

    /// Whether key `first` sorts before `second` as `JSONSerialization`'s `.sortedKeys` sorts
    /// them (Foundation compares with `.numeric`, `.caseInsensitive` and `.forcedOrdering`):
    /// runs of digits by their value, letters regardless of case; of keys equal that way, the
    /// first difference decides: a lower-case letter before an upper-case one, a run of digits
    /// with fewer leading zeros before one with more. Exact for keys of ASCII letters and digits,
    /// which are all keychainctl writes.
    static func precedes(_ first: String, _ second: String) -> Bool {
        let left = Array(first.unicodeScalars), right = Array(second.unicodeScalars)
        var i = 0, j = 0
        var forcedOrder: Bool?
        while i < left.count, j < right.count {
            if isDigit(left[i]), isDigit(right[j]) {
                let leftRun = digitRun(left, from: i), rightRun = digitRun(right, from: j)
                if leftRun.value.count != rightRun.value.count { return leftRun.value.count < rightRun.value.count }
                if leftRun.value != rightRun.value { return leftRun.value.lexicographicallyPrecedes(rightRun.value) }
                if forcedOrder == nil, leftRun.end - i != rightRun.end - j { forcedOrder = leftRun.end - i < rightRun.end - j }
                i = leftRun.end
                j = rightRun.end
                continue
            }
            let a = folded(left[i]), b = folded(right[j])
            if a != b { return a < b }
            if forcedOrder == nil, left[i] != right[j] { forcedOrder = left[i].properties.isLowercase }
            i += 1
            j += 1
        }
        if (left.count - i) != (right.count - j) { return left.count - i < right.count - j }
        // Equal but for case or leading zeros: the forced order.
        return forcedOrder ?? false
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    /// The digits from `start` without leading zeros, and where the run ends.
    private static func digitRun(_ scalars: [Unicode.Scalar], from start: Int) -> (value: [UInt32], end: Int) {
        var end = start
        while end < scalars.count, isDigit(scalars[end]) { end += 1 }
        let digits = scalars[start..<end].map(\.value).drop { $0 == UInt32(UInt8(ascii: "0")) }
        return (Array(digits), end)
    }

    /// A scalar compared regardless of case (its lower-case form, for ASCII letters).
    private static func folded(_ scalar: Unicode.Scalar) -> UInt32 {
        ("A"..."Z").contains(scalar) ? scalar.value + 32 : scalar.value
    }
}

/// JSON's `null` in a value for ``JSONOutput`` (Foundation's `NSNull` in `JSONSerialization`).
struct JSONNull {}
