import Foundation

/// One `items` row as a lookup reads it: only the columns a lookup uses. The class and the
/// tombstone flag are fixed by its `WHERE` clause and `ix_sync` is never used by a read, so they
/// are not selected: SQLite copies every non-empty text or blob column of a result row into a
/// buffer of its own (one `malloc` each, this build of SQLite has no lookaside), and each blob
/// read into a `Data` is two more allocations (issue 11). The primary-key digest is kept inline,
/// not as a `Data`. Deletes and key rotation read whole rows (`ItemRow`).
struct ReadRow {
    /// What a lookup selects.
    enum Columns: Int {
        /// Identity only (`id`, `persistent_id`, `protection`): matches that need no decryption.
        case identity = 1
        /// Identity, digest, wrapped key and payload: everything a decryption needs.
        case contents = 2

        /// The column list, in the order `ReadRow.init` decodes it.
        var sql: String {
            switch self {
            case .identity: return "id, persistent_id, protection"
            case .contents: return "id, persistent_id, protection, pk_digest, wrapped_key, payload"
            }
        }
    }

    /// A primary-key digest: 32 bytes (HMAC-SHA256), inline.
    typealias Digest = (UInt64, UInt64, UInt64, UInt64)

    var rowID: Int64
    var persistentID: UUID
    var protection: ProtectionClass
    /// The stored primary-key digest; nil when it is not 32 bytes long (no row this library
    /// writes has such a digest: it cannot authenticate, and is reported as such).
    var primaryKeyDigest: Digest?
    /// Empty for `.identity` reads.
    var wrappedKey: Data
    /// Empty for `.identity` reads.
    var payload: Data

    /// Decodes the columns of `columns`; a row whose plain columns are malformed is reported as
    /// undecodable (tampering), never trusted — with the errors `ItemRow` reports.
    init(_ statement: SQLiteStatement, _ columns: Columns) throws(KeychainStoreError) {
        rowID = statement.int64(0)
        let persistentID = statement.withBlob(1) { bytes in
            bytes.count == 16 ? UUID(uuid: bytes.loadUnaligned(as: uuid_t.self)) : nil
        }
        guard let persistentID else { throw .undecodable("an item row (persistent id)") }
        guard let protection = statement.withText(2, { $0.flatMap(ProtectionClass.init(utf8:)) }) else {
            throw .undecodable("an item row (protection class)")
        }
        self.persistentID = persistentID
        self.protection = protection
        guard columns == .contents else {
            primaryKeyDigest = nil
            wrappedKey = Data()
            payload = Data()
            return
        }
        primaryKeyDigest = statement.withBlob(3) { bytes in bytes.count == 32 ? bytes.loadUnaligned(as: Digest.self) : nil }
        wrappedKey = statement.blob(4)
        payload = statement.blob(5)
    }
}

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
