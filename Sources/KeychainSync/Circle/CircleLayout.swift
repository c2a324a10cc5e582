import Foundation
import KeychainStore

/// Where a circle lives in etcd: `/keychainkit/v1/<circle id>/` and under it
/// `keys` (the current key bundle sealed under the circle secret), `members/<device id>` (each
/// device's public key, vouched for with the circle secret), `wraps/<device id>` (the bundle
/// sealed to one member's public key after a re-key) and `items/<record name>` (the records).
/// Every component is hex of random or keyed bytes: no item name, account or service appears.
struct CircleLayout {
    let circleID: Data

    var prefix: Data { Data("/keychainkit/v1/\(HexEncoding.string(circleID))/".utf8) }
    var keys: Data { prefix + Data("keys".utf8) }
    var membersPrefix: Data { prefix + Data("members/".utf8) }
    var itemsPrefix: Data { prefix + Data("items/".utf8) }
    func member(_ deviceID: Data) -> Data { membersPrefix + Data(HexEncoding.string(deviceID).utf8) }
    func wrap(_ deviceID: Data) -> Data { prefix + Data("wraps/\(HexEncoding.string(deviceID))".utf8) }
    func item(_ name: Data) -> Data { itemsPrefix + Data(HexEncoding.string(name).utf8) }

    /// The record name in an etcd key under `items/`, or nil for anything else.
    func name(fromItemKey key: Data) -> Data? {
        guard key.starts(with: itemsPrefix) else { return nil }
        let hex = String(decoding: key.dropFirst(itemsPrefix.count), as: UTF8.self)
        guard hex.count == 64 else { return nil }
        return SyncHex.bytes(hex)
    }
}
