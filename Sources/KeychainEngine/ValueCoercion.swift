#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainStore
import KeychainVocabulary

/// Reads the loosely typed values of a query dictionary — Swift values (`true`, `Int`, `String`,
/// `Data`) or their Foundation bridges (`NSNumber`, `NSString`, `NSData`) — as Apple's parser
/// would. Never force-casts: a value of the wrong type is `errSecParam`.
///
/// Foundation's text, data, date and UUID objects convert by the runtime's bridging casts
/// (`as? String`), which need no import; numbers and null are read through ``BridgedNumber`` and
/// ``BridgedNull``, which the module importing Foundation conforms them to.
enum ValueCoercion {
    /// A CFBoolean: a Swift `Bool`, or an `NSNumber` created from one. A number 1 is not a boolean.
    static func boolean(_ value: Any) -> Bool? {
        if type(of: value) == Bool.self { return value as? Bool }
        // On Linux every NSNumber casts to Bool, so the number's own type decides: CFBoolean
        // values are created from a Bool and report the C type `c` (or `B`).
        guard let number = value as? any BridgedNumber else { return nil }
        return number.isBoolean ? number.boolValue : nil
    }

    /// Whether the value is `NSNull` (`kCFNull`), which no key accepts.
    ///
    /// Asked of the value's type, not with `value is NSNull`: on Linux that cast first bridges
    /// a Swift `String` or `Data` to a new Foundation object to compare its class, which cost
    /// 2,000 instructions per query key.
    static func isNull(_ value: Any) -> Bool {
        type(of: value) is any BridgedNull.Type
    }

    /// Any integer-like value (numbers and booleans); nil for text, data and other types.
    static func integer(_ value: Any) -> Int64? {
        if value is String || value is Data { return nil }
        switch value {
        case let number as Int: return Int64(number)
        case let number as Int64: return number
        case let number as Int32: return Int64(number)
        case let number as UInt32: return Int64(number)
        case let number as UInt: return Int64(exactly: number)
        case let number as UInt64: return Int64(exactly: number)
        case let number as any BridgedNumber: return integer(exactly: number.doubleValue)
        // The Swift values Foundation bridges to an `NSNumber` (which this method read as one).
        case let number as Bool: return number ? 1 : 0
        case let number as Double: return integer(exactly: number)
        case let number as Float: return integer(exactly: Double(number))
        case let number as Int8: return Int64(number)
        case let number as Int16: return Int64(number)
        case let number as UInt8: return Int64(number)
        case let number as UInt16: return Int64(number)
        default: return nil
        }
    }

    /// `double` when it is a whole number an `Int64` holds.
    private static func integer(exactly double: Double) -> Int64? {
        guard double.rounded() == double, let exact = Int64(exactly: double) else { return nil }
        return exact
    }

    /// Text (Swift `String` or `NSString`).
    static func string(_ value: Any) -> String? { value as? String }

    /// Bytes (Swift `Data` or `NSData`).
    static func data(_ value: Any) -> Data? {
        if value is String { return nil }
        return value as? Data
    }

    /// An attribute value of the given kind, or `errSecParam`.
    static func attribute(_ value: Any, kind: AttributeKind) throws(KeychainStoreError) -> AttributeValue {
        switch kind {
        case .blob:
            if let text = string(value) { return .string(text) }
            if let bytes = data(value) { return .data(bytes) }
            if let number = integer(value) { return .number(number) }
        case .string:
            if let text = string(value) { return .string(text) }
            if let bytes = data(value) {
                guard let text = String(data: bytes, encoding: .utf8) else { throw KeychainStoreError(status: .param) }
                return .string(text)
            }
            if let uuid = value as? UUID { return .string(uuid.uuidString) }
        case .number:
            if let number = integer(value) { return .number(number) }
            if let text = string(value) {
                if let number = Int64(text), String(number) == text { return .number(number) }
                return .string(text)
            }
        case .date:
            if let date = value as? Date { return .date(date) }
        }
        throw KeychainStoreError(status: .param)
    }
}
