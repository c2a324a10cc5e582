#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// One `items` row as the store reads it: the only type rows become, through the one reading path
/// (`KeychainDatabase.readItemRows`), and the one every decryption starts from.
///
/// A read selects only the columns it uses (`Columns`), each set the one before it plus more, in
/// the order this type decodes them. SQLite copies every non-empty text or blob column of a result
/// row into a buffer of its own (one `malloc` each, this build of SQLite has no lookaside), and
/// each blob read into a `Data` is two more allocations: a lookup, whose `WHERE` fixes
/// the class and the tombstone flag, reads neither, nor the `sync` index. The primary-key digest
/// is kept inline, not as a `Data`.
struct ItemRow {
    /// What a read selects.
    enum Columns: Int {
        /// Identity only (row id, persistent id, protection): matches that need no decryption.
        case identity = 1
        /// Identity, digest, wrapped key and payload: everything a decryption needs.
        case contents = 2
        /// Everything: also the class, the tombstone flag and the `sync` blind index (deletes,
        /// tombstones, key rotation, sync).
        case whole = 3

        /// The column list, in the order `ItemRow.init` decodes it (built once per case).
        var sql: String {
            switch self {
            case .identity: return Self.identitySQL
            case .contents: return Self.contentsSQL
            case .whole: return Self.wholeSQL
            }
        }

        private static let identityNames = [Schema.Items.rowID, Schema.Items.persistentID, Schema.Items.protection]
        private static let contentsNames = identityNames + [Schema.Items.primaryKeyDigest, Schema.Items.wrappedKey, Schema.Items.payload]
        private static let wholeNames = contentsNames + [Schema.Items.itemClass, Schema.Items.tombstone, Schema.Items.synchronizableIndex]
        private static let identitySQL = identityNames.joined(separator: ", ")
        private static let contentsSQL = contentsNames.joined(separator: ", ")
        private static let wholeSQL = wholeNames.joined(separator: ", ")
    }

    /// A primary-key digest: 32 bytes (HMAC-SHA256), inline.
    typealias Digest = (UInt64, UInt64, UInt64, UInt64)

    var rowID: Int64
    /// Read from the row for `.whole` reads; for the others, the class the read's `WHERE` fixed.
    var itemClass: ItemClass
    var persistentID: UUID
    var protection: ProtectionClass
    /// The stored primary-key digest; nil when it is not 32 bytes long (no row this library
    /// writes has such a digest: it cannot authenticate, and is reported as such), and for
    /// `.identity` reads.
    var primaryKeyDigest: Digest?
    /// Empty for `.identity` reads.
    var wrappedKey: Data
    /// Empty for `.identity` reads.
    var payload: Data
    /// False unless a `.whole` read found the tombstone flag set.
    var isTombstone: Bool
    /// The blind index of the `sync` attribute (tells synchronizable items without decrypting),
    /// inline; nil unless `.whole`, or when it is not 16 bytes long. Inline, not a `Data`: every
    /// `Data` field makes each copy and destruction of a row cost more, and a lookup's rows,
    /// which never read it, are copied several times (a `Data` here cost 500 instructions per row
    /// of a read of 1,000 items).
    var syncIndex: BlindIndex?

    /// A blind index: 16 bytes.
    typealias BlindIndex = (UInt64, UInt64)

    /// Whether the row's `sync` blind index is `index`.
    func hasSyncIndex(_ index: Data) -> Bool {
        guard let syncIndex else { return false }
        return withUnsafeBytes(of: syncIndex) { $0.elementsEqual(index) }
    }

    /// Decodes the columns of `columns`; `itemClass` is the class the read's `WHERE` fixed (nil
    /// only for `.whole` reads, which read it). A row whose plain columns are malformed is
    /// reported as undecodable (tampering), never trusted.
    init(_ statement: SQLiteStatement, _ columns: Columns, itemClass fixedClass: ItemClass?) throws(KeychainStoreError) {
        rowID = statement.int64(0)
        // Read in place: a 16-byte `Data` is a heap allocation.
        let persistentID = statement.withBlob(1) { bytes in
            bytes.count == 16 ? UUID(uuid: bytes.loadUnaligned(as: uuid_t.self)) : nil
        }
        guard let persistentID else { throw .undecodable("an item row (persistent id)") }
        guard let protection = statement.withText(2, { $0.flatMap(ProtectionClass.init(utf8:)) }) else {
            throw .undecodable("an item row (protection class)")
        }
        self.persistentID = persistentID
        self.protection = protection
        isTombstone = false
        syncIndex = nil
        guard columns != .identity else {
            guard let fixedClass else { throw .internalFailure("item read without its class") }
            itemClass = fixedClass
            primaryKeyDigest = nil
            wrappedKey = Data()
            payload = Data()
            return
        }
        primaryKeyDigest = statement.withBlob(3) { bytes in bytes.count == 32 ? bytes.loadUnaligned(as: Digest.self) : nil }
        wrappedKey = statement.blob(4)
        payload = statement.blob(5)
        guard columns == .whole else {
            guard let fixedClass else { throw .internalFailure("item read without its class") }
            itemClass = fixedClass
            return
        }
        guard let itemClass = statement.withText(6, { $0.flatMap(ItemClass.init(utf8:)) }) else {
            throw .undecodable("an item row (class)")
        }
        self.itemClass = itemClass
        isTombstone = statement.int64(7) != 0
        syncIndex = statement.withBlob(8) { bytes in bytes.count == 16 ? bytes.loadUnaligned(as: BlindIndex.self) : nil }
    }

    /// The primary-key digest as bytes; nil when the stored one is not 32 bytes long.
    var primaryKeyDigestData: Data? {
        primaryKeyDigest.map { digest in withUnsafeBytes(of: digest) { Data($0) } }
    }
}

// The two initialisers below are the same code for two enumerations on purpose: one generic
// version over `CaseIterable & RawRepresentable` was not specialised and cost 110–150 more
// instructions per `SecItemCopyMatching` (callgrind, release `keychain-bench-profile read 1000`,
// 1,100 minus 100 iterations), for 13 lines saved.
extension ProtectionClass {
    /// The class named by these UTF-8 bytes, without making a `String` of them first.
    init?(utf8 bytes: UnsafeRawBufferPointer) {
        for candidate in Self.allCases {
            var name = candidate.rawValue
            let equal = name.withUTF8 { $0.elementsEqual(bytes) }
            if equal {
                self = candidate
                return
            }
        }
        return nil
    }
}

extension ItemClass {
    /// The class named by these UTF-8 bytes, without making a `String` of them first.
    init?(utf8 bytes: UnsafeRawBufferPointer) {
        for candidate in Self.allCases {
            var name = candidate.rawValue
            let equal = name.withUTF8 { $0.elementsEqual(bytes) }
            if equal {
                self = candidate
                return
            }
        }
        return nil
    }
}
