#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The secret stored for a KWallet map entry (Qt's `QMap<QString, QString>`): the map as a JSON object.
enum KWalletMapSecret {
    /// `map` as one compact JSON object, keys sorted by code point (`"Zeta"` before `"alpha"`),
    /// slashes unescaped: the bytes `keychainctl import-credentials` stores for a map.
    ///
    /// Until CredentialImport left Foundation, `JSONSerialization`'s `.sortedKeys` ordered the keys
    /// case-insensitively (ICU); FoundationEssentials' `JSONEncoder` orders them by code point. Only
    /// the order of a stored map's keys differs, and only when they differ in case or are not ASCII
    /// letters alike; the object, and every key and value, are the same.
    static func json(_ map: [String: String]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(map)
    }
}
