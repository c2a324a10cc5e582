/// The SQL text of the `meta` and `keybag` statements, built from `Schema`'s names.
enum MetaSQL {
    private typealias Meta = Schema.Meta
    private typealias Keybag = Schema.Keybag

    /// One key's value (arguments: the key).
    static let read = "SELECT \(Meta.value) FROM \(Meta.table) WHERE \(Meta.key) = ?"

    /// The keys and values of `count` keys that exist (arguments: the keys).
    static func readKeys(count: Int) -> String {
        "SELECT \(Meta.key), \(Meta.value) FROM \(Meta.table) WHERE \(Meta.key) IN (\(ItemSQL.placeholders(count)))"
    }

    /// Adds a key (arguments: key, value); a key already there is an error.
    static let insert = "INSERT INTO \(Meta.table) (\(Meta.key), \(Meta.value)) VALUES (?, ?)"

    /// Sets a key (arguments: key, value).
    static let write = "INSERT OR REPLACE INTO \(Meta.table) (\(Meta.key), \(Meta.value)) VALUES (?, ?)"

    /// Removes a key (arguments: the key).
    static let delete = "DELETE FROM \(Meta.table) WHERE \(Meta.key) = ?"

    /// Every keybag entry: protection class, wrapped key.
    static let readKeybag = "SELECT \(Keybag.protectionClass), \(Keybag.wrappedKey) FROM \(Keybag.table)"

    /// Adds a keybag entry (arguments: protection class, wrapped key); a class already there is an error.
    static let insertKeybagEntry = "INSERT INTO \(Keybag.table) (\(Keybag.protectionClass), \(Keybag.wrappedKey)) VALUES (?, ?)"

    /// Sets a keybag entry (arguments: protection class, wrapped key).
    static let writeKeybagEntry = "INSERT OR REPLACE INTO \(Keybag.table) (\(Keybag.protectionClass), \(Keybag.wrappedKey)) VALUES (?, ?)"

    /// Removes a keybag entry (arguments: the protection class).
    static let deleteKeybagEntry = "DELETE FROM \(Keybag.table) WHERE \(Keybag.protectionClass) = ?"
}
