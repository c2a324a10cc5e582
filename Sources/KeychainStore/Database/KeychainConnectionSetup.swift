/// The settings every connection to a keychain runs with, in one place: the connection that
/// creates a new file and the ones that open it later must agree on durability and on what may
/// reach the disk.
enum KeychainConnectionSetup {
    /// Applies the keychain's settings to `connection`; `inMemory` for `":memory:"` databases,
    /// which have no write-ahead log.
    static func apply(to connection: SQLiteConnection, inMemory: Bool) throws(SQLiteError) {
        // The file says WAL from its creation on, as every keychain file does.
        if !inMemory { try connection.execute("PRAGMA journal_mode = WAL") }
        // FULL: a commit is on disk (WAL fsynced) before SecItem* reports success.
        try connection.execute("PRAGMA synchronous = FULL")
        try connection.execute("PRAGMA secure_delete = ON")
        // Statement journals and temporary tables stay in memory: nothing reaches a temp file.
        try connection.execute("PRAGMA temp_store = MEMORY")
        // Up to 16 MiB of pages (SQLite's default: 2 MiB), taken only as pages are read: the
        // lookup index of a 100,000-item keychain (about 3.3 MiB) no longer falls out of the
        // cache, so a lookup there reads fewer pages from the file. A small keychain
        // uses what it always used.
        try connection.execute("PRAGMA cache_size = -16384")
        if !inMemory { try connection.execute(WriteAheadLog.pragmas) }  // bounded WAL (+Checkpoint)
    }
}
