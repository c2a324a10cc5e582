import Crypto
import Foundation

/// One row of the `items` table as read from SQL, before decryption.
struct ItemRow {
    var rowID: Int64
    var itemClass: ItemClass
    var persistentID: UUID
    var protection: ProtectionClass
    var primaryKeyDigest: Data
    var isTombstone: Bool
    var wrappedKey: Data
    var payload: Data
    /// The blind index of the `sync` attribute (tells synchronizable items without decrypting).
    var syncIndex: Data

    /// Decodes the columns listed in `Schema.itemColumns`; a row whose plain columns are
    /// malformed is reported as undecodable (tampering), never trusted.
    init(_ statement: SQLiteStatement) throws(KeychainStoreError) {
        rowID = statement.int64(0)
        guard let className = statement.text(1), let itemClass = ItemClass(rawValue: className) else {
            throw .undecodable("an item row (class)")
        }
        let idBytes = statement.blob(2)
        guard idBytes.count == 16 else { throw .undecodable("an item row (persistent id)") }
        guard let protectionName = statement.text(3), let protection = ProtectionClass(rawValue: protectionName) else {
            throw .undecodable("an item row (protection class)")
        }
        self.itemClass = itemClass
        self.persistentID = UUID(uuid: idBytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
        self.protection = protection
        primaryKeyDigest = statement.blob(4)
        isTombstone = statement.int64(5) != 0
        wrappedKey = statement.blob(6)
        payload = statement.blob(7)
        syncIndex = statement.blob(8)
    }
}

/// The blind-index key, with HMAC-SHA256 keyed with it once. Every blind index and primary-key
/// digest starts from a copy of that keyed state (HMAC is a value type; the copy's hash contexts
/// are copied on first write) instead of keying HMAC again: re-keying cost about half of each
/// index, and a lookup computes four of them (issue 7).
struct BlindIndexKey {
    /// The key itself.
    let key: SymmetricKey
    private let keyed: HMAC<SHA256>

    /// The blind indexes of `sync` = 0 and `sync` = 1: every lookup binds one, so they are
    /// computed once per key.
    private let synchronizableIndexes: (no: Data, yes: Data)

    init(_ key: SymmetricKey) {
        self.key = key
        let keyed = HMAC<SHA256>(key: key)
        self.keyed = keyed
        synchronizableIndexes = (
            ItemRecord.blindIndex(name: "sync", value: .number(0), kind: .number, keyed: keyed),
            ItemRecord.blindIndex(name: "sync", value: .number(1), kind: .number, keyed: keyed))
    }

    /// The blind index of the `sync` attribute (what `ItemRecord.blindIndex` gives for it).
    func synchronizableIndex(_ synchronizable: Bool) -> Data {
        synchronizable ? synchronizableIndexes.yes : synchronizableIndexes.no
    }

    /// The HMAC, keyed, with nothing fed to it yet (a copy: the caller feeds and finalises it).
    var freshMAC: HMAC<SHA256> { keyed }

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
    static let maximumPayloadSize = 16 << 20

    /// Associated data binding an item's ciphertexts to its row: format version, class,
    /// protection class, persistent identity, primary-key digest and tombstone flag.
    static func associatedData(itemClass: ItemClass, protection: ProtectionClass, persistentID: UUID,
                               primaryKeyDigest: Data) -> Data {
        var aad = Data("KCKI".utf8)
        aad.appendBigEndian(UInt32(Schema.formatVersion))
        aad.appendField(Data(itemClass.rawValue.utf8))
        aad.appendField(Data(protection.rawValue.utf8))
        aad.appendField(persistentID.bytes)
        aad.appendField(primaryKeyDigest)
        return aad
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
    static func primaryKeyDigest(of attributes: [String: AttributeValue], for itemClass: ItemClass, key: BlindIndexKey) -> Data {
        var message = Data("pk".utf8)
        message.appendField(Data(itemClass.rawValue.utf8))
        for name in itemClass.primaryKey {
            let kind = itemClass.attributes[name] ?? .blob
            let value = attributes[name] ?? kind.defaultValue
            message.appendField(Data(name.utf8))
            message.appendField(kind.canonicalBytes(of: value))
        }
        return Data(key.authenticationCode(for: message))
    }

    /// Keyed blind index of one attribute value (16 bytes), for equality lookups in SQL.
    static func blindIndex(name: String, value: AttributeValue, kind: AttributeKind, key: BlindIndexKey) -> Data {
        blindIndex(name: name, value: value, kind: kind, keyed: key.freshMAC)
    }

    /// The first 16 bytes of HMAC(`"ix"` ‖ field(name) ‖ field(canonical value)), where a field is
    /// a 4-byte big-endian length and the bytes (`Data.appendField`). The pieces are fed to the
    /// MAC one after the other instead of being joined into one message first: the same bytes,
    /// so the same index, with four fewer allocations per index (issue 11; a lookup computes
    /// three or four of them).
    static func blindIndex(name: String, value: AttributeValue, kind: AttributeKind, keyed: HMAC<SHA256>) -> Data {
        var mac = keyed
        mac.update(data: blindIndexTag)
        var name = name
        name.withUTF8 { updateField(&mac, UnsafeRawBufferPointer($0)) }
        kind.canonicalBytes(of: value).withUnsafeBytes { updateField(&mac, $0) }
        return mac.finalize().withUnsafeBytes { Data($0.prefix(16)) }
    }

    private static let blindIndexTag = Data("ix".utf8)

    /// Feeds one length-prefixed field to `mac`, as `Data.appendField` lays it out.
    private static func updateField(_ mac: inout HMAC<SHA256>, _ bytes: UnsafeRawBufferPointer) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).bigEndian) { mac.update(data: $0) }
        mac.update(data: bytes)
    }

    /// Blind indexes of every indexed attribute the class has (others are NULL).
    static func blindIndexes(of attributes: [String: AttributeValue], for itemClass: ItemClass, key: BlindIndexKey) -> [SQLiteValue] {
        ItemClass.indexedAttributes.map { name in
            guard itemClass.primaryKey.contains(name), let kind = itemClass.attributes[name] else { return .null }
            return .blob(blindIndex(name: name, value: attributes[name] ?? kind.defaultValue, kind: kind, key: key))
        }
    }

    /// Encrypts a payload under a fresh item key wrapped by the class key.
    static func seal(_ payload: ItemPayload, classKey: SymmetricKey, associatedData: Data) throws(KeychainStoreError) -> (wrappedKey: Data, ciphertext: Data) {
        var plaintext = payload.encoded()
        defer { Sealing.zero(&plaintext) }
        guard plaintext.count <= maximumPayloadSize else {
            throw .invalidParameter("the item is larger than the 16 MiB limit")
        }
        let itemKey = Sealing.randomKey()
        let ciphertext = try Sealing.seal(plaintext, using: itemKey, binding: associatedData)
        var keyBytes = Sealing.bytes(of: itemKey)
        defer { Sealing.zero(&keyBytes) }
        let wrappedKey = try Sealing.seal(keyBytes, using: classKey, binding: associatedData)
        return (wrappedKey, ciphertext)
    }

    /// Decrypts a row's payload with its class key; `.undecodable` for any altered byte.
    static func open(_ row: ItemRow, classKey: SymmetricKey) throws(KeychainStoreError) -> ItemPayload {
        let aad = associatedData(itemClass: row.itemClass, protection: row.protection,
                                 persistentID: row.persistentID, primaryKeyDigest: row.primaryKeyDigest)
        IOSeam.note(.itemDecryption)
        var keyBytes = try Sealing.open(row.wrappedKey, using: classKey, binding: aad, what: "an item key")
        defer { Sealing.zero(&keyBytes) }
        guard keyBytes.count == 32 else { throw .undecodable("an item key") }
        var plaintext = try Sealing.open(row.payload, using: SymmetricKey(data: keyBytes), binding: aad, what: "an item")
        defer { Sealing.zero(&plaintext) }
        return try ItemPayload(decoding: plaintext)
    }
}

extension UUID {
    /// The 16 bytes of the UUID.
    var bytes: Data { withUnsafeBytes(of: uuid) { Data($0) } }
}
