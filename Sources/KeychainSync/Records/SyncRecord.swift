import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainItemCodec
import KeychainVocabulary

/// One item as it is stored on the transport, end-to-end encrypted and signed: the transport sees
/// the record's name (a keyed digest of the item's class and primary key), its epoch,
/// accessibility class and writer, and ciphertext.
///
/// Layout: `0x02 ‖ epoch:u32 ‖ class:u8 ‖ writer id (16) ‖ wrapped item key (field) ‖ sealed
/// payload (field) ‖ signature (64)`. The item key is random per write and wrapped by the epoch's
/// class key; both seals bind the circle id, the name, the epoch, the class and the writer as
/// associated data, and the writer's Ed25519 signature covers the circle id, the name and every
/// byte before it. The payload holds the version (time, device), whether it is a deletion, the item
/// class, and for a live item its attributes and secret — whose primary key must digest to the
/// record's name, so a record moved to another name, access group or class is refused.
struct SyncRecord {
    var name: Data
    var protection: ProtectionClass
    var version: RecordVersion
    var isDeletion: Bool
    var itemClass: ItemClass
    /// Attributes and secret of a live item (nil for a deletion).
    var payload: ItemPayload?

    /// The largest record accepted (a decoder bound: items are passwords and small blobs).
    static let maximumSize = 4 << 20
    /// How far in the future a version time may be (this device's clock) and still be applied:
    /// 10 minutes covers clocks that NTP keeps within seconds and a laptop that was asleep; a
    /// write stamped later would otherwise win every conflict until that time comes.
    static let futureAllowance: TimeInterval = 600

    private static let classCodes: [ProtectionClass] = [.whenUnlocked, .afterFirstUnlock, .always]
    private static let domain = Data("keychainkit-sync-record-v2".utf8)

    private static func associatedData(circleID: Data, name: Data, epoch: UInt32, classCode: UInt8, writer: Data) -> Data {
        var aad = Data(domain)
        aad.append(circleID)
        aad.appendField(name)
        aad.appendBigEndian(epoch)
        aad.append(classCode)
        aad.append(writer)
        return aad
    }

    private static func signedBytes(circleID: Data, name: Data, header: Data) -> Data {
        var out = Data(domain)
        out.append(circleID)
        out.appendField(name)
        return out + header
    }

    /// The sealed, signed bytes for the transport, under `bundle`'s current epoch.
    func sealed(circleID: Data, bundle: KeyBundle, writer: DeviceIdentity) throws(SyncError) -> Data {
        guard let classCode = Self.classCodes.firstIndex(of: protection).map(UInt8.init) else {
            throw .tampered("an item of a class that does not synchronize")
        }
        var plaintext = Data()
        plaintext.append(UInt8(2))
        plaintext.append(UInt8(isDeletion ? 1 : 0))
        plaintext.appendBigEndian(version.time.bitPattern)
        plaintext.appendField(version.device)
        plaintext.appendField(Data(itemClass.rawValue.utf8))
        if let payload { plaintext.appendField(payload.encoded()) }
        plaintext.appendField(Data(count: Self.paddingLength(forBody: plaintext.count)))
        var body = plaintext
        defer { body.resetBytes(in: 0..<body.count) }
        let writerID = writer.member.id
        let aad = Self.associatedData(circleID: circleID, name: name, epoch: bundle.epoch, classCode: classCode, writer: writerID)
        let itemKey = SymmetricKey(size: .bits256)
        let ciphertext = try SyncSealing.seal(body, using: itemKey, binding: aad)
        let wrappedKey = try SyncSealing.seal(SyncSealing.bytes(of: itemKey),
                                              using: try bundle.classKey(protection, epoch: bundle.epoch, circleID: circleID), binding: aad)
        var header = Data()
        header.append(UInt8(2))
        header.appendBigEndian(bundle.epoch)
        header.append(classCode)
        header.append(writerID)
        header.appendField(wrappedKey)
        header.appendField(ciphertext)
        let signature = try writer.sign(Self.signedBytes(circleID: circleID, name: name, header: header))
        return header + signature
    }

    /// The parts of a sealed record, read before anything is verified (bounded sizes only).
    struct Envelope {
        var epoch: UInt32
        var classCode: UInt8
        var writerID: Data
        var wrappedKey: Data
        var ciphertext: Data
        var header: Data
        var signature: Data

        init(decoding sealed: Data) throws(SyncError) {
            guard sealed.count <= SyncRecord.maximumSize else { throw .tampered("a record over its size limit") }
            var reader = ByteReader(sealed)
            guard try reader.byte() == 2 else { throw .tampered("a record of an unknown version") }
            epoch = try reader.uint32()
            classCode = try reader.byte()
            guard Int(classCode) < SyncRecord.classCodes.count else { throw .tampered("a record of an unknown class") }
            writerID = try reader.bytes(16)
            wrappedKey = try reader.field()
            ciphertext = try reader.field()
            header = Data(sealed.prefix(sealed.count - reader.remaining))
            signature = try reader.bytes(64)
            guard reader.isAtEnd else { throw .tampered("a record with trailing bytes") }
        }
    }

    /// Whether `sealed` claims an epoch after `bundle`'s (its epoch field, unverified: for counting).
    static func isOfLaterEpoch(_ sealed: Data, than bundle: KeyBundle) -> Bool {
        do {
            return try Envelope(decoding: sealed).epoch > bundle.epoch
        } catch {
            return false  // undecodable: garbage, counted as refused only
        }
    }

    /// Whether `sealed`, read at `name`, is of an epoch after `bundle`'s and signed by a member of
    /// `roster` (checked without the epoch's keys, which this device does not have yet): a record
    /// a member may have written after a membership change this device has not caught up with.
    /// Anything else that does not open — another epoch's record signed by a device that is not a
    /// member, a forged epoch field, garbage — is not worth waiting for.
    static func isPendingLaterEpoch(_ sealed: Data, name: Data, circleID: Data, bundle: KeyBundle, roster: Roster) -> Bool {
        let envelope: Envelope
        do {
            envelope = try Envelope(decoding: sealed)
        } catch {
            return false  // undecodable: garbage
        }
        guard envelope.epoch > bundle.epoch, let writer = roster.member(envelope.writerID) else { return false }
        return writer.verifies(envelope.signature, over: signedBytes(circleID: circleID, name: name, header: envelope.header))
    }

    /// Opens a record read at `name`: written and signed by a member of `roster`, sealed with a
    /// key of `bundle`, its payload's primary key digesting to `name`, its time at most
    /// ``futureAllowance`` ahead of `now`. `.tampered` naming the failed check otherwise.
    init(opening sealed: Data, name: Data, circleID: Data, bundle: KeyBundle, roster: Roster, now: Date = Date()) throws(SyncError) {
        let envelope = try Envelope(decoding: sealed)
        guard let writer = roster.member(envelope.writerID) else { throw .tampered("a record written by a device that is not a member") }
        guard writer.verifies(envelope.signature, over: Self.signedBytes(circleID: circleID, name: name, header: envelope.header)) else {
            throw .tampered("a record whose signature does not verify (altered, or moved to another name)")
        }
        let protection = Self.classCodes[Int(envelope.classCode)]
        let aad = Self.associatedData(circleID: circleID, name: name, epoch: envelope.epoch, classCode: envelope.classCode,
                                      writer: envelope.writerID)
        var keyBytes = try SyncSealing.open(envelope.wrappedKey, using: try bundle.classKey(protection, epoch: envelope.epoch, circleID: circleID),
                                            binding: aad, what: "a record")
        defer { keyBytes.resetBytes(in: 0..<keyBytes.count) }
        guard keyBytes.count == 32 else { throw .tampered("a record") }
        var body = try SyncSealing.open(envelope.ciphertext, using: SymmetricKey(data: keyBytes), binding: aad, what: "a record")
        defer { body.resetBytes(in: 0..<body.count) }
        try self.init(body: body, name: name, protection: protection)
        if isDeletion == false, let payload {
            guard itemClass.primaryKeyName(of: payload.attributes, using: bundle.namingKey) == name else {
                throw .tampered("a record whose name does not match its item (class, access group or primary key)")
            }
        }
        guard version.time <= now.timeIntervalSinceReferenceDate + Self.futureAllowance else {
            throw .tampered("a record dated more than \(Int(Self.futureAllowance)) seconds in the future")
        }
    }

    /// Decodes a decrypted payload (the decoder the fuzz target drives).
    init(body: Data, name: Data, protection: ProtectionClass) throws(SyncError) {
        var fields = ByteReader(body)
        guard try fields.byte() == 2 else { throw .tampered("a record") }
        let flags = try fields.byte()
        let time = Double(bitPattern: try fields.uint64())
        let device = try fields.field()
        guard let itemClass = ItemClass(rawValue: String(decoding: try fields.field(), as: UTF8.self)),
              Self.syncedClasses.contains(itemClass), device.count == 16, time.isFinite, flags <= 1
        else { throw .tampered("a record") }
        self.name = name
        self.protection = protection
        self.version = RecordVersion(time: time, device: device)
        self.isDeletion = flags == 1
        self.itemClass = itemClass
        if isDeletion {
            payload = nil
        } else {
            do {
                payload = try ItemPayload(decoding: try fields.field())
            } catch {
                throw .tampered("a record")
            }
        }
        if !fields.isAtEnd {
            // Padding (zeros) up to a size bucket; records sealed before padding have none.
            let padding = try fields.field()
            guard padding.allSatisfy({ $0 == 0 }) else { throw .tampered("a record") }
        }
        guard fields.isAtEnd else { throw .tampered("a record") }
    }

    /// How many zero bytes pad a body of `length` bytes (before its 4-byte padding length) to
    /// the next size bucket — 1 KiB, then powers of two — so that a record's size, which
    /// the transport sees (a file in a git commit, a folder), tells only its bucket, not the
    /// length of a name, an account or a secret.
    static func paddingLength(forBody length: Int) -> Int {
        let unpadded = length + 4
        var bucket = 1024
        while bucket < unpadded { bucket *= 2 }
        return bucket - unpadded
    }

    static let syncedClasses: Set<ItemClass> = [.genericPassword, .internetPassword]

    init(name: Data, protection: ProtectionClass, version: RecordVersion, isDeletion: Bool, itemClass: ItemClass, payload: ItemPayload?) {
        self.name = name
        self.protection = protection
        self.version = version
        self.isDeletion = isDeletion
        self.itemClass = itemClass
        self.payload = payload
    }
}
