import KeychainPrimitives
import CSQLite
import Crypto
import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore
import KeychainVocabulary
import KeychainItemCodec

/// What an add writes is part of the file format: the faster add must write exactly
/// the bytes the format defines — payload encoding, primary-key digest, blind indexes — and fresh
/// random values for every item.
@Suite("Add path: the format's bytes and fresh randomness")
struct AddPathFormatTests {
    /// The payload encoding as the format defines it (docs/FILE-FORMAT.md), appended piece by piece.
    private func referenceEncoding(_ payload: ItemPayload) -> Data {
        var out = Data([1])
        for name in payload.attributes.keys.sorted() {
            guard let value = payload.attributes[name] else { continue }
            out.append(UInt8(ascii: "A"))
            out.append(UInt8(name.utf8.count))
            out.append(Data(name.utf8))
            let (kind, bytes): (UInt8, Data)
            switch value {
            case .string(let text): (kind, bytes) = (UInt8(ascii: "s"), Data(text.utf8))
            case .data(let data): (kind, bytes) = (UInt8(ascii: "d"), data)
            case .number(let number):
                var field = Data()
                field.appendBigEndian(UInt64(bitPattern: number))
                (kind, bytes) = (UInt8(ascii: "n"), field)
            case .date(let date):
                var field = Data()
                field.appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern)
                (kind, bytes) = (UInt8(ascii: "t"), field)
            }
            out.append(kind)
            out.appendBigEndian(UInt32(bytes.count))
            out.append(bytes)
        }
        if let data = payload.data {
            out.append(UInt8(ascii: "D"))
            out.appendBigEndian(UInt32(data.count))
            out.append(data)
        }
        if let flags = payload.accessControlFlags {
            out.append(UInt8(ascii: "C"))
            out.appendBigEndian(flags)
            if let state = payload.biometryDomainState {
                out.append(UInt8(ascii: "B"))
                out.append(UInt8(state.count))
                out.append(state)
            }
        }
        return out
    }

    /// The primary-key digest as the format defines it: HMAC("pk" ‖ field(class) ‖ field(name) ‖
    /// field(canonical value) for each key attribute, defaults for absent ones).
    private func referenceDigest(_ attributes: [String: AttributeValue], _ itemClass: ItemClass, _ key: SymmetricKey) -> Data {
        var message = Data("pk".utf8)
        message.appendField(Data(itemClass.rawValue.utf8))
        for name in itemClass.primaryKey {
            let kind = itemClass.attributes[name] ?? .blob
            message.appendField(Data(name.utf8))
            message.appendField(kind.canonicalBytes(of: attributes[name] ?? kind.defaultValue))
        }
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }

    private static let payloads: [ItemPayload] = [
        ItemPayload(attributes: [:], data: nil, accessControlFlags: nil),
        ItemPayload(attributes: ["acct": .string("alice"), "svce": .data(Data([0, 255, 7])), "sync": .number(-3),
                                 "cdat": .date(Date(timeIntervalSinceReferenceDate: 123.456)), "labl": .string("ünïcødé ✓"),
                                 "gena": .data(Data())],
                    data: Data("secret".utf8), accessControlFlags: nil),
        ItemPayload(attributes: ["acct": .string("")], data: Data(), accessControlFlags: 0x4000_0001,
                    biometryDomainState: Data(repeating: 9, count: 32)),
        ItemPayload(attributes: ["acct": .string(String(repeating: "long ", count: 100))], data: Data(repeating: 1, count: 70_000),
                    accessControlFlags: 3),
    ]

    @Test("the payload is encoded exactly as the format defines it, and decodes back", arguments: payloads)
    func payloadEncoding(_ payload: ItemPayload) throws {
        let encoded = payload.encoded()
        #expect(encoded == referenceEncoding(payload))
        #expect(try ItemPayload(decoding: encoded) == payload)
    }

    @Test("every payload of the fuzzing corpus that decodes is re-encoded exactly as the format defines it")
    func corpusEncoding() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/Corpus/FuzzItemPayload").standardizedFileURL
        let files = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
        var decoded = 0
        for file in files {
            let bytes = try Data(contentsOf: file)
            let payload: ItemPayload
            do { payload = try ItemPayload(decoding: bytes) } catch { continue }  // rejected input: nothing to encode
            decoded += 1
            #expect(payload.encoded() == referenceEncoding(payload), "\(file.lastPathComponent)")
        }
        #expect(decoded > 0, "the corpus holds decodable payloads")
    }

    @Test("the primary-key digest is the format's, for every class")
    func primaryKeyDigest() {
        let key = SymmetricKey(size: .bits256)
        let cases: [([String: AttributeValue], ItemClass)] = [
            (["acct": .string("a"), "svce": .string("s"), "agrp": .string("g"), "sync": .number(0)], .genericPassword),
            (["acct": .data(Data([1, 2])), "agrp": .string("g"), "vwht": .string("v"), "tkid": .string("t")], .genericPassword),
            (["acct": .string("a"), "srvr": .string("example.com"), "port": .number(443), "ptcl": .string("htps"),
              "agrp": .string("g")], .internetPassword),
            (["atag": .data(Data("tag".utf8)), "kcls": .number(1), "sdat": .date(Date(timeIntervalSinceReferenceDate: 5))], .key),
            ([:], .certificate),
        ]
        for (attributes, itemClass) in cases {
            #expect(ItemRecord.primaryKeyDigest(of: attributes, for: itemClass, key: BlindIndexKey(key))
                    == referenceDigest(attributes, itemClass, key), "\(itemClass)")
        }
    }

    /// The `ix_*` columns of every row, in `ItemClass.indexedAttributes` order, by row id.
    private func storedIndexes(_ path: String) throws -> [Int64: [Data?]] {
        let columns = ItemClass.indexedAttributes.map { "ix_\($0)" }.joined(separator: ", ")
        return try withRawDatabase(path) { db in
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, "SELECT id, \(columns) FROM items", -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            var rows: [Int64: [Data?]] = [:]
            while sqlite3_step(statement) == SQLITE_ROW {
                rows[sqlite3_column_int64(statement, 0)] = (1...ItemClass.indexedAttributes.count).map { column in
                    guard sqlite3_column_type(statement, Int32(column)) != SQLITE_NULL else { return nil }
                    let count = Int(sqlite3_column_bytes(statement, Int32(column)))
                    return count == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, Int32(column)), count: count)
                }
            }
            return rows
        }
    }

    @Test("every blind index an add stores (cached, precomputed or computed) is the format's")
    func storedBlindIndexes() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        var items: [NewItem] = [
            genericPassword(account: "a", secret: "1"),
            genericPassword(account: "b", service: "other", group: "app", secret: "2"),
            NewItem(itemClass: .genericPassword,
                    attributes: ["acct": .data(Data([1, 2])), "svce": .string("svc"), "agrp": .string("app"), "sync": .number(1),
                                 "vwht": .string("view"), "tkid": .string("token")],
                    data: Data("3".utf8), protection: .afterFirstUnlock),
            NewItem(itemClass: .internetPassword,
                    attributes: ["acct": .string("c"), "srvr": .string("example.com"), "port": .number(8443),
                                 "agrp": .string("app"), "sync": .number(0)],
                    data: Data("4".utf8), protection: .whenUnlocked),
        ]
        items.append(genericPassword(account: "d", secret: "5"))  // the cached service and group again
        var stored: [KeychainItem] = []
        for item in items { stored.append(try database.insert(item)) }
        let rows = try storedIndexes(keychain.path)
        #expect(rows.count == items.count)
        for (offset, item) in stored.enumerated() {
            let expected = ItemRecord.blindIndexes(of: item.attributes, for: item.itemClass, key: database.indexKey).map { value -> Data? in
                if case .blob(let bytes) = value { return bytes }
                return nil
            }
            #expect(rows[Int64(offset + 1)] == expected, "item \(offset)")
        }
    }

    @Test("each add draws fresh values: a random (version 4) persistent id, item key and nonces")
    func freshRandomness() throws {
        var ids = Set<UUID>()
        var keys = Set<Data>()
        var nonces = Set<Data>()
        for _ in 0..<200 {
            let drawn = try ItemRandomness.draw()
            let uuid = drawn.persistentID.uuid
            #expect(uuid.6 >> 4 == 4, "version 4")
            #expect(uuid.8 >> 6 == 0b10, "RFC variant")
            ids.insert(drawn.persistentID)
            keys.insert(Sealing.bytes(of: drawn.seal.itemKey))
            nonces.insert(Data(drawn.seal.payloadNonce))
            nonces.insert(Data(drawn.seal.keyNonce))
        }
        #expect(ids.count == 200 && keys.count == 200 && nonces.count == 400)
        #expect(!keys.contains(Data(repeating: 0, count: 32)))

        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        let first = try database.insert(genericPassword(account: "x", secret: "same"))
        let second = try database.insert(genericPassword(account: "y", secret: "same"))
        #expect(first.persistentID != second.persistentID)
        let payloads = try rawPayloads(keychain.path)
        #expect(payloads.count == 2 && payloads[0] != payloads[1])
        #expect(payloads.allSatisfy { $0.prefix(12) != Data(repeating: 0, count: 12) }, "a nonce leads each payload")
    }
}
