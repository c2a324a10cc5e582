import Foundation

/// The SQL text of the `items` statements, built once instead of at every call (issue 11: a
/// lookup rebuilt and re-joined its `SELECT` each time). The connection keeps one prepared
/// statement per text, so a repeated lookup reuses its plan as well.
enum ItemSQL {
    /// Removes a tombstone with a primary key, before an item with that key takes its place.
    static let deleteTombstone = "DELETE FROM items WHERE class = ? AND pk_digest = ? AND tombstone = 1"

    /// The columns an insert writes, in the order of its arguments.
    private static let insertColumns = ["class", "persistent_id", "protection", "pk_digest", "tombstone"]
        + ItemClass.indexedAttributes.map { "ix_\($0)" } + ["wrapped_key", "payload"]

    private static let insertValues = "(\(insertColumns.joined(separator: ", "))) VALUES (\(placeholders(insertColumns.count)))"

    /// Inserts one row (arguments in the order of `insertColumns`).
    static let insert = "INSERT INTO items \(insertValues)"

    /// Inserts one row, replacing a row with the same unique key (tombstones).
    static let insertOrReplace = "INSERT OR REPLACE INTO items \(insertValues)"

    /// Re-seals one row: protection, digest, every blind index, key and payload, then the row id.
    static let update = "UPDATE items SET "
        + (["protection", "pk_digest"] + ItemClass.indexedAttributes.map { "ix_\($0)" } + ["wrapped_key", "payload"])
            .map { "\($0) = ?" }.joined(separator: ", ")
        + " WHERE id = ?"

    /// Which conditions a lookup has; its SQL text depends on nothing else.
    struct SelectShape: Hashable {
        /// The class whose primary key numbers the index conditions.
        var itemClass: ItemClass
        var persistentID = false
        var protection = false
        /// Bit `i` set: a condition on the blind index of `itemClass.sortedPrimaryKey[i]`.
        var indexedAttributes: UInt32 = 0
        var synchronizable = false
        /// Number of access groups in an `IN` list, or nil for no access-group condition.
        var accessGroupCount: Int?
        /// Whether a `LIMIT ?` ends the statement.
        var limited = false
        /// The columns selected: a lookup's (`ReadRow`), or nil for whole rows (`ItemRow`).
        var columns: ReadRow.Columns?

        /// A number that names this shape's SQL text (for `SQLiteConnection.query(cacheKey:…)`),
        /// or nil for a shape too unusual to name (a long access-group list).
        var cacheKey: Int? {
            guard indexedAttributes < 1 << 16, (accessGroupCount ?? 0) < 255 else { return nil }
            let classNumber: Int  // a switch: `allCases` would build an array at every call
            switch itemClass {
            case .genericPassword: classNumber = 0
            case .internetPassword: classNumber = 1
            case .key: classNumber = 2
            case .certificate: classNumber = 3
            }
            var key = classNumber                                     // bits 0-2
            key |= (columns?.rawValue ?? 0) << 3                       // bits 3-4
            if persistentID { key |= 1 << 5 }
            if protection { key |= 1 << 6 }
            if synchronizable { key |= 1 << 7 }
            if limited { key |= 1 << 8 }
            key |= Int(indexedAttributes) << 9                         // bits 9-24
            key |= (accessGroupCount.map { $0 + 1 } ?? 0) << 25        // bits 25-32
            return key
        }
    }

    /// `SELECT` texts by shape. A keychain sees a handful of shapes; the cache stops growing at
    /// `selectCacheLimit` (beyond that, texts are built per call, as before).
    nonisolated(unsafe) private static var selectCache: [SelectShape: String] = [:]
    private static let selectCacheLock = NSLock()
    private static let selectCacheLimit = 128

    /// The `SELECT` of item rows for `shape`, arguments in the order the shape's fields are listed.
    static func select(_ shape: SelectShape) -> String {
        if let cached = selectCacheLock.withLock({ selectCache[shape] }) { return cached }
        let text = selectText(shape)
        selectCacheLock.withLock {
            if selectCache.count < selectCacheLimit { selectCache[shape] = text }
        }
        return text
    }

    private static func selectText(_ shape: SelectShape) -> String {
        var clauses = ["class = ?", "tombstone = 0"]
        if shape.persistentID { clauses.append("persistent_id = ?") }
        if shape.protection { clauses.append("protection = ?") }
        for (offset, name) in shape.itemClass.sortedPrimaryKey.enumerated() where shape.indexedAttributes & (1 << offset) != 0 {
            clauses.append("ix_\(name) = ?")
        }
        if shape.synchronizable { clauses.append("ix_sync = ?") }
        if let count = shape.accessGroupCount { clauses.append("ix_agrp IN (\(placeholders(count)))") }
        let limit = shape.limited ? " LIMIT ?" : ""
        return "SELECT \(shape.columns?.sql ?? Schema.itemColumns) FROM items WHERE \(clauses.joined(separator: " AND ")) ORDER BY id\(limit)"
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
