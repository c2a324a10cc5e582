import CSQLite
import Foundation

/// Damages stored items in a keychain file the way another writer of the file could: straight
/// through SQLite, bypassing the library (what a tampering tool or a bad restore does). Tests use
/// it to check that a damaged item is reported and named, never read as data.
package enum ItemDamage {
    /// Why the file could not be damaged (SQLite's own message).
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Which stored items to damage.
    package enum Scope {
        /// Every stored item.
        case everyItem
        /// The first item stored (the lowest row id).
        case firstItem
    }

    /// Overwrites the sealed payload of the items in `scope` with zeros of the same length, in the
    /// keychain file at `path`; returns how many items it changed. The connection is closed
    /// before it returns, so no second connection stays open beside the library's.
    @discardableResult
    package static func zeroPayloads(_ scope: Scope, inKeychainAt path: String) throws -> Int {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw Failure(description: "cannot open \(path): \(String(cString: sqlite3_errmsg(handle)))")
        }
        sqlite3_busy_timeout(handle, 30_000)
        let rows = switch scope {
        case .everyItem: ""
        case .firstItem: " WHERE id = (SELECT min(id) FROM items)"
        }
        let update = "UPDATE items SET payload = zeroblob(length(payload))" + rows
        guard sqlite3_exec(handle, update, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "cannot damage the items of \(path): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return Int(sqlite3_changes(handle))
    }
}
