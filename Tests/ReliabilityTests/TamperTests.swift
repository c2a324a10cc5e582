import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing
@testable import KeychainStore
import KeychainVocabulary
#if canImport(Glibc)
import Glibc
#endif

/// What a read of one item may legitimately give after tampering: the exact original, or an error.
enum ReadOutcome: Equatable, CustomStringConvertible {
    case exact
    case altered
    case failed(Int32)

    var description: String {
        switch self {
        case .exact: return "exact"
        case .altered: return "ALTERED"
        case .failed(let status): return "status \(status)"
        }
    }

    static func read(_ database: KeychainDatabase, account: String, tag: String, length: Int) -> ReadOutcome {
        do {
            let items = try database.find(Torture.query(account: account), decrypt: true)
            guard items.count == 1 else { return items.isEmpty ? .failed(-25300) : .altered }
            let item = items[0]
            let exact = item.data == Torture.value(tag: tag, length: length)
                && item.attributes["labl"] == .string(Torture.label(tag: tag, length: length))
                && item.attributes["acct"] == .string(account)
            return exact ? .exact : .altered
        } catch {
            return .failed(error.osStatus)
        }
    }
}

@Suite("Tampering: every column, every keybag byte, swaps, KDF parameters, schema")
struct TamperTests {
    /// A keychain with a password and one item per protection class; returns (account, tag, length) of each.
    static func makeKeychain(_ scratch: TemporaryKeychain, kdf: PasswordKDF? = nil) throws -> [(account: String, tag: String, length: Int)] {
        var options = scratch.options
        if let kdf { options.newKeychainKDF = kdf }
        let database = try KeychainDatabase.open(path: scratch.keychainPath, password: Torture.password(generation: 0), options: options)
        var items: [(String, String, Int)] = []
        for index in 0..<7 {
            let account = "acct-\(index)", tag = "tamper\(index)", length = 24 + index
            _ = try database.insert(Torture.newItem(account: account, index: index, tag: tag, length: length))
            items.append((account, tag, length))
        }
        return items
    }

    /// Flips `mask` in byte `offset` of one cell (text, blob or integer) and returns the original value.
    static func flip(_ raw: RawSQLite, table: String, column: String, rowID: Int64, offset: Int, mask: UInt8) throws -> SQLiteValue? {
        guard let original = try raw.execute("SELECT \(column) FROM \(table) WHERE rowid = ?", [.integer(rowID)]).first?.first else { return nil }
        let altered: SQLiteValue
        switch original {
        case .null: return nil
        case .integer(let value): altered = .integer(value ^ Int64(mask) << (8 * Int64(offset % 8)))
        case .text(let text):
            var bytes = Array(text.utf8)
            guard offset < bytes.count else { return nil }
            bytes[offset] ^= mask
            guard let string = String(bytes: bytes, encoding: .utf8) else { return nil }
            altered = .text(string)
        case .blob(let data):
            guard offset < data.count else { return nil }
            var bytes = data
            bytes[bytes.startIndex + offset] ^= mask
            altered = .blob(bytes)
        }
        try raw.execute("UPDATE \(table) SET \(column) = ? WHERE rowid = ?", [altered, .integer(rowID)])
        return original
    }

    static func restore(_ raw: RawSQLite, table: String, column: String, rowID: Int64, _ value: SQLiteValue) throws {
        try raw.execute("UPDATE \(table) SET \(column) = ? WHERE rowid = ?", [value, .integer(rowID)])
    }

    static func length(of value: SQLiteValue) -> Int {
        switch value {
        case .null: return 0
        case .integer: return 8
        case .text(let text): return text.utf8.count
        case .blob(let data): return data.count
        }
    }

    @Test("one-bit flips in every byte of every column of an item row: only that item fails (-26275 or not found), never altered data", .reliability, .tags(.reliability))
    func everyItemColumn() throws {
        let scratch = try TemporaryKeychain("tamper-columns")
        defer { scratch.remove() }
        let items = try Self.makeKeychain(scratch)
        let raw = try RawSQLite(scratch.keychainPath)
        let columns = try raw.execute("PRAGMA table_info(items)").compactMap { row -> String? in
            if case .text(let name) = row[1] { return name }
            return nil
        }
        let start = ContinuousClock.now
        var cases = 0, outcomes: [String: Int] = [:]
        for (victimIndex, victim) in items.enumerated() where [0, 2, 3].contains(victimIndex) {  // ak, dk, aku victims
            let rowID = Int64(victimIndex + 1)
            let bystander = items[(victimIndex + 1) % items.count]
            for column in columns {
                guard let value = try raw.execute("SELECT \(column) FROM items WHERE id = ?", [.integer(rowID)]).first?.first else { continue }
                if column == "id" {  // the row id is not bound to anything: moving the row changes nothing
                    try raw.execute("UPDATE items SET id = ? WHERE id = ?", [.integer(rowID + 1_000), .integer(rowID)])
                    let database = try scratch.open(generation: 0)
                    #expect(ReadOutcome.read(database, account: victim.account, tag: victim.tag, length: victim.length) == .exact)
                    try raw.execute("UPDATE items SET id = ? WHERE id = ?", [.integer(rowID), .integer(rowID + 1_000)])
                    cases += 1
                    continue
                }
                for offset in 0..<max(1, Self.length(of: value)) {
                    for mask: UInt8 in column == "tombstone" ? [0x01] : [0x01, 0x80] {
                        guard let original = try Self.flip(raw, table: "items", column: column, rowID: rowID, offset: offset, mask: mask) else { continue }
                        cases += 1
                        let database = try scratch.open(generation: 0)
                        let outcome = ReadOutcome.read(database, account: victim.account, tag: victim.tag, length: victim.length)
                        outcomes["\(outcome)", default: 0] += 1
                        #expect(outcome == .exact || outcome == .failed(-26275) || outcome == .failed(-25300),
                                "\(column)[\(offset)]^\(mask): victim \(outcome)")
                        #expect(ReadOutcome.read(database, account: bystander.account, tag: bystander.tag, length: bystander.length) == .exact,
                                "\(column)[\(offset)]^\(mask): bystander affected")
                        // A query over the whole class still returns every intact item.
                        var everything = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["torture"]))
                        everything.filters = [:]
                        let all = try? database.find(everything, decrypt: true)
                        #expect((all?.count ?? 0) >= items.count - 1, "\(column)[\(offset)]^\(mask): a class-wide query lost intact items")
                        #expect(all?.allSatisfy { Torture.selfConsistentTag($0) != nil } ?? true, "\(column)[\(offset)]^\(mask): altered item in a class-wide query")
                        try Self.restore(raw, table: "items", column: column, rowID: rowID, original)
                    }
                }
            }
        }
        let database = try scratch.open(generation: 0)
        for item in items {
            #expect(ReadOutcome.read(database, account: item.account, tag: item.tag, length: item.length) == .exact, "restored \(item.account)")
        }
        Reliability.figure("tamper-columns", ["cases": cases, "columns": columns.count,
                                              "outcomes": outcomes.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","),
                                              "seconds": Reliability.seconds(since: start)])
        #expect(cases > 1_000)
    }

    @Test("one-bit flips in every byte of every keybag row and meta value: refused with a clear error or items fail, never altered", .reliability, .tags(.reliability))
    func everyKeybagAndMetaByte() throws {
        let scratch = try TemporaryKeychain("tamper-keybag")
        defer { scratch.remove() }
        let items = try Self.makeKeychain(scratch)
        let raw = try RawSQLite(scratch.keychainPath)
        let start = ContinuousClock.now
        var cases = 0, refused: [Int32: Int] = [:], opened = 0
        let targets: [(table: String, columns: [String])] = [("keybag", ["class", "wrapped_key"]), ("meta", ["value"])]
        for target in targets {
            let rowIDs = try raw.execute("SELECT rowid FROM \(target.table)").compactMap { row -> Int64? in
                if case .integer(let id) = row[0] { return id }
                return nil
            }
            for rowID in rowIDs {
                for column in target.columns {
                    guard let value = try raw.execute("SELECT \(column) FROM \(target.table) WHERE rowid = ?", [.integer(rowID)]).first?.first else { continue }
                    for offset in 0..<Self.length(of: value) {
                        for mask: UInt8 in [0x01, 0x80] {
                            guard let original = try Self.flip(raw, table: target.table, column: column, rowID: rowID, offset: offset, mask: mask) else { continue }
                            cases += 1
                            do {
                                let database = try scratch.open(generation: 0)
                                opened += 1
                                for item in items {
                                    let outcome = ReadOutcome.read(database, account: item.account, tag: item.tag, length: item.length)
                                    #expect(outcome != .altered, "\(target.table).\(column) row \(rowID) [\(offset)]^\(mask): \(item.account) altered")
                                }
                            } catch {
                                refused[error.osStatus, default: 0] += 1
                                #expect([-26275, -25293, -25291].contains(error.osStatus),
                                        "\(target.table).\(column) row \(rowID) [\(offset)]^\(mask): open failed with \(error.osStatus): \(error)")
                            }
                            try Self.restore(raw, table: target.table, column: column, rowID: rowID, original)
                        }
                    }
                }
            }
        }
        Reliability.figure("tamper-keybag-meta", ["cases": cases, "opened": opened,
                                                  "refused": refused.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","),
                                                  "seconds": Reliability.seconds(since: start)])
        #expect(cases > 500)
    }

    @Test("swapping rows, blobs and identities between items, or moving a row to another keychain, is detected")
    func swaps() throws {
        let scratch = try TemporaryKeychain("tamper-swaps")
        defer { scratch.remove() }
        let items = try Self.makeKeychain(scratch)
        let raw = try RawSQLite(scratch.keychainPath)
        let allColumns = try raw.execute("PRAGMA table_info(items)").compactMap { row -> String? in
            if case .text(let name) = row[1], name != "id" { return name }
            return nil
        }
        let identity = ["pk_digest"] + allColumns.filter { $0.hasPrefix("ix_") }
        let swaps: [(name: String, columns: [String], bothExact: Bool)] = [
            ("payload", ["payload"], false),
            ("wrapped key", ["wrapped_key"], false),
            ("payload and wrapped key", ["payload", "wrapped_key"], false),
            ("persistent id", ["persistent_id"], false),
            ("identity (digest and blind indexes)", identity, false),
            ("everything but the row id", allColumns, true),
        ]
        for (a, b) in [(1, 5), (1, 3)] {  // same class (ak/ak? no: ak/cku) and different classes
            for swap in swaps {
                let before = try raw.execute("SELECT \(swap.columns.joined(separator: ", ")) FROM items WHERE id IN (?, ?) ORDER BY id",
                                             [.integer(Int64(a)), .integer(Int64(b))])
                func write(_ rows: [[SQLiteValue]], to ids: [Int]) throws {
                    try raw.execute("BEGIN")
                    // Move the first row's unique values out of the way first.
                    try raw.execute("UPDATE items SET persistent_id = randomblob(16), pk_digest = randomblob(32) WHERE id = ?", [.integer(Int64(ids[0]))])
                    for (row, id) in zip(rows, ids.reversed()) {
                        try raw.execute("UPDATE items SET \(swap.columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?",
                                        row + [.integer(Int64(id))])
                    }
                    try raw.execute("COMMIT")
                }
                let original = try raw.execute("SELECT persistent_id, pk_digest FROM items WHERE id IN (?, ?) ORDER BY id",
                                                [.integer(Int64(a)), .integer(Int64(b))])
                try write(before, to: [a, b])
                let database = try scratch.open(generation: 0)
                for index in [a - 1, b - 1] {
                    let item = items[index]
                    let outcome = ReadOutcome.read(database, account: item.account, tag: item.tag, length: item.length)
                    if swap.bothExact {
                        #expect(outcome == .exact, "\(swap.name) swap \(a)↔\(b): \(item.account) \(outcome)")
                    } else {
                        #expect(outcome == .failed(-26275) || outcome == .failed(-25300), "\(swap.name) swap \(a)↔\(b): \(item.account) \(outcome)")
                    }
                }
                // Put the rows back.
                try raw.execute("BEGIN")
                try raw.execute("UPDATE items SET persistent_id = randomblob(16), pk_digest = randomblob(32) WHERE id IN (?, ?)",
                                [.integer(Int64(a)), .integer(Int64(b))])
                for (row, id) in zip(before, [a, b]) {
                    try raw.execute("UPDATE items SET \(swap.columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?", row + [.integer(Int64(id))])
                }
                for (row, id) in zip(original, [a, b]) {
                    try raw.execute("UPDATE items SET persistent_id = ?, pk_digest = ? WHERE id = ?", row + [.integer(Int64(id))])
                }
                try raw.execute("COMMIT")
                let restored = try scratch.open(generation: 0)
                for item in items {
                    #expect(ReadOutcome.read(restored, account: item.account, tag: item.tag, length: item.length) == .exact,
                            "after restoring \(swap.name): \(item.account)")
                }
            }
        }

        // A row copied into another keychain (same password, same device key) does not open there.
        let other = try TemporaryKeychain("tamper-other")
        defer { other.remove() }
        do {
            var options = other.options
            options.deviceKeyPath = scratch.deviceKeyPath
            let database = try KeychainDatabase.open(path: other.keychainPath, password: Torture.password(generation: 0), options: options)
            _ = try database.insert(Torture.newItem(account: "acct-0", index: 0, tag: "otherkeychain", length: 24))
        }
        let row = try raw.execute("SELECT wrapped_key, payload, persistent_id FROM items WHERE id = 1")[0]
        try RawSQLite(other.keychainPath).execute("UPDATE items SET wrapped_key = ?, payload = ?, persistent_id = ? WHERE id = 1", row)
        var options = other.options
        options.deviceKeyPath = scratch.deviceKeyPath
        let foreign = try KeychainDatabase.open(path: other.keychainPath, password: Torture.password(generation: 0), options: options)
        #expect(ReadOutcome.read(foreign, account: "acct-0", tag: items[0].tag, length: items[0].length) == .failed(-26275))
    }

    @Test("a row rolled back to an earlier version of itself reads as that version, with or without a rollback anchor (documented limitation)",
          arguments: [false, true])
    func singleRowRollback(anchored: Bool) throws {
        let scratch = try TemporaryKeychain("tamper-rollback")
        defer { scratch.remove() }
        if anchored { try scratch.anchor() }
        let items = try Self.makeKeychain(scratch)
        let raw = try RawSQLite(scratch.keychainPath)
        let old = try raw.execute("SELECT wrapped_key, payload FROM items WHERE id = 1")[0]
        do {
            let database = try scratch.open(generation: 0)
            var changes = ItemChanges()
            changes.data = Torture.value(tag: "newer", length: 30)
            changes.attributes["labl"] = .string(Torture.label(tag: "newer", length: 30))
            try database.update(Torture.query(account: items[0].account), with: changes)
        }
        try raw.execute("UPDATE items SET wrapped_key = ?, payload = ? WHERE id = 1", old)
        let database = try scratch.open(generation: 0)
        // The old version is authentic (same row identity), so it opens. A rollback anchor seals the
        // key hierarchy, not every row, so it does not see this either (docs/FILE-FORMAT.md, "Rollback anchor").
        // It is never a mix of versions.
        #expect(ReadOutcome.read(database, account: items[0].account, tag: items[0].tag, length: items[0].length) == .exact)
    }

    @Test("lowered KDF parameters: below the floor refused with a clear error; lowered r/p/salt refused by the key-hierarchy tag; excessive cost refused before deriving")
    func kdfParameters() throws {
        let scratch = try TemporaryKeychain("tamper-kdf")
        defer { scratch.remove() }
        let floor = PasswordKDF(logN: PasswordKDF.minimumLogN, blockSize: 8, parallelism: 1, salt: Sealing.randomBytes(32))
        let items = try Self.makeKeychain(scratch, kdf: floor)
        var strict = scratch.options
        strict.allowTestingKDF = false
        let raw = try RawSQLite(scratch.keychainPath)
        guard case .blob(let stored)? = try raw.execute("SELECT value FROM meta WHERE key = 'password_kdf'").first?.first else {
            Issue.record("no KDF parameters")
            return
        }
        #expect(try PasswordKDF(decoding: stored) == floor)
        func withKDF(_ kdf: PasswordKDF, _ check: (KeychainStoreError?) -> Void) throws {
            try raw.execute("UPDATE meta SET value = ? WHERE key = 'password_kdf'", [.blob(kdf.encoded)])
            check(storeError { _ = try scratch.open(generation: 0, options: strict) })
            try raw.execute("UPDATE meta SET value = ? WHERE key = 'password_kdf'", [.blob(stored)])
        }
        var lowered = floor
        lowered.logN = PasswordKDF.minimumLogN - 1
        try withKDF(lowered) { error in
            guard case .unusableKeychain(let message)? = error?.reason else { Issue.record("logN lowered: \(String(describing: error))"); return }
            #expect(message.contains("KDF"))
        }
        for (name, change) in [("r", { (kdf: inout PasswordKDF) in kdf.blockSize = 1 }),
                               ("p", { (kdf: inout PasswordKDF) in kdf.parallelism = 2 }),
                               ("salt", { (kdf: inout PasswordKDF) in kdf.salt = Data(kdf.salt.prefix(16)) })] {
            var altered = floor
            change(&altered)
            // Refused at open by the key-hierarchy tag, before any derivation (it used to fail
            // later, as a wrong password).
            try withKDF(altered) { error in
                guard case .undecodable(let reason)? = error?.reason, reason.contains("key hierarchy") else {
                    Issue.record("\(name) changed: \(String(describing: error))")
                    return
                }
            }
        }
        // Too short a salt, or a cost above the reader's cap, is refused before any derivation.
        var shortSalt = floor
        shortSalt.salt = Data(floor.salt.prefix(8))
        var expensive = floor
        expensive.logN = 20
        expensive.blockSize = 16
        expensive.parallelism = 16
        for kdf in [shortSalt, expensive] {
            try withKDF(kdf) { error in #expect(error?.osStatus == -26275, "\(kdf.logN)/\(kdf.blockSize)/\(kdf.parallelism)/\(kdf.salt.count): \(String(describing: error))") }
        }
        let database = try scratch.open(generation: 0, options: strict)
        for item in items {
            #expect(ReadOutcome.read(database, account: item.account, tag: item.tag, length: item.length) == .exact)
        }
    }

    @Test("an edited schema (a dropped index, an added column or table, a renamed table, an unsupported header format) is refused with -26275, not an SQL error")
    func editedSchema() throws {
        for edit in ["DROP INDEX items_by_server", "ALTER TABLE items ADD COLUMN extra BLOB", "CREATE TABLE extra (x)",
                     "ALTER TABLE meta RENAME TO other", "HEADER"] {
            let scratch = try TemporaryKeychain("tamper-schema")
            defer { scratch.remove() }
            _ = try Self.makeKeychain(scratch)
            if edit == "HEADER" {  // the file header's schema format number (bytes 44-47) made unsupported
                guard let handle = FileHandle(forUpdatingAtPath: scratch.keychainPath) else { throw CocoaError(.fileNoSuchFile) }
                handle.seek(toFileOffset: 47)
                handle.write(Data([0x0C]))
                handle.closeFile()
            } else {
                try RawSQLite(scratch.keychainPath).execute(edit)
            }
            let error = storeError { _ = try scratch.open(generation: 0) }
            #expect(error?.osStatus == -26275, "\(edit): \(String(describing: error))")
        }
    }

    @Test("a deleted class-key row is refused at open by the key-hierarchy tag; nothing is replaced or written")
    func missingClassKey() throws {
        let scratch = try TemporaryKeychain("tamper-missing-class")
        defer { scratch.remove() }
        _ = try Self.makeKeychain(scratch)
        let raw = try RawSQLite(scratch.keychainPath)
        try raw.execute("DELETE FROM keybag WHERE class = 'ck'")
        let error = storeError { _ = try scratch.open(generation: 0) }
        guard case .undecodable(let reason)? = error?.reason, reason.contains("key hierarchy") else {
            Issue.record("a keychain with a deleted class key opened or failed otherwise: \(String(describing: error))")
            return
        }
        #expect(try raw.execute("SELECT count(*) FROM keybag WHERE class = 'ck'").first?.first == .integer(0),
                "a replacement ck key was created")
    }
}
