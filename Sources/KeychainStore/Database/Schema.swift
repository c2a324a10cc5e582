import KeychainVocabulary
/// The keychain file's SQL schema and format version.
///
/// Nothing secret or attribute-valued is stored in the clear: `meta` holds the keychain's
/// identity, file key and KDF parameters; `keybag` the wrapped class keys; `items` one row per
/// item with its encrypted payload and keyed (HMAC) blind indexes of its primary-key attributes.
enum Schema {
    /// The current file format. Bound into every keybag entry's and item's associated data, so a
    /// file edited to claim another version fails authentication instead of being misread.
    static let formatVersion: UInt16 = 1

    /// The `meta` table: the keychain's identity, file key, KDF parameters and settings, one row
    /// per key (`MetaKey`).
    enum Meta {
        static let table = "meta"
        static let key = "key"
        static let value = "value"
    }

    /// The `keybag` table: one wrapped class key per protection class.
    enum Keybag {
        static let table = "keybag"
        /// The protection class's name (`ProtectionClass.rawValue`).
        static let protectionClass = "class"
        static let wrappedKey = "wrapped_key"
    }

    /// The `items` table: one row per item or tombstone.
    enum Items {
        static let table = "items"
        /// SQLite's row id.
        static let rowID = "id"
        /// The item class's name (`ItemClass.rawValue`).
        static let itemClass = "class"
        /// The 16 bytes of the item's persistent UUID.
        static let persistentID = "persistent_id"
        /// The protection class's name (`ProtectionClass.rawValue`).
        static let protection = "protection"
        /// The keyed primary-key digest (32 bytes): the item's identity, unique per class.
        static let primaryKeyDigest = "pk_digest"
        /// 1 for a deleted synchronizable item (a tombstone), else 0.
        static let tombstone = "tombstone"
        /// The item key, sealed under the class key.
        static let wrappedKey = "wrapped_key"
        /// The attributes and data, sealed under the item key (a tombstone's marker).
        static let payload = "payload"

        /// The blind-index column of the primary-key attribute `attribute` (`ix_acct`, …).
        static func blindIndex(of attribute: String) -> String { "ix_" + attribute }
        /// Every blind-index column, in the order of `ItemClass.indexedAttributes`.
        static let blindIndexes = ItemClass.indexedAttributes.map(blindIndex(of:))
        /// The blind index of `kSecAttrSynchronizable`.
        static let synchronizableIndex = blindIndex(of: "sync")
        /// The blind index of `kSecAttrAccessGroup`.
        static let accessGroupIndex = blindIndex(of: "agrp")

        /// The lookup indexes, by the attribute they index.
        static let byService = "items_by_service"
        static let byServer = "items_by_server"
        static let byAccount = "items_by_account"
    }

    /// Statements that create a format-1 keychain: its tables, then its lookup indexes.
    static var createStatements: [String] { tableStatements + lookupIndexStatements }

    /// The lookup indexes, partial: a row is entered only in the indexes of the attributes it has
    /// (a generic password has no server, an internet password no service, keys and certificates
    /// neither), so an add writes one page less per index it is not in — 5 pages for a password
    /// instead of 6. SQLite uses a partial index for a lookup whose `WHERE` implies its
    /// condition, which every `ix_… = ?` does. Same names as the full indexes of earlier versions
    /// (`fullLookupIndexStatements`), which `Bootstrap` migrates.
    static let lookupIndexStatements = lookupIndexes.map { name, column in
        "CREATE INDEX \(name) ON \(Items.table) (\(Items.itemClass), \(column)) WHERE \(column) IS NOT NULL"
    }

    /// The lookup indexes as files made before the partial indexes have them: every row in each
    /// index, NULL keys too. Accepted at open, and replaced when the file can be written.
    static let fullLookupIndexStatements = lookupIndexes.map { name, column in
        "CREATE INDEX \(name) ON \(Items.table) (\(Items.itemClass), \(column))"
    }

    /// The names of the lookup indexes (the same in both forms).
    static let lookupIndexNames = lookupIndexes.map(\.name)

    /// Each lookup index and the blind-index column it indexes (with the class).
    private static let lookupIndexes: [(name: String, column: String)] = [
        (Items.byService, Items.blindIndex(of: "svce")),
        (Items.byServer, Items.blindIndex(of: "srvr")),
        (Items.byAccount, Items.blindIndex(of: "acct")),
    ]

    /// The tables (with the unique indexes SQLite creates for their constraints). The text is
    /// part of the file format: `Bootstrap` refuses a file whose stored schema differs from it.
    private static var tableStatements: [String] {
        let indexColumns = Items.blindIndexes.map { "\($0) BLOB" }.joined(separator: ", ")
        return [
            "CREATE TABLE \(Meta.table) (\(Meta.key) TEXT PRIMARY KEY NOT NULL, \(Meta.value) BLOB NOT NULL)",
            "CREATE TABLE \(Keybag.table) (\(Keybag.protectionClass) TEXT PRIMARY KEY NOT NULL, \(Keybag.wrappedKey) BLOB NOT NULL)",
            """
            CREATE TABLE \(Items.table) (
                \(Items.rowID) INTEGER PRIMARY KEY,
                \(Items.itemClass) TEXT NOT NULL,
                \(Items.persistentID) BLOB NOT NULL UNIQUE,
                \(Items.protection) TEXT NOT NULL,
                \(Items.primaryKeyDigest) BLOB NOT NULL,
                \(Items.tombstone) INTEGER NOT NULL DEFAULT 0,
                \(indexColumns),
                \(Items.wrappedKey) BLOB NOT NULL,
                \(Items.payload) BLOB NOT NULL,
                UNIQUE (\(Items.itemClass), \(Items.primaryKeyDigest))
            )
            """,
        ]
    }

    /// Metadata keys (rows of `meta`).
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

        /// Every key the format defines.
        static let all = [formatVersion, keychainID, fileKey, passwordKDF, deviceKeyID, autoLockSeconds, hierarchyTag, generationSeal]
    }
}
