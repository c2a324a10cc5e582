import KeychainPrimitives
// BridgedNumber: Foundation's NSNumber, read without importing Foundation.
import KeychainVocabulary
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Prints keychain items the way `security(1)` does (text), or as JSON objects for scripts.
enum ItemFormatter {
    /// Attributes that are four-character codes (printed as text, like `security`).
    private static let fourCharacterCodes: Set<String> = ["ptcl", "atyp", "crtr", "type"]
    /// Attributes that are booleans stored as numbers.
    private static let flags: Set<String> = ["sync", "invi", "nega"]
    /// Keys of a result dictionary that are not attributes.
    private static let nonAttributes: Set<String> = ["accc", "class", "v_Data", "v_PersistentRef", "v_Ref"]
    /// JSON names of Apple's attribute keys.
    private static let jsonNames: [String: String] = [
        "acct": "account", "svce": "service", "labl": "label", "icmt": "comment", "desc": "description",
        "srvr": "server", "ptcl": "protocol", "port": "port", "path": "path", "sdmn": "securityDomain",
        "atyp": "authenticationType", "agrp": "accessGroup", "pdmn": "accessible", "cdat": "created",
        "mdat": "modified", "sync": "synchronizable", "gena": "generic", "crtr": "creator", "type": "type",
        "invi": "invisible", "nega": "negative", "vwht": "viewHint", "tkid": "tokenID",
    ]

    // MARK: Text

    /// `security`'s block for one item: keychain, class, then one line per attribute.
    static func text(_ item: [String: Any], itemClass: String, keychainPath: String) -> String {
        var lines = ["keychain: \"\(keychainPath)\"", "class: \"\(itemClass)\"", "attributes:"]
        for name in item.keys.sorted() where !nonAttributes.contains(name) {
            guard let value = item[name] else { continue }
            lines.append("    \"\(name)\"" + typedValue(value, name: name))
        }
        return lines.joined(separator: "\n")
    }

    /// A secret as `security` prints it after `password: ` or `data:`: quoted text, else hex.
    static func quotedSecret(_ secret: Data) -> String {
        if let text = String(data: secret, encoding: .utf8) { return quote(text) }
        return "0x" + hex(secret)
    }

    /// A secret as `find-…-password -w` prints it: the text itself, or hex if it is not UTF-8.
    static func bareSecret(_ secret: Data) -> String {
        String(data: secret, encoding: .utf8) ?? hex(secret)
    }

    private static func typedValue(_ value: Any, name: String) -> String {
        switch value {
        case let text as String:
            return (fourCharacterCodes.contains(name) ? "<uint32>=" : "<blob>=") + quote(text)
        case let date as Date:
            return "<timedate>=" + quote(compactDate(date))
        case let data as Data:
            if let text = String(data: data, encoding: .utf8) { return "<blob>=" + quote(text) }
            return "<blob>=0x" + hex(data)
        default:
            guard let number = numberText(value) else { return "<blob>=<unprintable>" }
            return (flags.contains(name) ? "<sint32>=" : "<uint32>=") + number
        }
    }

    private static func quote(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    let octal = String(scalar.value, radix: 8)
                    quoted += "\\" + String(repeating: "0", count: max(0, 3 - octal.count)) + octal
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }

    private static func compactDate(_ date: Date) -> String { ISO8601Text.compact(date) }

    /// A number or boolean as `NSNumber.stringValue` gave it (`1`/`0` for a boolean); nil for
    /// any other value.
    static func numberText(_ value: Any) -> String? {
        if let number = value as? any BridgedNumber {
            if number.isBoolean { return number.boolValue ? "1" : "0" }
            return number.isFloatingPoint ? floatingText(number.doubleValue) : String(number.int64Value)
        }
        switch value {
        case let flag as Bool: return flag ? "1" : "0"
        case let integer as Int: return String(integer)
        case let integer as Int64: return String(integer)
        case let integer as Int32: return String(integer)
        case let integer as Int16: return String(integer)
        case let integer as Int8: return String(integer)
        case let integer as UInt: return String(integer)
        case let integer as UInt64: return String(integer)
        case let integer as UInt32: return String(integer)
        case let integer as UInt16: return String(integer)
        case let integer as UInt8: return String(integer)
        case let double as Double: return floatingText(double)
        case let float as Float: return floatingText(Double(float))
        default: return nil
        }
    }

    /// A floating-point number as `NSNumber.stringValue` gave it: whole numbers without `.0`.
    private static func floatingText(_ double: Double) -> String {
        double.isFinite && double == double.rounded() && abs(double) < 1e15 ? String(Int64(double)) : "\(double)"
    }

    /// Whether `value` is a boolean or a number (what `as? NSNumber` matched).
    private static func isNumber(_ value: Any) -> Bool { numberText(value) != nil }

    /// A boolean or number as a flag (`NSNumber.boolValue`: nonzero is true).
    private static func flagValue(_ value: Any) -> Bool? {
        if let number = value as? any BridgedNumber { return number.boolValue }
        if let flag = value as? Bool { return flag }
        return numberText(value).map { $0 != "0" }
    }

    private static func hex(_ data: Data) -> String { HexEncoding.string(data, uppercase: true) }

    // MARK: JSON

    /// One item as a JSON object: keychain, class, attributes by readable name, and the
    /// password when `secret` is given (`passwordHex` if it is not UTF-8).
    static func json(_ item: [String: Any], itemClass: String, keychainPath: String, secret: Data?) -> [String: Any] {
        var attributes: [String: Any] = [:]
        for (name, value) in item where !nonAttributes.contains(name) {
            if flags.contains(name), let flag = flagValue(value) {
                attributes[jsonNames[name] ?? name] = flag
            } else {
                attributes[jsonNames[name] ?? name] = jsonValue(value)
            }
        }
        var object: [String: Any] = ["keychain": keychainPath, "class": itemClass, "attributes": attributes]
        if let secret {
            if let text = String(data: secret, encoding: .utf8) {
                object["password"] = text
            } else {
                object["passwordHex"] = hex(secret)
            }
        }
        return object
    }

    private static func jsonValue(_ value: Any) -> Any {
        switch value {
        case let text as String: return text
        case let date as Date: return ISO8601Text.internetDateTime(date)
        case let data as Data: return String(data: data, encoding: .utf8) ?? ("0x" + hex(data))
        default: return isNumber(value) ? value : "\(type(of: value))"
        }
    }

    /// Serialises a JSON value (pretty, keys sorted) for standard output.
    static func serialise(_ value: Any) throws -> String {
        try JSONOutput.prettyPrinted(value)
    }
}
