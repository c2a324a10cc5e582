import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary
import KeychainItemCodec

/// The blind-index key, with HMAC-SHA256 keyed with it once. Every primary-key digest starts
/// from a copy of that keyed state (HMAC is a value type; the copy's hash contexts are copied on
/// first write) instead of keying HMAC again: re-keying cost about half of each index.
/// Blind indexes, which every lookup computes, go through `PrecomputedHMAC` instead: the same
/// bytes without swift-crypto's generic `HMAC` code.
struct BlindIndexKey {
    /// The key itself.
    let key: SymmetricKey
    private let keyed: HMAC<SHA256>
    /// The same MAC from precomputed SHA-256 states, for blind indexes.
    let indexMAC: PrecomputedHMAC

    /// The blind indexes of `sync` = 0 and `sync` = 1: every lookup binds one, so they are
    /// computed once per key.
    private let synchronizableIndexes: (no: Data, yes: Data)

    init(_ key: SymmetricKey) {
        self.key = key
        self.keyed = HMAC<SHA256>(key: key)
        let indexMAC = PrecomputedHMAC(key: key)
        self.indexMAC = indexMAC
        synchronizableIndexes = (
            ItemRecord.blindIndex(name: "sync", value: .number(0), kind: .number, mac: indexMAC),
            ItemRecord.blindIndex(name: "sync", value: .number(1), kind: .number, mac: indexMAC))
    }

    /// The blind index of the `sync` attribute (what `ItemRecord.blindIndex` gives for it).
    func synchronizableIndex(_ synchronizable: Bool) -> Data {
        synchronizable ? synchronizableIndexes.yes : synchronizableIndexes.no
    }

    /// HMAC-SHA256 of `message` under the key.
    func authenticationCode(for message: Data) -> HashedAuthenticationCode<SHA256> {
        var mac = keyed
        mac.update(data: message)
        return mac.finalize()
    }

    /// The key's bytes.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try key.withUnsafeBytes(body)
    }
}

/// Encryption, associated data and blind indexes of item records.
enum ItemRecord {
    /// Largest encoded payload (attributes plus data) an item may have: 16 MiB.
    static let maximumPayloadSize = KeychainStoreError.maximumItemSize

    /// Associated data binding an item's ciphertexts to its row: format version, class,
    /// protection class, persistent identity, primary-key digest and tombstone flag. A live item
    /// (the only kind with ciphertexts) carries no flag byte — format 1's associated data, so
    /// existing items keep opening; a tombstone's marker binds the flag as a trailing 0x01.
    static func associatedData(itemClass: ItemClass, protection: ProtectionClass, persistentID: UUID,
                               primaryKeyDigest: Data, isTombstone: Bool = false) -> Data {
        primaryKeyDigest.withUnsafeBytes { digestBytes in
            withAssociatedData(itemClass: itemClass, protection: protection, persistentID: persistentID,
                               primaryKeyDigest: digestBytes, isTombstone: isTombstone) { Data($0) }
        }
    }

    /// `associatedData(…)` laid out in a temporary buffer (on the stack when small) and passed to
    /// `body`, valid during the call only. Written in one pass through a `ByteWriter`: built from
    /// separate `Data` pieces and appends, this cost 10,000 instructions of every read, and a
    /// `Data` result is two allocations.
    static func withAssociatedData<R, Failure: Error>(
        itemClass: ItemClass, protection: ProtectionClass, persistentID: UUID,
        primaryKeyDigest digestBytes: UnsafeRawBufferPointer, isTombstone: Bool = false,
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> R
    ) throws(Failure) -> R {
        var itemClassName = itemClass.rawValue
        var protectionName = protection.rawValue
        let result = itemClassName.withUTF8 { classBytes in
            protectionName.withUTF8 { protectionBytes in
                withUnsafeBytes(of: persistentID.uuid) { idBytes in
                    let tagLength = associatedDataTag.utf8CodeUnitCount
                    let length = tagLength + 4 + 4 * 4 + classBytes.count + protectionBytes.count + idBytes.count + digestBytes.count
                        + (isTombstone ? 1 : 0)
                    return withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { buffer in
                        var cursor = ByteWriter(buffer)
                        cursor.put(UnsafeRawBufferPointer(start: associatedDataTag.utf8Start, count: tagLength))
                        cursor.put(bigEndian: UInt32(Schema.formatVersion))
                        cursor.putField(UnsafeRawBufferPointer(classBytes))
                        cursor.putField(UnsafeRawBufferPointer(protectionBytes))
                        cursor.putField(idBytes)
                        cursor.putField(digestBytes)
                        if isTombstone { cursor.put(byte: 0x01) }
                        return Result { () throws(Failure) -> R in try body(UnsafeRawBufferPointer(buffer)) }
                    }
                }
            }
        }
        return try result.get()
    }

    private static let associatedDataTag: StaticString = "KCKI"

    /// What a tombstone row stores as its payload: the deletion time (seconds since 2001, `Date`'s
    /// own reference, as a big-endian IEEE double, 8 bytes) and an HMAC, under a key derived from the blind-index key,
    /// of the row's associated data with the tombstone flag and that time. It tells a tombstone
    /// this library wrote from a live row whose flag column was set by an edit, and gives sync the
    /// time of the delete (the newest change wins).
    static func tombstoneMarker(itemClass: ItemClass, protection: ProtectionClass, persistentID: UUID,
                                primaryKeyDigest: Data, deletedAt: Date, key: BlindIndexKey) -> Data {
        var time = Data()
        time.appendBigEndian(deletedAt.timeIntervalSinceReferenceDate.bitPattern)
        return time + tombstoneTag(itemClass: itemClass, protection: protection, persistentID: persistentID,
                                   primaryKeyDigest: primaryKeyDigest, time: time, key: key)
    }

    private static func tombstoneTag(itemClass: ItemClass, protection: ProtectionClass, persistentID: UUID,
                                     primaryKeyDigest: Data, time: Data, key: BlindIndexKey) -> Data {
        let aad = associatedData(itemClass: itemClass, protection: protection, persistentID: persistentID,
                                 primaryKeyDigest: primaryKeyDigest, isTombstone: true)
        return key.authenticationCode(for: Data("tombstone".utf8) + aad + time).withUnsafeBytes { Data($0) }
    }

    /// The deletion time a genuine tombstone records; nil for tombstones written before markers
    /// existed (empty payload), and for rows that are not genuine tombstones.
    static func deletionTime(of row: ItemRow, key: BlindIndexKey) -> Date? {
        guard row.isTombstone, row.wrappedKey.isEmpty, row.payload.count == 40, let digest = row.primaryKeyDigestData else { return nil }
        let time = Data(row.payload.prefix(8))
        let expected = tombstoneTag(itemClass: row.itemClass, protection: row.protection, persistentID: row.persistentID,
                                    primaryKeyDigest: digest, time: time, key: key)
        guard Sealing.constantTimeEquals(Data(row.payload.suffix(32)), expected) else { return nil }
        let bits = time.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
    }

    /// Whether a row flagged as a tombstone is one: no wrapped key, an identity (a 32-byte
    /// digest), and either a valid marker or an empty payload (tombstones written before markers
    /// existed). A flagged row that still holds a sealed item was edited, and must be neither
    /// replaced nor counted as deleted.
    static func isGenuineTombstone(_ row: ItemRow, key: BlindIndexKey) -> Bool {
        guard row.isTombstone, row.wrappedKey.isEmpty, row.primaryKeyDigest != nil else { return false }
        return row.payload.isEmpty || deletionTime(of: row, key: key) != nil
    }

    /// Attributes with every missing NOT NULL primary-key attribute set to its default (the
    /// optional key attributes `vwht` and `tkid` stay absent, as Apple stores them; they still
    /// count as empty in the primary-key digest).
    static func withPrimaryKeyDefaults(_ attributes: [String: AttributeValue], for itemClass: ItemClass) -> [String: AttributeValue] {
        var result = attributes
        for name in itemClass.storedWithDefault where result[name] == nil {
            if let kind = itemClass.attributes[name] { result[name] = kind.defaultValue }
        }
        return result
    }

    /// Keyed digest of an item's identity (class and defaulted primary key): the UNIQUE column.
    /// The message is ``ItemClass/primaryKeyMessage(of:)``.
    static func primaryKeyDigest(of attributes: [String: AttributeValue], for itemClass: ItemClass, key: BlindIndexKey) -> Data {
        let message = itemClass.primaryKeyMessage(of: attributes)
        // Through the precomputed states, as blind indexes: the same MAC as `HMAC<SHA256>`.
        return message.withUnsafeBytes { bytes in key.indexMAC.withCode(for: bytes) { Data($0) } }
    }

    /// Keyed blind index of one attribute value (16 bytes), for equality lookups in SQL.
    static func blindIndex(name: String, value: AttributeValue, kind: AttributeKind, key: BlindIndexKey) -> Data {
        blindIndex(name: name, value: value, kind: kind, mac: key.indexMAC)
    }

    /// The first 16 bytes of HMAC(`"ix"` ‖ field(name) ‖ field(canonical value)), where a field is
    /// a 4-byte big-endian length and the bytes (`Data.appendField`). The message is laid out in
    /// one buffer (on the stack when small) and given to the MAC in one piece, through a cursor
    /// rather than nested functions: a `var` captured by a nested function is boxed and every
    /// access to it checked for exclusivity at run time. Same bytes, so the same index.
    static func blindIndex(name: String, value: AttributeValue, kind: AttributeKind, mac: PrecomputedHMAC) -> Data {
        var name = name
        return name.withUTF8 { nameBytes in
            kind.withCanonicalBytes(of: value) { valueBytes in
                let tagLength = blindIndexTag.utf8CodeUnitCount
                let length = tagLength + 4 + nameBytes.count + 4 + valueBytes.count
                return withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { buffer in
                    var cursor = ByteWriter(buffer)
                    cursor.put(UnsafeRawBufferPointer(start: blindIndexTag.utf8Start, count: tagLength))
                    cursor.put(bigEndian: UInt32(truncatingIfNeeded: nameBytes.count))
                    cursor.put(UnsafeRawBufferPointer(nameBytes))
                    cursor.put(bigEndian: UInt32(truncatingIfNeeded: valueBytes.count))
                    cursor.put(valueBytes)
                    return mac.withCode(for: UnsafeRawBufferPointer(buffer)) { Data(bytes: $0.baseAddress.unsafelyUnwrapped, count: 16) }
                }
            }
        }
    }

    private static let blindIndexTag: StaticString = "ix"

    /// Blind indexes of every indexed attribute the class has (others are NULL).
    static func blindIndexes(of attributes: [String: AttributeValue], for itemClass: ItemClass, key: BlindIndexKey) -> [SQLiteValue] {
        ItemClass.indexedAttributes.map { name in
            guard itemClass.primaryKey.contains(name), let kind = itemClass.attributes[name] else { return .null }
            return .blob(blindIndex(name: name, value: attributes[name] ?? kind.defaultValue, kind: kind, key: key))
        }
    }

    /// Encrypts a payload under a fresh item key wrapped by the class key; `randomness` is the
    /// item key and the two nonces, drawn fresh for this seal and used for nothing else.
    static func seal(_ payload: ItemPayload, classKey: SymmetricKey, associatedData: Data,
                     randomness: SealRandomness) throws(KeychainStoreError) -> (wrappedKey: Data, ciphertext: Data) {
        // The limit is on what the caller stored, not on the padding added to it.
        let stored = payload.unpaddedLength
        guard stored <= maximumPayloadSize else { throw .valueTooLarge(stored, what: "item (value and attributes)") }
        var plaintext = payload.encoded(padded: true)
        defer { Sealing.zero(&plaintext) }
        let ciphertext = try Sealing.seal(plaintext, using: randomness.itemKey, nonce: randomness.payloadNonce, binding: associatedData)
        var keyBytes = Sealing.bytes(of: randomness.itemKey)
        defer { Sealing.zero(&keyBytes) }
        let wrappedKey = try Sealing.seal(keyBytes, using: classKey, nonce: randomness.keyNonce, binding: associatedData)
        return (wrappedKey, ciphertext)
    }

    /// The row's item key re-wrapped from `oldClassKey` to `newClassKey` (a password change);
    /// `.undecodable` if it does not open under the old key.
    static func rewrapItemKey(of row: ItemRow, from oldClassKey: SymmetricKey, to newClassKey: SymmetricKey) throws(KeychainStoreError) -> Data {
        guard let digest = row.primaryKeyDigestData else { throw .undecodable("an item key") }
        let aad = associatedData(itemClass: row.itemClass, protection: row.protection,
                                 persistentID: row.persistentID, primaryKeyDigest: digest)
        var keyBytes = try Sealing.open(row.wrappedKey, using: oldClassKey, binding: aad, what: "an item key")
        defer { Sealing.zero(&keyBytes) }
        guard keyBytes.count == 32 else { throw .undecodable("an item key") }
        return try Sealing.seal(keyBytes, using: newClassKey, binding: aad)
    }

    /// Decrypts a row's payload with its class key; `.undecodable` for any altered byte (a
    /// digest that is not 32 bytes long cannot authenticate either).
    ///
    /// The closures capture the fields they use, not the row: a row captured is copied into each
    /// closure's context (5 copies of every field, about 300 instructions per item read).
    static func open(_ row: ItemRow, classKey: SymmetricKey) throws(KeychainStoreError) -> ItemPayload {
        guard let digest = row.primaryKeyDigest else { throw .undecodable("an item key") }
        let itemClass = row.itemClass, protection = row.protection, persistentID = row.persistentID
        let wrappedKey = row.wrappedKey, payload = row.payload
        return try withUnsafeBytes(of: digest) { digestBytes in
            Result { () throws(KeychainStoreError) -> ItemPayload in
                try withAssociatedData(itemClass: itemClass, protection: protection, persistentID: persistentID,
                                       primaryKeyDigest: digestBytes) { aad throws(KeychainStoreError) in
                    try open(wrappedKey: wrappedKey, payload: payload, classKey: classKey, associatedData: aad)
                }
            }
        }.get()
    }

    /// Unwraps the item key and decrypts the payload, both bound to `associatedData`.
    private static func open(wrappedKey: Data, payload: Data, classKey: SymmetricKey,
                             associatedData aad: UnsafeRawBufferPointer) throws(KeychainStoreError) -> ItemPayload {
        IOSeam.note(.itemDecryption)
        var keyBytes = try Sealing.open(wrappedKey, using: classKey, binding: aad, what: "an item key")
        defer { Sealing.zero(&keyBytes) }
        guard keyBytes.count == 32 else { throw .undecodable("an item key") }
        var plaintext = try Sealing.open(payload, using: SymmetricKey(data: keyBytes), binding: aad, what: "an item")
        defer { Sealing.zero(&plaintext) }
        return try ItemPayload(decoding: plaintext)
    }
}

extension UUID {
    /// The 16 bytes of the UUID.
    var bytes: Data { withUnsafeBytes(of: uuid) { Data($0) } }
}
