import Crypto
import Foundation
import KeychainStore

/// The circle's keys for one epoch: the epoch's secret (every class key of the epoch derives from
/// it), the secrets of earlier epochs (to read records written before a rotation), and the
/// naming key that turns an item's primary key into its record name — kept across epochs so an
/// item keeps its name. A device removed from the circle keeps the bundles it had, never a later one.
struct KeyBundle: Equatable {
    var epoch: UInt32
    /// Epoch → its secret; holds `epoch` and the earlier ones.
    var secrets: [UInt32: SymmetricKey]
    var namingKey: SymmetricKey

    /// The first bundle of a new circle.
    static func first() -> KeyBundle {
        KeyBundle(epoch: 1, secrets: [1: SymmetricKey(size: .bits256)], namingKey: SymmetricKey(size: .bits256))
    }

    /// The next epoch's bundle: a new secret; earlier ones and the naming key kept.
    func rotated() -> KeyBundle {
        var next = self
        next.epoch += 1
        next.secrets[next.epoch] = SymmetricKey(size: .bits256)
        return next
    }

    /// The key that wraps item keys of `protection` in records of `epoch`.
    func classKey(_ protection: ProtectionClass, epoch: UInt32, circleID: Data) throws(SyncError) -> SymmetricKey {
        guard let secret = secrets[epoch] else { throw .tampered("a record of an unknown epoch") }
        return SyncSealing.derive(secret, salt: circleID, "class-\(protection.rawValue)")
    }

    var encoded: Data {
        var out = SyncBytes()
        out.append(UInt8(1))
        out.append(epoch)
        out.appendField(SyncSealing.bytes(of: namingKey))
        out.append(UInt32(secrets.count))
        for (epoch, secret) in secrets.sorted(by: { $0.key < $1.key }) {
            out.append(epoch)
            out.appendField(SyncSealing.bytes(of: secret))
        }
        return out.data
    }

    init(epoch: UInt32, secrets: [UInt32: SymmetricKey], namingKey: SymmetricKey) {
        self.epoch = epoch
        self.secrets = secrets
        self.namingKey = namingKey
    }

    init(decoding data: Data) throws(SyncError) {
        var reader = SyncBytes(data)
        guard try reader.byte() == 1 else { throw .tampered("a key bundle of an unknown version") }
        epoch = try reader.uint32()
        let naming = try reader.field()
        let count = try reader.uint32()
        guard naming.count == 32, count >= 1, count <= 100_000 else { throw .tampered("a key bundle") }
        namingKey = SymmetricKey(data: naming)
        var secrets: [UInt32: SymmetricKey] = [:]
        for _ in 0..<count {
            let epoch = try reader.uint32()
            let secret = try reader.field()
            guard secret.count == 32 else { throw .tampered("a key bundle") }
            secrets[epoch] = SymmetricKey(data: secret)
        }
        guard reader.isAtEnd, secrets[epoch] != nil else { throw .tampered("a key bundle") }
        self.secrets = secrets
    }
}
