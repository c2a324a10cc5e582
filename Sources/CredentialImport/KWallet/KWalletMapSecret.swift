// The one use of Foundation left in CredentialImport: JSONSerialization orders the keys
// of `.sortedKeys` by a case-insensitive, numeric, locale comparison (ICU), which FoundationEssentials'
// JSONEncoder does not (it sorts by code point), so a map imported before and after a move to
// FoundationEssentials would be stored as different bytes.
import Foundation

/// The secret stored for a KWallet map entry (Qt's `QMap<QString, QString>`): the map as a JSON object.
enum KWalletMapSecret {
    /// `map` as one JSON object, keys sorted, slashes unescaped: the bytes `keychainctl
    /// import-credentials` stores for a map.
    static func json(_ map: [String: String]) throws -> Data {
        try JSONSerialization.data(withJSONObject: map, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
