import Foundation
import KeychainServices

/// How values become item data and back.
///
/// `String` is stored as its UTF-8 bytes and `Data` as itself, so other keychain code reads and
/// writes the same items; every other `Codable` value is stored as JSON. Errors never include
/// the value or the decoder's message (which can quote the stored bytes).
enum ValueCoding {
    /// The bytes to store for `value`.
    static func encode<Value: Encodable>(_ value: Value, encoder: JSONEncoder, context: String) throws(KeychainError) -> Data {
        if let string = value as? String {
            return Data(string.utf8)
        }
        if let data = value as? Data {
            return data
        }
        do {
            return try encoder.encode(value)
        } catch {
            throw KeychainError.encodingFailed.withContext("\(context) (JSON encoding of \(Value.self) failed)")
        }
    }

    /// The value of type `Value` stored in `data`.
    static func decode<Value: Decodable>(
        _ type: Value.Type,
        from data: Data,
        decoder: JSONDecoder,
        context: String
    ) throws(KeychainError) -> Value {
        if Value.self == String.self {
            guard let string = String(data: data, encoding: .utf8), let value = string as? Value else {
                throw KeychainError.decodingFailed.withContext("\(context) (the stored bytes are not UTF-8 text)")
            }
            return value
        }
        if Value.self == Data.self, let value = data as? Value {
            return value
        }
        do {
            return try decoder.decode(Value.self, from: data)
        } catch let error as DecodingError {
            throw KeychainError.decodingFailed.withContext("\(context) (\(Value.self): \(summary(of: error)))")
        } catch {
            throw KeychainError.decodingFailed.withContext("\(context) (\(Value.self): not valid JSON)")
        }
    }

    /// The decoding error's case only: its coding path may hold dictionary keys from the stored
    /// value, and its debug description and underlying error may quote stored bytes.
    private static func summary(of error: DecodingError) -> String {
        switch error {
        case .typeMismatch: "type mismatch"
        case .valueNotFound: "value not found"
        case .keyNotFound: "key not found"
        case .dataCorrupted: "data corrupted"
        @unknown default: "decoding failed"
        }
    }
}
