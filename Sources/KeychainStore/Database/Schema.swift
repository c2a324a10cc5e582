/// The keychain file's SQL schema and format version.
///
/// Nothing secret or attribute-valued is stored in the clear: `meta` holds the keychain's
/// identity, file key and KDF parameters; `keybag` the wrapped class keys; `items` one row per
/// item with its encrypted payload and keyed (HMAC) blind indexes of its primary-key attributes.
enum Schema {
    /// The current file format. Bound into every keybag entry's and item's associated data, so a
    /// file edited to claim another version fails authentication instead of being misread.
    static let formatVersion: UInt16 = 1

    /// Statements that create a format-1 keychain: its tables, then its lookup indexes.
    static var createStatements: [String] { tableStatements + lookupIndexStatements }

    /// The lookup indexes, partial: a row is entered only in the indexes of the attributes it has
    /// (a generic password has no server, an internet password no service, keys and certificates
    /// neither), so an add writes one page less per index it is not in — 5 pages for a password
    /// instead of 6 (issue 11). SQLite uses a partial index for a lookup whose `WHERE` implies its
    /// condition, which every `ix_… = ?` does. Same names as the full indexes of earlier versions
    /// (`fullLookupIndexStatements`), which `Bootstrap` migrates.
    static let lookupIndexStatements = [
        "CREATE INDEX items_by_service ON items (class, ix_svce) WHERE ix_svce IS NOT NULL",
        "CREATE INDEX items_by_server ON items (class, ix_srvr) WHERE ix_srvr IS NOT NULL",
        "CREATE INDEX items_by_account ON items (class, ix_acct) WHERE ix_acct IS NOT NULL",
    ]

    /// The lookup indexes as files made before the partial indexes have them: every row in each
    /// index, NULL keys too. Accepted at open, and replaced when the file can be written.
    static let fullLookupIndexStatements = [
        "CREATE INDEX items_by_service ON items (class, ix_svce)",
        "CREATE INDEX items_by_server ON items (class, ix_srvr)",
        "CREATE INDEX items_by_account ON items (class, ix_acct)",
    ]

    /// The names of the lookup indexes (the same in both forms).
    static let lookupIndexNames = ["items_by_service", "items_by_server", "items_by_account"]

    /// The tables (with the unique indexes SQLite creates for their constraints).
    private static var tableStatements: [String] {
        let indexColumns = ItemClass.indexedAttributes.map { "ix_\($0) BLOB" }.joined(separator: ", ")
        return [
            "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)",
            "CREATE TABLE keybag (class TEXT PRIMARY KEY NOT NULL, wrapped_key BLOB NOT NULL)",
            """
            CREATE TABLE items (
                id INTEGER PRIMARY KEY,
                class TEXT NOT NULL,
                persistent_id BLOB NOT NULL UNIQUE,
                protection TEXT NOT NULL,
                pk_digest BLOB NOT NULL,
                tombstone INTEGER NOT NULL DEFAULT 0,
                \(indexColumns),
                wrapped_key BLOB NOT NULL,
                payload BLOB NOT NULL,
                UNIQUE (class, pk_digest)
            )
            """,
        ]
    }

    /// Column list used by every item read, in the order `ItemRow` decodes it.
    static let itemColumns = "id, class, persistent_id, protection, pk_digest, tombstone, wrapped_key, payload, ix_sync"

    /// Metadata keys.
    enum MetaKey {
        static let formatVersion = "format_version"
        static let keychainID = "keychain_id"
        static let fileKey = "file_key"
        static let passwordKDF = "password_kdf"
        static let deviceKeyID = "device_key_id"
        static let autoLockSeconds = "auto_lock_seconds"
        /// The key-hierarchy tag (32 bytes): an HMAC over the meta and keybag rows that bind the keys.
        static let hierarchyTag = "hierarchy_mac"
        /// The rollback generation seal: generation (UInt64, big-endian) then the 32-byte tag.
        static let generationSeal = "generation_seal"
    }
}
