import CSQLite
import Foundation
import KeychainTestSupport
@testable import KeychainStore
import KeychainVocabulary
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A keychain file deleted or replaced under a running process. SQLite keeps the old file
/// open, so without a check every later write would go into a file no one opens again while
/// reporting success. The handle compares the path's device and inode with the file it opened
/// at every call and refuses, naming the path.
@Suite("Keychain file deleted or replaced while open")
struct FileReplacedTests {
    private func isReplaced(_ error: KeychainStoreError?, _ path: String) -> Bool {
        if case .keychainReplaced(let named)? = error?.reason { return named == path }
        return false
    }

    @Test("after the file is deleted, a write and a read are refused (errSecNoSuchKeychain, path named); nothing is stored anywhere")
    func deletedFile() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(genericPassword(account: "before", secret: "one"))
        #expect(unlink(keychain.path) == 0)

        let writeError = storeError { _ = try database.insert(genericPassword(account: "after", secret: "two")) }
        #expect(isReplaced(writeError, keychain.path), "\(String(describing: writeError))")
        #expect(writeError?.osStatus == -25294)
        #expect(String(describing: writeError!).contains("was deleted or replaced while open"))
        let readError = storeError { _ = try readSecret(database, account: "before") }
        #expect(isReplaced(readError, keychain.path))
        // The handle stays refused, also for updates and deletes.
        #expect(isReplaced(storeError { try database.delete(query(account: "before")) }, keychain.path))
        // The refused write did not create a file at the path either.
        #expect(!FileManager.default.fileExists(atPath: keychain.path))
    }

    @Test("after another keychain is moved into its place, a write is refused and lands in neither file")
    func replacedFile() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(genericPassword(account: "original", secret: "one"))
        // A second keychain (say, a restored copy) is renamed over the first.
        let otherPath = keychain.directoryURL.appendingPathComponent("other.keychain-db").path
        do {
            let other = try KeychainDatabase.open(path: otherPath, password: nil, options: keychain.options)
            _ = try other.insert(genericPassword(account: "restored", secret: "two"))
            #expect(other.checkpointAndTruncateLogForTests())
        }
        #expect(rename(otherPath, keychain.path) == 0)
        for suffix in ["-wal", "-shm"] { _ = unlink(keychain.path + suffix) }

        let error = storeError { _ = try database.insert(genericPassword(account: "lost", secret: "three")) }
        #expect(isReplaced(error, keychain.path), "\(String(describing: error))")
        #expect(isReplaced(storeError { _ = try readSecret(database, account: "original") }, keychain.path))

        // The file now at the path is the replacement, without the refused write.
        let reopened = try keychain.open()
        #expect(try readSecret(reopened, account: "restored") == "two")
        #expect(try readSecret(reopened, account: "lost") == nil)
        #expect(try readSecret(reopened, account: "original") == nil)
    }

    @Test("a new keychain at the path of a deleted one is not mixed with the old one's log, nor harmed when the old handle goes")
    func newKeychainAfterDeletion() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        var old: KeychainDatabase? = try keychain.open()
        _ = try old?.insert(genericPassword(account: "old", secret: "one"))  // in the old file's -wal
        #expect(unlink(keychain.path) == 0)
        #expect(storeError { _ = try old?.insert(genericPassword(account: "x", secret: "x")) } != nil)

        let new = try keychain.open()
        _ = try new.insert(genericPassword(account: "new", secret: "two"))
        #expect(try readSecret(new, account: "old") == nil)
        // SQLite closing the old handle would delete the -wal and -shm by name: the new ones.
        old = nil
        #expect(try readSecret(new, account: "new") == "two")
        #expect(try readSecret(keychain.open(), account: "new") == "two")
    }

    @Test("a handle whose file is untouched keeps working (the check refuses nothing else)")
    func untouchedFile() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        for index in 0..<20 { _ = try database.insert(genericPassword(account: "a\(index)", secret: "s\(index)")) }
        #expect(try readSecret(database, account: "a19") == "s19")
        #expect(!database.wasReplaced)
    }
}

extension KeychainDatabase {
    /// Empties the write-ahead log so the main file holds every change (the test moves it alone).
    func checkpointAndTruncateLogForTests() -> Bool {
        do { return try checkpointAndTruncateLog(waitingAtMost: 1000) } catch { return false }
    }
}

/// A zero-byte file at a keychain path is not a keychain. Initialising it as a new, empty
/// keychain would hide whatever truncated it, so it is refused with the reason and the fix, and
/// left as it is. New keychains get their name only once complete.
@Suite("Empty keychain file")
struct EmptyKeychainFileTests {
    @Test("a zero-byte file is refused as not a keychain and stays untouched")
    func emptyFileRefused() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        #expect(FileManager.default.createFile(atPath: keychain.path, contents: Data(), attributes: [.posixPermissions: 0o600]))
        let error = storeError { _ = try keychain.open() }
        guard case .notAKeychain(_, let reason)? = error?.reason else {
            Issue.record("expected notAKeychain, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("is empty (0 bytes): it is not a keychain"), "\(reason)")
        let size = try FileManager.default.attributesOfItem(atPath: keychain.path)[.size] as? Int
        #expect(size == 0)
    }

    @Test("a new keychain appears complete under its name, with no temporary file left beside it")
    func creationLeavesOnlyTheKeychain() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "pw")
        _ = try database.insert(genericPassword(account: "a", secret: "s"))
        let names = try FileManager.default.contentsOfDirectory(atPath: keychain.directory)
        #expect(!names.contains { $0.contains(".creating-") }, "\(names)")
        #expect(try readSecret(keychain.open(password: "pw"), account: "a") == "s")
    }
}

/// A keychain without a password whose keychain identity was altered is reported as damage,
/// not as "the password is not correct" (there is none).
@Suite("Altered keychain identity without a password")
struct AlteredIdentityTests {
    @Test("a flipped keychain_id on a password-less keychain is undecodable, not a wrong password")
    func flippedIdentityIsDamage() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        do {
            let database = try keychain.open()
            _ = try database.insert(genericPassword(account: "a", secret: "s"))
            #expect(database.checkpointAndTruncateLogForTests())
        }
        let rowID = try withRawDatabase(keychain.path) { db -> Int64 in
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, "SELECT rowid FROM meta WHERE key = 'keychain_id'", -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else { return -1 }
            return sqlite3_column_int64(statement, 0)
        }
        try flipByte(keychain.path, table: "meta", column: "value", rowID: rowID, at: 3)
        let error = storeError { _ = try readSecret(keychain.open(), account: "a") }
        #expect(error != .wrongPassword, "\(String(describing: error))")
        #expect(error?.osStatus == -26275, "errSecDecode: \(String(describing: error))")
    }
}
