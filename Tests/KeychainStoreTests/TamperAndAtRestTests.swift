import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore

@Suite("Tampering and plaintext at rest")
struct TamperAndAtRestTests {
    @Test("flipping any byte of one item's ciphertext or wrapped key makes only that item fail with -26275")
    func byteFlips() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(genericPassword(account: "victim", secret: "v"))
        _ = try database.insert(genericPassword(account: "bystander", secret: "b"))
        let payloadLength = try rawPayloads(keychain.path)[0].count
        for column in ["payload", "wrapped_key"] {
            for offset in stride(from: 0, to: payloadLength, by: 7) {
                try flipByte(keychain.path, table: "items", column: column, rowID: 1, at: offset)
                let reader = try keychain.open()
                #expect(storeError { _ = try readSecret(reader, account: "victim") }?.osStatus == -26275,
                        "flip of \(column) byte \(offset)")
                #expect(try readSecret(reader, account: "bystander") == "b")
                try flipByte(keychain.path, table: "items", column: column, rowID: 1, at: offset)  // restore
            }
        }
        #expect(try readSecret(try keychain.open(), account: "victim") == "v")
    }

    @Test("swapping payloads between rows or relabelling the protection class is detected")
    func swapsAndRelabels() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(genericPassword(account: "a", secret: "secret-a"))
        _ = try database.insert(genericPassword(account: "b", secret: "secret-b"))
        _ = try database.insert(genericPassword(account: "c", secret: "secret-c", protection: .always))
        try withRawDatabase(keychain.path) { db in
            rawExecute(db, """
                UPDATE items SET payload = (SELECT payload FROM items WHERE id = 2), wrapped_key = (SELECT wrapped_key FROM items WHERE id = 2) WHERE id = 1
                """)
            rawExecute(db, "UPDATE items SET protection = 'ak' WHERE id = 3")
        }
        let reader = try keychain.open()
        #expect(storeError { _ = try readSecret(reader, account: "a") }?.osStatus == -26275)
        #expect(try readSecret(reader, account: "b") == "secret-b")
        #expect(storeError { _ = try readSecret(reader, account: "c") }?.osStatus == -26275)
    }

    @Test("an edited blind index never makes the wrong item match")
    func blindIndexEdit() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(genericPassword(account: "a", secret: "secret-a"))
        _ = try database.insert(genericPassword(account: "b", secret: "secret-b"))
        try withRawDatabase(keychain.path) { db in
            rawExecute(db, "UPDATE items SET ix_acct = (SELECT ix_acct FROM items WHERE id = 2) WHERE id = 1")
        }
        let reader = try keychain.open()
        #expect(try readSecret(reader, account: "b") == "secret-b")
        #expect(try reader.find(query(account: "b"), decrypt: true).count == 1)
    }

    @Test("a flipped keybag byte or a changed format version refuses to open or unlock")
    func keybagAndVersion() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        _ = try keychain.open(password: "pw").insert(genericPassword(account: "a", secret: "s"))
        try withRawDatabase(keychain.path) { db in
            rawExecute(db, "UPDATE meta SET value = x'00000002' WHERE key = 'format_version'")
        }
        #expect(storeError { _ = try keychain.open(password: "pw") }?.osStatus == -25291)
        try withRawDatabase(keychain.path) { db in
            rawExecute(db, "UPDATE meta SET value = x'00000001' WHERE key = 'format_version'")
        }
        try flipByte(keychain.path, table: "keybag", column: "wrapped_key", rowID: rowID(ofClass: "ak", keychain.path), at: 20)
        #expect(storeError { _ = try keychain.open(password: "pw") } != nil)
    }

    @Test("no canary secret or attribute value appears in any file, in UTF-8, UTF-16, hex or base64, even after delete")
    func noPlaintextAtRest() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        let canaries = ["CANARY-SECRET-7f3a9", "canary-account-51bd", "canary-service-e0c4", "canary-label-93aa"]
        var item = genericPassword(account: canaries[1], service: canaries[2], secret: canaries[0])
        item.attributes["labl"] = .string(canaries[3])
        _ = try database.insert(item)
        try scanForCanaries(canaries, in: keychain.directoryURL)
        _ = try database.delete(query(account: canaries[1], service: canaries[2]))
        try scanForCanaries(canaries, in: keychain.directoryURL)
    }

    private func rowID(ofClass name: String, _ path: String) throws -> Int64 {
        try withRawDatabase(path) { db in
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, "SELECT rowid FROM keybag WHERE class = '\(name)'", -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else { throw CocoaError(.fileNoSuchFile) }
            return sqlite3_column_int64(statement, 0)
        }
    }
}

import CSQLite

func scanForCanaries(_ canaries: [String], in directory: URL) throws {
    let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
    #expect(!files.isEmpty)
    for file in files {
        guard let contents = FileManager.default.contents(atPath: file.path) else { continue }
        for canary in canaries {
            let forms: [Data] = [
                Data(canary.utf8),
                canary.data(using: .utf16LittleEndian) ?? Data(),
                Data(Data(canary.utf8).hex.utf8),
                Data(Data(canary.utf8).base64EncodedString().utf8),
            ]
            for form in forms where !form.isEmpty {
                #expect(contents.range(of: form) == nil, "\(file.lastPathComponent) contains a canary")
            }
        }
    }
}
