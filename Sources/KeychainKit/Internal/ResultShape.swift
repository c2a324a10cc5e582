import Foundation
import KeychainServices

/// Reads the shapes `SecItemCopyMatching` returns (as Apple documents them) into Swift values.
enum ResultShape {
    /// The attribute dictionaries of a `kSecReturnAttributes` + `kSecMatchLimitAll` result.
    static func dictionaries(_ value: Any?, context: String) throws(KeychainError) -> [[String: Any]] {
        if let dictionaries = value as? [[String: Any]] {
            return dictionaries
        }
        if let single = value as? [String: Any] {
            return [single]
        }
        guard let array = value as? [Any] else {
            throw KeychainError.unexpectedResult.withContext(context)
        }
        var dictionaries: [[String: Any]] = []
        for element in array {
            guard let dictionary = element as? [String: Any] else {
                throw KeychainError.unexpectedResult.withContext(context)
            }
            dictionaries.append(dictionary)
        }
        return dictionaries
    }

    /// A text attribute (account, service, server…), which Apple returns as the type it was
    /// stored with: a string, or data holding UTF-8 when another program wrote it as data.
    static func text(_ value: Any?) -> String? {
        if let string = value as? String {
            return string
        }
        if let data = value as? Data {
            return String(data: data, encoding: .utf8)
        }
        return nil
    }

    /// A number attribute (port), which may arrive as any integer type or as `NSNumber`.
    static func integer(_ value: Any?) -> Int? {
        if let int = value as? Int {
            return int
        }
        if let number = value as? NSNumber {
            return number.intValue
        }
        if let string = value as? String {
            return Int(string)
        }
        return nil
    }

    /// A date attribute (creation, modification).
    static func date(_ value: Any?) -> Date? {
        value as? Date
    }
}
