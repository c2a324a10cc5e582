import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// The circle's keys for one epoch: the epoch's secret (every class key of the epoch derives from
/// it), the secrets of earlier epochs (to read records written before a rotation), the naming key
/// that turns an item's primary key into its record name (kept across epochs so an item keeps its
/// name), and the join secret of the current circle code (members need it to check a join
/// request; a removal replaces it). A device removed from the circle keeps the bundles it had,
/// never a later one.
struct KeyBundle: Equatable {
    var epoch: UInt32
    /// Epoch → its secret; holds `epoch` and the earlier ones.
    var secrets: [UInt32: SymmetricKey]
    var namingKey: SymmetricKey
    /// The secret half of the current circle code.
    var joinSecret: SymmetricKey

    /// The most epochs a bundle carries (a decoder bound: one epoch per membership change).
    static let maximumEpochs = 100_000

    /// The first bundle of a new circle.
    static func first(joinSecret: SymmetricKey) -> KeyBundle {
        KeyBundle(epoch: 1, secrets: [1: SymmetricKey(size: .bits256)], namingKey: SymmetricKey(size: .bits256), joinSecret: joinSecret)
    }

    /// The next epoch's bundle: a new secret; earlier ones and the naming key kept; the join
    /// secret replaced when given.
    func rotated(joinSecret: SymmetricKey? = nil) -> KeyBundle {
        var next = self
        next.epoch += 1
        next.secrets[next.epoch] = SymmetricKey(size: .bits256)
        if let joinSecret { next.joinSecret = joinSecret }
        return next
    }

    /// Whether `next` keeps everything this bundle knows (the naming key and every earlier
    /// epoch's secret): a later bundle that does not was not made from this one.
    func isExtended(by next: KeyBundle) -> Bool {
        next.epoch > epoch && next.namingKey == namingKey && secrets.allSatisfy { next.secrets[$0.key] == $0.value }
    }

    /// A commitment to this epoch's secret (SHA-256 over a domain string, the circle id, the epoch
    /// and the secret), published in the epoch's member list: it tells the bundle apart from any
    /// other and reveals nothing of a 256-bit random secret.
    func check(circleID: Data) -> Data {
        var message = Data("keychainkit-sync-key-check-v2".utf8)
        message.append(circleID)
        message.appendBigEndian(epoch)
        message.append(secrets[epoch].map(SyncSealing.bytes(of:)) ?? Data())
        return Data(SHA256.hash(data: message))
    }

    /// The key that wraps item keys of `protection` in records of `epoch`.
    func classKey(_ protection: ProtectionClass, epoch: UInt32, circleID: Data) throws(SyncError) -> SymmetricKey {
        guard let secret = secrets[epoch] else { throw .tampered("a record of an unknown epoch") }
        return SyncSealing.derive(secret, salt: circleID, "class-\(protection.rawValue)")
    }

    var encoded: Data {
        var out = Data()
        out.append(UInt8(2))
        out.appendBigEndian(epoch)
        out.append(SyncSealing.bytes(of: namingKey))
        out.append(SyncSealing.bytes(of: joinSecret))
        out.appendBigEndian(UInt32(secrets.count))
        for (epoch, secret) in secrets.sorted(by: { $0.key < $1.key }) {
            out.appendBigEndian(epoch)
            out.append(SyncSealing.bytes(of: secret))
        }
        return out
    }

    init(epoch: UInt32, secrets: [UInt32: SymmetricKey], namingKey: SymmetricKey, joinSecret: SymmetricKey) {
        self.epoch = epoch
        self.secrets = secrets
        self.namingKey = namingKey
        self.joinSecret = joinSecret
    }

    /// Decodes a bundle: version 2, at most ``maximumEpochs`` secrets, strictly increasing epochs,
    /// the current epoch among them.
    init(decoding data: Data) throws(SyncError) {
        var reader = ByteReader(data)
        guard try reader.byte() == 2 else { throw .tampered("a key bundle of an unknown version") }
        epoch = try reader.uint32()
        namingKey = SymmetricKey(data: try reader.bytes(32))
        joinSecret = SymmetricKey(data: try reader.bytes(32))
        let count = Int(try reader.uint32())
        guard count >= 1, count <= Self.maximumEpochs, count * 36 == data.count - 73 else { throw .tampered("a key bundle") }
        var secrets: [UInt32: SymmetricKey] = [:]
        var last: UInt32?
        for _ in 0..<count {
            let epoch = try reader.uint32()
            guard last.map({ epoch > $0 }) ?? true else { throw .tampered("a key bundle") }
            last = epoch
            secrets[epoch] = SymmetricKey(data: try reader.bytes(32))
        }
        guard reader.isAtEnd, secrets[epoch] != nil, last == epoch else { throw .tampered("a key bundle") }
        self.secrets = secrets
    }
}
