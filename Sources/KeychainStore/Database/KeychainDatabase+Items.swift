import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary
import KeychainItemCodec

extension KeychainDatabase {
    /// Adds an item. Fails with `.locked` if its class key is unavailable — before the
    /// uniqueness check, as on Apple platforms — and `.duplicateItem` if a live item has the same
    /// primary key (a tombstone with that key is replaced).
    ///
    /// One write transaction and nothing before it: the key hierarchy is checked under the write
    /// lock (`transaction`), not also in a read transaction of its own first (a
    /// `PRAGMA data_version` statement and two `fcntl` locks per add).
    package func insert(_ item: NewItem) throws(KeychainStoreError) -> KeychainItem {
        try withLock(checkingHierarchy: false) { () throws(KeychainStoreError) in
            _ = try keybag.classKey(for: item.protection)  // locked: refused before anything else
            var attributes = ItemRecord.withPrimaryKeyDefaults(item.attributes, for: item.itemClass)
            let now = currentDate()
            attributes["cdat"] = .date(now)
            attributes["mdat"] = .date(now)
            let randomness = try ItemRandomness.draw()
            let stored = KeychainItem(itemClass: item.itemClass, persistentID: randomness.persistentID, protection: item.protection,
                                      accessControl: item.accessControl, attributes: attributes, data: item.data,
                                      isDecrypted: true)
            try transaction { () throws(KeychainStoreError) in
                // The hierarchy check `transaction` just made may have adopted another process's
                // settings or password change: the auto-lock check runs again with them, as
                // `withLock` runs it for other calls.
                if let now = lastActivity { lockIfIdle(now: now, since: activityBeforeCall) }
                // Sealed under the write lock, with the class key as it is now (another process
                // may have replaced it while this one waited).
                let record = try sealedRecord(for: stored, classKey: try keybag.classKey(for: item.protection),
                                              randomness: randomness.seal)
                try insertReplacingTombstone(stored, record)
            }
            return stored
        }
    }

    /// Inserts the row; if its identity is taken, by a tombstone, replaces that tombstone.
    /// Tombstones are rare (synchronizable items deleted), so the row is tried first and the
    /// tombstone looked for only when the `UNIQUE (class, pk_digest)` constraint refuses it,
    /// instead of a `SELECT` before every add. A refused `INSERT` changes nothing
    /// (SQLite undoes the one statement), and the transaction goes on.
    private func insertReplacingTombstone(_ item: KeychainItem, _ record: SealedRecord) throws(KeychainStoreError) {
        do {
            try insertRow(item, record)
        } catch .duplicateItem {
            guard try removeTombstones(of: item.itemClass, digest: record.digest) > 0 else { throw .duplicateItem }
            try insertRow(item, record)
        }
    }

    /// Items matching `query`, in insertion order, at most `query.limit`. With `decrypt` false
    /// and a query answerable from blind indexes alone, items are returned without their
    /// contents and no class key is needed.
    package func find(_ query: ItemQuery, decrypt: Bool) throws(KeychainStoreError) -> [KeychainItem] {
        try findCountingUnreadable(query, decrypt: decrypt).items
    }

    /// ``find(_:decrypt:)``, with how many matching rows could not be decrypted and were left
    /// out (Apple skips them silently; the caller's tools say so).
    package func findCountingUnreadable(_ query: ItemQuery, decrypt: Bool) throws(KeychainStoreError) -> Matches {
        try withLock(checkingHierarchy: false) { () throws(KeychainStoreError) in
            try matches(query, decrypt: decrypt, checkingHierarchy: true)
        }
    }

    /// The items a read found, and how many matching rows it skipped as unreadable.
    package struct Matches {
        /// The readable matching items.
        package var items: [KeychainItem]
        /// How many matching rows could not be decrypted (damaged or altered) and were left out.
        package var unreadable: Int
        /// Why the first of them could not be read, naming it (``KeychainStoreError/Reason/damagedItem(name:detail:)``).
        package var firstUnreadable: KeychainStoreError?
    }

    /// Applies `changes` to every item matching `query`, atomically: if any change would collide
    /// with another item, nothing changes (`.duplicateItem`). Returns the number of items updated.
    ///
    /// An item with access-control constraints changes only if its persistent id is in
    /// `satisfiedItems` — the caller satisfied its constraints (the same ones that guard reading
    /// its secret) — otherwise nothing changes (`.accessControlNotSatisfied`): removing or
    /// re-binding a constraint, or changing the accessibility, must cost what reading costs.
    @discardableResult
    package func update(_ query: ItemQuery, with changes: ItemChanges,
                       satisfiedItems: Set<UUID> = []) throws(KeychainStoreError) -> Int {
        try withLock { () throws(KeychainStoreError) in
            try transaction { () throws(KeychainStoreError) in
                var unlimited = query
                unlimited.limit = nil
                let matches = try matchingItems(unlimited, decrypt: true)
                guard !matches.isEmpty else { throw .itemNotFound }
                // Checked under the write lock: an item that gained a constraint after the caller
                // looked is not changed either.
                for old in matches where old.accessControl?.hasConstraints == true && !satisfiedItems.contains(old.persistentID) {
                    throw .accessControlNotSatisfied
                }
                for old in matches { try apply(changes, to: old) }
                return matches.count
            }
        }
    }

    /// Deletes every item matching `query`; synchronizable items leave a tombstone.
    /// Returns the number of items deleted.
    ///
    /// Each candidate the blind indexes select is decrypted and matched again on its own
    /// attributes, as reads are: an index column edited on disk must not make a delete reach
    /// another item. A row that no longer decrypts at all (its contents are lost already) is
    /// deleted on its indexes, so that damaged items can still be removed. A locked class fails
    /// the whole call (`.locked`) and nothing is deleted.
    @discardableResult
    package func delete(_ query: ItemQuery) throws(KeychainStoreError) -> Int {
        try withLock { () throws(KeychainStoreError) in
            try transaction { () throws(KeychainStoreError) in
                var unlimited = query
                unlimited.limit = nil
                let (shape, arguments) = selectStatement(for: unlimited, columns: .whole)
                let read = try readRows(shape, arguments)
                var deleted = 0
                for row in read.rows {
                    let isSynchronizable: Bool
                    do throws(KeychainStoreError) {
                        let item = try decryptRow(row)
                        guard matches(item, unlimited) else { continue }
                        isSynchronizable = AttributeKind.number.matches(item.attributes["sync"] ?? .number(0), .number(1))
                    } catch .locked {
                        throw .locked
                    } catch {
                        isSynchronizable = row.hasSyncIndex(syncIndex(true))
                    }
                    // A tombstone names the item by its digest; a row without one (edited) has no
                    // identity to hand on, and is removed.
                    if isSynchronizable, let digest = row.primaryKeyDigestData {
                        let marker = ItemRecord.tombstoneMarker(itemClass: row.itemClass, protection: row.protection,
                                                                persistentID: row.persistentID,
                                                                primaryKeyDigest: digest, deletedAt: currentDate(), key: indexKey)
                        try run(ItemSQL.markTombstone, [.blob(marker), .integer(row.rowID)])
                    } else {
                        try run(ItemSQL.deleteRow, [.integer(row.rowID)])
                    }
                    deleted += 1
                }
                if deleted == 0 { throw read.firstFailure ?? .itemNotFound }
                return deleted
            }
        }
    }

    /// Removes the tombstones of the identity `digest` before a live item takes it, and returns
    /// how many it removed. A row flagged as a tombstone that still holds a sealed item was
    /// edited: refused, nothing is removed.
    @discardableResult
    func removeTombstones(of itemClass: ItemClass, digest: Data) throws(KeychainStoreError) -> Int {
        let flagged = try wholeRows(ItemSQL.tombstonesOfIdentity, [.text(itemClass.rawValue), .blob(digest)])
        for row in flagged {
            guard ItemRecord.isGenuineTombstone(row, key: indexKey) else {
                throw .undecodable("an item row marked deleted that still holds an item (the row was edited)")
            }
            try run(ItemSQL.deleteRow, [.integer(row.rowID)])
        }
        return flagged.count
    }

    /// Number of live items (tombstones excluded), without decrypting anything.
    package func itemCount() throws(KeychainStoreError) -> Int {
        try withLock { () throws(KeychainStoreError) in
            do {
                return try connection.query(ItemSQL.countLive) { Int($0.int64(0)) }.first ?? 0
            } catch let error as SQLiteError {
                throw KeychainStoreError(error)
            } catch {
                throw .internalFailure("count")
            }
        }
    }

    // MARK: Matching

    /// `checkingHierarchy`: the caller did not check the key hierarchy before (`find`); rows to
    /// decrypt are then read from a snapshot whose hierarchy is checked, after a check and a
    /// second read if another connection committed since this handle last looked.
    ///
    /// Rows are read with only the columns a lookup uses (`ItemRow.Columns`): the identity alone
    /// when nothing is decrypted.
    func matchingItems(_ query: ItemQuery, decrypt: Bool, checkingHierarchy: Bool = false) throws(KeychainStoreError) -> [KeychainItem] {
        try matches(query, decrypt: decrypt, checkingHierarchy: checkingHierarchy).items
    }

    private func matches(_ query: ItemQuery, decrypt: Bool, checkingHierarchy: Bool) throws(KeychainStoreError) -> Matches {
        let mustDecrypt = decrypt || query.needsDecryptionToMatch
        let (shape, arguments) = selectStatement(for: query, columns: mustDecrypt ? .contents : .identity,
                                                 limit: mustDecrypt ? nil : query.limit)
        var read = try readRows(shape, arguments)
        if checkingHierarchy, mustDecrypt, !read.rows.isEmpty, !readIsOfVerifiedHierarchy() {
            // What every other call does before it starts: adopt the other process's change
            // (a new password, a lock, settings), then the auto-lock check with its settings.
            try refreshKeyHierarchyIfChanged()
            if let now = lastActivity { lockIfIdle(now: now, since: activityBeforeCall) }
            read = try readRows(shape, arguments)
        }
        let rows = read.rows
        let malformed = read.firstFailure
        if !mustDecrypt {
            if rows.isEmpty, let malformed { throw malformed }
            let items = rows.map { row in
                KeychainItem(itemClass: query.itemClass, persistentID: row.persistentID, protection: row.protection,
                             accessControl: nil, attributes: [:], data: nil, isDecrypted: false)
            }
            return Matches(items: items, unreadable: malformed == nil ? 0 : 1,
                           firstUnreadable: malformed.map { Self.naming($0, query: query, persistentID: nil) })
        }
        var items: [KeychainItem] = []
        var firstFailure: KeychainStoreError? = malformed.map { Self.naming($0, query: query, persistentID: nil) }
        // Skipped items are returned beside the result: the caller's tools say so.
        var unreadable = malformed == nil ? 0 : 1
        for row in rows {
            if let limit = query.limit, items.count >= limit { break }
            let item: KeychainItem
            do {
                item = try decryptRow(row)
            } catch .locked {
                throw .locked
            } catch {
                // An item that cannot be decrypted is skipped, as Apple skips corrupt items; its
                // error is reported only if nothing else matched.
                if firstFailure == nil { firstFailure = Self.naming(error, query: query, persistentID: row.persistentID) }
                unreadable += 1
                continue
            }
            // Re-check every filter on the decrypted attributes: a blind index edited on disk
            // must not make the wrong item match.
            if matches(item, query) { items.append(item) }
        }
        if items.isEmpty, let firstFailure { throw firstFailure }
        return Matches(items: items, unreadable: unreadable, firstUnreadable: firstFailure)
    }

    /// A failure to decode one item, as the damaged item it is, named as its owner knows it:
    /// the label, service and account the query asked for (the row's own attributes are sealed
    /// with it and cannot be read), else its persistent id. Other failures are returned unchanged.
    static func naming(_ error: KeychainStoreError, query: ItemQuery, persistentID: UUID?) -> KeychainStoreError {
        guard let what = error.undecodableSubject else { return error }
        var named = error
        named.reason = .damagedItem(name: query.itemName ?? persistentID.map { "with persistent id \($0.uuidString)" } ?? "(unnamed)",
                                    detail: "\(what) cannot be decrypted or decoded")
        return named
    }

    /// The lookup's shape (its SQL text is cached by shape, see `ItemSQL`) and its arguments;
    /// `limit` adds a `LIMIT` when rows need no decryption to be counted.
    private func selectStatement(for query: ItemQuery, columns: ItemRow.Columns, limit: Int? = nil) -> (ItemSQL.SelectShape, [SQLiteValue]) {
        var shape = ItemSQL.SelectShape(itemClass: query.itemClass)
        shape.columns = columns
        var arguments: [SQLiteValue] = [.text(query.itemClass.rawValue)]
        arguments.reserveCapacity(8)
        if let persistentID = query.persistentID {
            shape.persistentID = true
            arguments.append(.blob(persistentID.bytes))
        }
        if let protection = query.protection {
            shape.protection = true
            arguments.append(.text(protection.rawValue))
        }
        // Only attributes with a blind-index column become SQL conditions (key and certificate
        // items match their other primary-key attributes after decryption).
        for (offset, name, kind) in query.itemClass.indexedSortedPrimaryKey {
            guard let value = query.filters[name] else { continue }
            shape.indexedAttributes |= 1 << offset
            arguments.append(.blob(blindIndexCache.index(name: name, value: value, kind: kind, key: indexKey)))
        }
        if let synchronizable = query.synchronizable {
            shape.synchronizable = true
            arguments.append(.blob(syncIndex(synchronizable)))
        }
        if case .only(let groups) = query.accessGroups {
            shape.accessGroupCount = groups.count
            for group in groups {
                arguments.append(.blob(blindIndexCache.index(name: "agrp", value: .string(group), kind: .string, key: indexKey)))
            }
        }
        if let limit {
            shape.limited = true
            arguments.append(.integer(Int64(limit)))
        }
        return (shape, arguments)
    }

    private func matches(_ item: KeychainItem, _ query: ItemQuery) -> Bool {
        let schema = query.itemClass.attributes
        for (name, wanted) in query.filters {
            guard let kind = schema[name] else { return false }
            // An absent key attribute equals an empty one; an absent other attribute matches nothing.
            let stored = item.attributes[name] ?? (query.itemClass.primaryKey.contains(name) ? kind.defaultValue : nil)
            guard let actual = stored else { return false }
            if !kind.matches(actual, wanted) { return false }
        }
        if let synchronizable = query.synchronizable,
           !AttributeKind.number.matches(item.attributes["sync"] ?? .number(0), .number(synchronizable ? 1 : 0)) {
            return false
        }
        if case .only(let groups) = query.accessGroups {
            guard case .string(let group)? = item.attributes["agrp"], groups.contains(group) else { return false }
        }
        if let host = query.hostOrSubdomainOf {
            let server: String
            switch item.attributes["srvr"] {
            case .string(let text)?: server = text
            case .data(let data)?: server = String(decoding: data, as: UTF8.self)
            default: return false
            }
            if server != host && !server.hasSuffix("." + host) { return false }
        }
        return true
    }

    func syncIndex(_ synchronizable: Bool) -> Data {
        indexKey.synchronizableIndex(synchronizable)
    }

    // MARK: Rows

    /// The store's one way from `items` rows to items: every read of item rows comes here, and
    /// every row becomes an `ItemRow` of `columns` (`itemClass`: the class the `WHERE` fixed, nil
    /// for `.whole` rows, which read it). `sql` is called only when the connection has no
    /// statement cached under `cacheKey` (nil: cached by its text). A row whose plain columns are
    /// malformed (tampering) is left out and its error returned, so that one altered row cannot
    /// hide every other item from a query; `ItemRows.all()` refuses the read instead.
    func readItemRows(cacheKey: Int?, sql: () -> String, _ arguments: [SQLiteValue], columns: ItemRow.Columns,
                      itemClass: ItemClass?) throws(KeychainStoreError) -> ItemRows {
        var rows: [ItemRow] = []
        var firstFailure: KeychainStoreError?
        do {
            // A closure literal, not a local function passed as a value: its captured variables
            // would be boxed on the heap.
            try connection.forEachRow(cacheKey: cacheKey, sql: sql, arguments) { statement in
                do throws(KeychainStoreError) {
                    rows.append(try ItemRow(statement, columns, itemClass: itemClass))
                } catch {
                    if firstFailure == nil { firstFailure = error }
                }
            }
        } catch let error as SQLiteError {
            throw KeychainStoreError(error)
        } catch {
            throw .internalFailure("item read")
        }
        return ItemRows(rows: rows, firstFailure: firstFailure)
    }

    /// Whole rows (`ItemRow.Columns.whole`) of one of `ItemSQL`'s fixed statements; a malformed
    /// row fails the read.
    func wholeRows(_ sql: String, _ arguments: [SQLiteValue]) throws(KeychainStoreError) -> [ItemRow] {
        try readItemRows(cacheKey: nil, sql: { sql }, arguments, columns: .whole, itemClass: nil).all()
    }

    /// Rows of a lookup, through the statement cached for its shape.
    private func readRows(_ shape: ItemSQL.SelectShape, _ arguments: [SQLiteValue]) throws(KeychainStoreError) -> ItemRows {
        try readItemRows(cacheKey: shape.cacheKey, sql: { ItemSQL.select(shape) }, arguments, columns: shape.columns,
                         itemClass: shape.itemClass)
    }

    /// What `readItemRows` read. A struct, not a tuple: a tuple variable was destroyed through
    /// the runtime's generic value witnesses, about 1,100 instructions per lookup.
    struct ItemRows {
        /// The decodable rows, in the statement's order.
        var rows: [ItemRow]
        /// Why the first malformed row was left out, if one was.
        var firstFailure: KeychainStoreError?

        /// Every row; throws the first malformed row's error instead if there was one.
        func all() throws(KeychainStoreError) -> [ItemRow] {
            if let firstFailure { throw firstFailure }
            return rows
        }
    }

    /// Decrypts a row read with `.contents` or `.whole` columns.
    func decryptRow(_ row: ItemRow) throws(KeychainStoreError) -> KeychainItem {
        let classKey = try keybag.classKey(for: row.protection)
        let payload = try ItemRecord.open(row, classKey: classKey)
        return try item(itemClass: row.itemClass, persistentID: row.persistentID, protection: row.protection, payload: payload)
    }

    /// The decrypted item, with its access control rebuilt from the payload's flags.
    private func item(itemClass: ItemClass, persistentID: UUID, protection: ProtectionClass,
                      payload: ItemPayload) throws(KeychainStoreError) -> KeychainItem {
        let accessControl: AccessControlPolicy?
        if let flags = payload.accessControlFlags {
            do {
                accessControl = try AccessControlPolicy(protection: protection, flags: flags)
                    .binding(biometryDomainState: payload.biometryDomainState)
            } catch {
                throw .undecodable("an item's access control")
            }
        } else {
            accessControl = nil
        }
        return KeychainItem(itemClass: itemClass, persistentID: persistentID, protection: protection,
                            accessControl: accessControl, attributes: payload.attributes, data: payload.data,
                            isDecrypted: true)
    }

    private func rowID(of persistentID: UUID) throws(KeychainStoreError) -> Int64 {
        guard let row = try wholeRows(ItemSQL.rowOfPersistentID, [.blob(persistentID.bytes)]).first else { throw .itemNotFound }
        return row.rowID
    }

    struct SealedRecord {
        var digest: Data
        var indexes: [SQLiteValue]
        var wrappedKey: Data
        var ciphertext: Data
    }

    /// The item sealed for its row: digest, blind indexes, wrapped key and ciphertext.
    /// `randomness`: the item key and nonces to seal with (drawn fresh by default).
    func sealedRecord(for item: KeychainItem, classKey: SymmetricKey,
                      randomness: SealRandomness? = nil) throws(KeychainStoreError) -> SealedRecord {
        let digest = ItemRecord.primaryKeyDigest(of: item.attributes, for: item.itemClass, key: indexKey)
        let aad = ItemRecord.associatedData(itemClass: item.itemClass, protection: item.protection,
                                            persistentID: item.persistentID, primaryKeyDigest: digest)
        let payload = ItemPayload(attributes: item.attributes, data: item.data, accessControlFlags: item.accessControl?.flags,
                                  biometryDomainState: item.accessControl?.biometryDomainState)
        let fresh: SealRandomness
        if let randomness { fresh = randomness } else { fresh = try SealRandomness.draw() }
        let sealed = try ItemRecord.seal(payload, classKey: classKey, associatedData: aad, randomness: fresh)
        return SealedRecord(digest: digest, indexes: insertIndexes(of: item), wrappedKey: sealed.wrappedKey, ciphertext: sealed.ciphertext)
    }

    /// `ItemRecord.blindIndexes` of the item, computing only what changes from item to item: the
    /// `sync` indexes are the key's two, access groups and services come from the handle's
    /// `blindIndexCache` (an app writes under the same few), and an absent optional key attribute
    /// (`vwht`, `tkid`: its default) from `absentAttributeIndexes`. A generic password's six
    /// HMACs become one, its account's.
    private func insertIndexes(of item: KeychainItem) -> [SQLiteValue] {
        let schema = item.itemClass.attributes
        let primaryKey = item.itemClass.primaryKey
        return ItemClass.indexedAttributes.map { name -> SQLiteValue in
            guard primaryKey.contains(name), let kind = schema[name] else { return .null }
            guard let value = item.attributes[name] else {
                return .blob(absentAttributeIndex(name: name, kind: kind))
            }
            if name == "sync", case .number(let number) = value, number == 0 || number == 1 {
                return .blob(syncIndex(number == 1))
            }
            return .blob(blindIndexCache.index(name: name, value: value, kind: kind, key: indexKey))
        }
    }

    /// The blind index of a key attribute the item does not have (its kind's default value),
    /// computed once per handle.
    private func absentAttributeIndex(name: String, kind: AttributeKind) -> Data {
        if let known = absentAttributeIndexes[name] { return known }
        let index = ItemRecord.blindIndex(name: name, value: kind.defaultValue, kind: kind, key: indexKey)
        absentAttributeIndexes[name] = index
        return index
    }

    func insertRow(_ item: KeychainItem, _ record: SealedRecord) throws(KeychainStoreError) {
        let arguments: [SQLiteValue] = [.text(item.itemClass.rawValue), .blob(item.persistentID.bytes),
                                        .text(item.protection.rawValue), .blob(record.digest), .integer(0)]
            + record.indexes + [.blob(record.wrappedKey), .blob(record.ciphertext)]
        try run(ItemSQL.insert, arguments)
    }

    private func apply(_ changes: ItemChanges, to old: KeychainItem) throws(KeychainStoreError) {
        var updated = old
        for (name, value) in changes.attributes { updated.attributes[name] = value }
        if let data = changes.data { updated.data = data }
        if let accessControl = changes.accessControl {
            updated.accessControl = accessControl
            updated.protection = accessControl.protection
        } else if let protection = changes.protection {
            updated.protection = protection
            updated.accessControl = nil
        }
        // The modification date moves forward by at least a millisecond, even within one clock tick.
        var modified = currentDate()
        if case .date(let previous)? = old.attributes["mdat"], modified.timeIntervalSince(previous) < 0.001 {
            modified = previous.addingTimeInterval(0.001)
        }
        updated.attributes["mdat"] = .date(modified)
        updated.attributes = ItemRecord.withPrimaryKeyDefaults(updated.attributes, for: updated.itemClass)
        let classKey = try keybag.classKey(for: updated.protection)
        let record = try sealedRecord(for: updated, classKey: classKey)
        let oldDigest = ItemRecord.primaryKeyDigest(of: old.attributes, for: old.itemClass, key: indexKey)
        let rowID = try rowID(of: old.persistentID)
        if record.digest != oldDigest { try removeTombstones(of: updated.itemClass, digest: record.digest) }
        try run(ItemSQL.update,
                [.text(updated.protection.rawValue), .blob(record.digest)] + record.indexes
                    + [.blob(record.wrappedKey), .blob(record.ciphertext), .integer(rowID)])
        // A synchronizable item whose identity changed leaves a tombstone for its old identity.
        if record.digest != oldDigest, AttributeKind.number.matches(old.attributes["sync"] ?? .number(0), .number(1)) {
            try insertTombstone(of: old, digest: oldDigest)
        }
    }

    private func insertTombstone(of item: KeychainItem, digest: Data) throws(KeychainStoreError) {
        let persistentID = UUID()
        let marker = ItemRecord.tombstoneMarker(itemClass: item.itemClass, protection: item.protection, persistentID: persistentID,
                                                primaryKeyDigest: digest, deletedAt: currentDate(), key: indexKey)
        let arguments: [SQLiteValue] = [.text(item.itemClass.rawValue), .blob(persistentID.bytes), .text(item.protection.rawValue),
                                        .blob(digest), .integer(1)]
            + ItemRecord.blindIndexes(of: item.attributes, for: item.itemClass, key: indexKey) + [.blob(Data()), .blob(marker)]
        try run(ItemSQL.insertOrReplace, arguments)
    }
}
