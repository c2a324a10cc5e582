import KeychainPrimitives
import CSQLite
import Crypto
import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore
import KeychainVocabulary

/// The primitives of the lean read path: they must give exactly what the
/// straightforward code gave, or existing keychains would stop finding or opening their items.
@Suite("Read path primitives")
struct ReadPathPrimitiveTests {
    private func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    @Test("HMAC from precomputed SHA-256 states equals HMAC<SHA256>, for keys and messages around the block size")
    func precomputedHMACEqualsHMAC() {
        let keyLengths = [0, 1, 16, 32, 63, 64, 65, 100, 200]
        let messageLengths = [0, 1, 2, 31, 32, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4097]
        for keyLength in keyLengths {
            let key = SymmetricKey(data: randomBytes(keyLength))
            let fast = PrecomputedHMAC(key: key)
            for messageLength in messageLengths {
                for _ in 0..<3 {
                    let message = randomBytes(messageLength)
                    let expected = Data(HMAC<SHA256>.authenticationCode(for: message, using: key))
                    let computed = message.withUnsafeBytes { bytes in fast.withCode(for: bytes) { Data($0) } }
                    #expect(computed == expected, "key \(keyLength) bytes, message \(messageLength) bytes")
                }
            }
        }
    }

    @Test("one PrecomputedHMAC gives independent MACs: its states are copied, never advanced")
    func precomputedHMACIsReusable() {
        let key = SymmetricKey(size: .bits256)
        let fast = PrecomputedHMAC(key: key)
        let first = Data("first".utf8).withUnsafeBytes { bytes in fast.withCode(for: bytes) { Data($0) } }
        _ = Data(repeating: 7, count: 300).withUnsafeBytes { bytes in fast.withCode(for: bytes) { Data($0) } }
        let again = Data("first".utf8).withUnsafeBytes { bytes in fast.withCode(for: bytes) { Data($0) } }
        #expect(first == again)
        #expect(first == Data(HMAC<SHA256>.authenticationCode(for: Data("first".utf8), using: key)))
    }

    @Test("associated data written through the cursor equals the format's field-by-field layout")
    func associatedDataLayout() {
        let persistentID = UUID()
        let digest = Data(randomBytes(32))
        for protection in ProtectionClass.allCases {
            for isTombstone in [false, true] {
                var expected = Data("KCKI".utf8)
                expected.appendBigEndian(UInt32(Schema.formatVersion))
                expected.appendField(Data(ItemClass.internetPassword.rawValue.utf8))
                expected.appendField(Data(protection.rawValue.utf8))
                expected.appendField(persistentID.bytes)
                expected.appendField(digest)
                if isTombstone { expected.append(0x01) }
                let built = ItemRecord.associatedData(itemClass: .internetPassword, protection: protection, persistentID: persistentID,
                                                      primaryKeyDigest: digest, isTombstone: isTombstone)
                #expect(built == expected, "\(protection) tombstone \(isTombstone)")
            }
        }
    }

    @Test("the blind-index cache, keyed by text per attribute, gives the computed index under either text kind and stays bounded with both attributes")
    func blindIndexCacheByText() {
        let key = SymmetricKey(size: .bits256)
        let indexKey = BlindIndexKey(key)
        var cache = BlindIndexCache()
        for round in 0..<(BlindIndexCache.limit * 2) {
            for (name, kind) in [("agrp", AttributeKind.string), ("svce", .blob), ("svce", .string), ("agrp", .blob)] {
                let value = AttributeValue.string("value-\(round % 40)")
                let cached = cache.index(name: name, value: value, kind: kind, key: indexKey)
                #expect(cached == ItemRecord.blindIndex(name: name, value: value, kind: kind, key: indexKey), "\(name) \(kind)")
                #expect(cache.count <= BlindIndexCache.limit)
            }
        }
        // Same text under another attribute, or as a number-kind value: never the cached entry.
        let agrp = cache.index(name: "agrp", value: .string("shared"), kind: .string, key: indexKey)
        #expect(cache.index(name: "svce", value: .string("shared"), kind: .blob, key: indexKey) != agrp)
        #expect(cache.index(name: "svce", value: .string("7"), kind: .number, key: indexKey)
            == ItemRecord.blindIndex(name: "svce", value: .string("7"), kind: .number, key: indexKey))
    }

    @Test("a protection class is read from its stored bytes exactly, anything else refused")
    func protectionFromBytes() {
        for protection in ProtectionClass.allCases {
            let parsed = Data(protection.rawValue.utf8).withUnsafeBytes { ProtectionClass(utf8: $0) }
            #expect(parsed == protection)
        }
        for junk in ["", "a", "akx", "AK", "ak\u{0}", "dkuu", "akp"] {
            #expect(Data(junk.utf8).withUnsafeBytes { ProtectionClass(utf8: $0) } == nil, "\(junk)")
        }
    }

    @Test("every lookup shape has its own statement cache key (a shared key would run another shape's SQL)")
    func selectShapeKeysAreDistinct() {
        var seen: [Int: String] = [:]
        for itemClass in ItemClass.allCases {
            for columns in [ItemRow.Columns.whole, .identity, .contents] {
                for flags in 0..<16 {
                    for indexed in [UInt32(0), 1, 2, 3, 0b1010, 0xFFFF] {
                        for groups in [Int?.none, 0, 1, 2, 253] {
                            var shape = ItemSQL.SelectShape(itemClass: itemClass)
                            shape.columns = columns
                            shape.persistentID = flags & 1 != 0
                            shape.protection = flags & 2 != 0
                            shape.synchronizable = flags & 4 != 0
                            shape.limited = flags & 8 != 0
                            shape.indexedAttributes = indexed
                            shape.accessGroupCount = groups
                            guard let key = shape.cacheKey else {
                                Issue.record("no key for \(shape)")
                                continue
                            }
                            let sql = ItemSQL.select(shape)
                            if let other = seen[key] { #expect(other == sql, "key \(key) names two texts") }
                            seen[key] = sql
                        }
                    }
                }
            }
        }
        var long = ItemSQL.SelectShape(itemClass: .genericPassword)
        long.accessGroupCount = 300
        #expect(long.cacheKey == nil)
    }
}

/// The lookup reads fewer columns than whole rows (`ItemRow.Columns`): rows edited in the columns it
/// still reads are refused as before, and only the edited item is affected.
@Suite("Read path: edited rows")
struct ReadPathEditedRowTests {
    @Test("a digest of another length, a misspelled protection or a short persistent id refuses that item only; restored, it reads again")
    func editedIdentityColumns() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(genericPassword(account: "victim", secret: "v"))
        _ = try database.insert(genericPassword(account: "bystander", secret: "b"))
        let edits = ["pk_digest = substr(pk_digest, 1, 31)", "pk_digest = pk_digest || x'00'", "protection = 'akx'",
                     "persistent_id = substr(persistent_id, 1, 15)"]
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)  // SQLITE_TRANSIENT: SQLite copies
        for edit in edits {
            let original = try withRawDatabase(keychain.path) { db -> (Data, String, Data) in
                var statement: OpaquePointer?
                sqlite3_prepare_v2(db, "SELECT pk_digest, protection, persistent_id FROM items WHERE id = 1", -1, &statement, nil)
                defer { sqlite3_finalize(statement) }
                guard sqlite3_step(statement) == SQLITE_ROW else { throw CocoaError(.fileReadCorruptFile) }
                let digest = Data(bytes: sqlite3_column_blob(statement, 0), count: Int(sqlite3_column_bytes(statement, 0)))
                let protection = String(cString: sqlite3_column_text(statement, 1))
                let id = Data(bytes: sqlite3_column_blob(statement, 2), count: Int(sqlite3_column_bytes(statement, 2)))
                rawExecute(db, "UPDATE items SET \(edit) WHERE id = 1")
                return (digest, protection, id)
            }
            let reader = try keychain.open()
            let error = storeError { _ = try readSecret(reader, account: "victim") }
            #expect(error?.osStatus == -26275, "\(edit): \(String(describing: error))")
            #expect(try readSecret(reader, account: "bystander") == "b", "\(edit)")
            try withRawDatabase(keychain.path) { db in
                var statement: OpaquePointer?
                sqlite3_prepare_v2(db, "UPDATE items SET pk_digest = ?, protection = ?, persistent_id = ? WHERE id = 1", -1, &statement, nil)
                defer { sqlite3_finalize(statement) }
                original.0.withUnsafeBytes { _ = sqlite3_bind_blob(statement, 1, $0.baseAddress, Int32($0.count), transient) }
                _ = sqlite3_bind_text(statement, 2, original.1, -1, transient)
                original.2.withUnsafeBytes { _ = sqlite3_bind_blob(statement, 3, $0.baseAddress, Int32($0.count), transient) }
                #expect(sqlite3_step(statement) == SQLITE_DONE)
            }
            #expect(try readSecret(try keychain.open(), account: "victim") == "v", "\(edit) restored")
        }
    }
}
