import Crypto
import Foundation
import KeychainStore

/// One item as it is stored in etcd, end-to-end encrypted: etcd sees the record's name (a keyed
/// digest of the item's primary key), its epoch and accessibility class, and ciphertext.
///
/// Layout: `0x01 ‖ epoch:u32 ‖ class:u8 ‖ wrapped item key (field) ‖ sealed payload`; the item key
/// is random per write and wrapped by the epoch's class key; both seals bind the circle id, the
/// name, the epoch and the class as associated data, so a record moved to another name, epoch or
/// class, or altered in any byte, does not open. The payload holds the version (time, device),
/// whether it is a deletion, the item class, and for a live item its attributes and secret.
struct SyncRecord {
    var name: Data
    var protection: ProtectionClass
    var version: RecordVersion
    var isDeletion: Bool
    var itemClass: ItemClass
    /// Attributes and secret of a live item (nil for a deletion).
    var payload: ItemPayload?

    private static let classCodes: [ProtectionClass] = [.whenUnlocked, .afterFirstUnlock, .always]

    private static func associatedData(circleID: Data, name: Data, epoch: UInt32, classCode: UInt8) -> Data {
        var aad = SyncBytes(Data("keychainkit-sync-record-v1".utf8))
        aad.appendField(circleID)
        aad.appendField(name)
        aad.append(epoch)
        aad.append(classCode)
        return aad.data
    }

    /// The sealed bytes for etcd, under `bundle`'s current epoch.
    func sealed(circleID: Data, bundle: KeyBundle) throws(SyncError) -> Data {
        guard let classCode = Self.classCodes.firstIndex(of: protection).map(UInt8.init) else {
            throw .tampered("an item of a class that does not synchronize")
        }
        var plaintext = SyncBytes()
        plaintext.append(UInt8(1))
        plaintext.append(UInt8(isDeletion ? 1 : 0))
        plaintext.append(version.time.bitPattern)
        plaintext.appendField(version.device)
        plaintext.appendField(Data(itemClass.rawValue.utf8))
        if let payload { plaintext.appendField(payload.encoded()) }
        var body = plaintext.data
        defer { body.resetBytes(in: 0..<body.count) }
        let aad = Self.associatedData(circleID: circleID, name: name, epoch: bundle.epoch, classCode: classCode)
        let itemKey = SymmetricKey(size: .bits256)
        let ciphertext = try SyncSealing.seal(body, using: itemKey, binding: aad)
        let wrappedKey = try SyncSealing.seal(SyncSealing.bytes(of: itemKey),
                                              using: try bundle.classKey(protection, epoch: bundle.epoch, circleID: circleID), binding: aad)
        var out = SyncBytes()
        out.append(UInt8(1))
        out.append(bundle.epoch)
        out.append(classCode)
        out.appendField(wrappedKey)
        return out.data + ciphertext
    }

    /// The epoch a sealed record claims (read before opening, to pick the keys).
    static func epoch(of sealed: Data) throws(SyncError) -> UInt32 {
        var reader = SyncBytes(sealed)
        guard try reader.byte() == 1 else { throw .tampered("a record of an unknown version") }
        return try reader.uint32()
    }

    /// Opens a record read at `name`; `.tampered` for any altered byte or a foreign key.
    init(opening sealed: Data, name: Data, circleID: Data, bundle: KeyBundle) throws(SyncError) {
        var reader = SyncBytes(sealed)
        guard try reader.byte() == 1 else { throw .tampered("a record of an unknown version") }
        let epoch = try reader.uint32()
        let classCode = try reader.byte()
        guard Int(classCode) < Self.classCodes.count else { throw .tampered("a record") }
        let protection = Self.classCodes[Int(classCode)]
        let wrappedKey = try reader.field()
        let ciphertext = reader.rest()
        let aad = Self.associatedData(circleID: circleID, name: name, epoch: epoch, classCode: classCode)
        var keyBytes = try SyncSealing.open(wrappedKey, using: try bundle.classKey(protection, epoch: epoch, circleID: circleID),
                                            binding: aad, what: "a record")
        defer { keyBytes.resetBytes(in: 0..<keyBytes.count) }
        guard keyBytes.count == 32 else { throw .tampered("a record") }
        var body = try SyncSealing.open(ciphertext, using: SymmetricKey(data: keyBytes), binding: aad, what: "a record")
        defer { body.resetBytes(in: 0..<body.count) }
        var fields = SyncBytes(body)
        guard try fields.byte() == 1 else { throw .tampered("a record") }
        let flags = try fields.byte()
        let time = Double(bitPattern: try fields.uint64())
        let device = try fields.field()
        guard let itemClass = ItemClass(rawValue: String(decoding: try fields.field(), as: UTF8.self)),
              device.count == 16, time.isFinite, flags <= 1
        else { throw .tampered("a record") }
        self.name = name
        self.protection = protection
        self.version = RecordVersion(time: time, device: device)
        self.isDeletion = flags == 1
        self.itemClass = itemClass
        if isDeletion {
            guard fields.isAtEnd else { throw .tampered("a record") }
            payload = nil
        } else {
            do {
                payload = try ItemPayload(decoding: try fields.field())
            } catch {
                throw .tampered("a record")
            }
            guard fields.isAtEnd else { throw .tampered("a record") }
        }
    }

    init(name: Data, protection: ProtectionClass, version: RecordVersion, isDeletion: Bool, itemClass: ItemClass, payload: ItemPayload?) {
        self.name = name
        self.protection = protection
        self.version = version
        self.isDeletion = isDeletion
        self.itemClass = itemClass
        self.payload = payload
    }
}
