#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import KeychainVocabulary

/// The SQL text of the `items` statements, built from `Schema`'s names once instead of at every
/// call (a lookup rebuilt and re-joined its `SELECT` each time). The connection keeps
/// one prepared statement per text, so a repeated statement reuses its plan as well.
enum ItemSQL {
    private typealias Items = Schema.Items

    /// Removes a tombstone with a primary key, before an item with that key takes its place.
    static let deleteTombstone = "DELETE FROM \(Items.table) WHERE \(Items.itemClass) = ? AND \(Items.primaryKeyDigest) = ? AND \(Items.tombstone) = 1"

    /// Removes one row (arguments: the row id).
    static let deleteRow = "DELETE FROM \(Items.table) WHERE \(Items.rowID) = ?"

    /// Removes every row of a protection class (arguments: the class), tombstones too.
    static let deleteProtection = "DELETE FROM \(Items.table) WHERE \(Items.protection) = ?"

    /// Turns a row into a tombstone (arguments: its marker, the row id).
    static let markTombstone = "UPDATE \(Items.table) SET \(Items.tombstone) = 1, \(Items.wrappedKey) = x'', \(Items.payload) = ? WHERE \(Items.rowID) = ?"

    /// Replaces one row's wrapped item key (arguments: the key, the row id).
    static let rewrapKey = "UPDATE \(Items.table) SET \(Items.wrappedKey) = ? WHERE \(Items.rowID) = ?"

    /// Number of live items.
    static let countLive = "SELECT count(*) FROM \(Items.table) WHERE \(Items.tombstone) = 0"

    /// The columns an insert writes, in the order of its arguments.
    private static let insertColumns = [Items.itemClass, Items.persistentID, Items.protection, Items.primaryKeyDigest, Items.tombstone]
        + Items.blindIndexes + [Items.wrappedKey, Items.payload]

    private static let insertValues = "(\(insertColumns.joined(separator: ", "))) VALUES (\(placeholders(insertColumns.count)))"

    /// Inserts one row (arguments in the order of `insertColumns`).
    static let insert = "INSERT INTO \(Items.table) \(insertValues)"

    /// Inserts one row, replacing a row with the same unique key (tombstones).
    static let insertOrReplace = "INSERT OR REPLACE INTO \(Items.table) \(insertValues)"

    /// Re-seals one row: protection, digest, every blind index, key and payload, then the row id.
    static let update = assigning([Items.protection, Items.primaryKeyDigest] + Items.blindIndexes + [Items.wrappedKey, Items.payload])

    /// Re-seals one row keeping its identity: protection, every blind index, key and payload, then the row id.
    static let updateKeepingIdentity = assigning([Items.protection] + Items.blindIndexes + [Items.wrappedKey, Items.payload])

    private static func assigning(_ columns: [String]) -> String {
        "UPDATE \(Items.table) SET " + columns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE \(Items.rowID) = ?"
    }

    // MARK: Whole-row reads (`ItemRow.Columns.whole`)

    private static let selectWhole = "SELECT \(ItemRow.Columns.whole.sql) FROM \(Items.table) WHERE "

    /// The live row with an identity (arguments: class, digest).
    static let liveRowOfIdentity = selectWhole + "\(Items.itemClass) = ? AND \(Items.primaryKeyDigest) = ? AND \(Items.tombstone) = 0"

    /// The rows flagged as tombstones of an identity (arguments: class, digest).
    static let tombstonesOfIdentity = selectWhole + "\(Items.itemClass) = ? AND \(Items.primaryKeyDigest) = ? AND \(Items.tombstone) = 1"

    /// The row with a persistent id (arguments: its 16 bytes).
    static let rowOfPersistentID = selectWhole + "\(Items.persistentID) = ?"

    /// The live rows of a protection class (arguments: the class).
    static let liveRowsOfProtection = selectWhole + "\(Items.protection) = ? AND \(Items.tombstone) = 0"

    /// Rows that may leave the device: live ones marked synchronizable, and tombstones, of
    /// `classCount` item classes and `protectionCount` protection classes (arguments: the item
    /// classes, the protection classes, the `sync` = 1 blind index).
    static func portableRows(classCount: Int, protectionCount: Int) -> String {
        selectWhole + "\(Items.itemClass) IN (\(placeholders(classCount))) AND \(Items.protection) IN (\(placeholders(protectionCount)))"
            + " AND (\(Items.tombstone) = 1 OR \(Items.synchronizableIndex) = ?) ORDER BY \(Items.rowID)"
    }

    // MARK: Lookups

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
        /// The columns selected.
        var columns: ItemRow.Columns = .whole

        /// A number that names this shape's SQL text (for `SQLiteConnection.forEachRow(cacheKey:…)`),
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
            key |= columns.rawValue << 3                               // bits 3-4
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
    private static let selectCacheLock = Mutex(())
    private static let selectCacheLimit = 128

    /// The `SELECT` of item rows for `shape`, arguments in the order the shape's fields are listed.
    static func select(_ shape: SelectShape) -> String {
        if let cached = selectCacheLock.withLock({ _ in selectCache[shape] }) { return cached }
        let text = selectText(shape)
        selectCacheLock.withLock { _ in
            if selectCache.count < selectCacheLimit { selectCache[shape] = text }
        }
        return text
    }

    private static func selectText(_ shape: SelectShape) -> String {
        var clauses = ["\(Items.itemClass) = ?", "\(Items.tombstone) = 0"]
        if shape.persistentID { clauses.append("\(Items.persistentID) = ?") }
        if shape.protection { clauses.append("\(Items.protection) = ?") }
        for (offset, name) in shape.itemClass.sortedPrimaryKey.enumerated() where shape.indexedAttributes & (1 << offset) != 0 {
            clauses.append("\(Items.blindIndex(of: name)) = ?")
        }
        if shape.synchronizable { clauses.append("\(Items.synchronizableIndex) = ?") }
        if let count = shape.accessGroupCount { clauses.append("\(Items.accessGroupIndex) IN (\(placeholders(count)))") }
        let limit = shape.limited ? " LIMIT ?" : ""
        return "SELECT \(shape.columns.sql) FROM \(Items.table) WHERE \(clauses.joined(separator: " AND ")) ORDER BY \(Items.rowID)\(limit)"
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
