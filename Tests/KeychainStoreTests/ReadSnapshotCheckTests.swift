import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore

/// A read checks the key hierarchy against the snapshot its own `SELECT` read
/// (`SQLITE_FCNTL_DATA_VERSION`), not with a `PRAGMA data_version` before each call
/// (one statement fewer per read).
/// Another handle's changes must still be followed at the first read that returns items, and
/// this handle's own writes must not make it distrust its reads.
@Suite("Reads follow other handles' changes from their own snapshot")
struct ReadSnapshotCheckTests {
    @Test("a password change by another handle between reads: a miss still misses, the next hit is locked, the new password opens")
    func passwordChangeBetweenReads() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let reader = try keychain.open(password: "pw")
        _ = try reader.insert(genericPassword(account: "a", secret: "1"))
        #expect(try readSecret(reader, account: "a") == "1")

        let other = try keychain.open(password: "pw")
        try other.changePassword(from: Data("pw".utf8), to: Data("new".utf8))
        #expect(try readSecret(reader, account: "absent") == nil)
        #expect(storeError { _ = try readSecret(reader, account: "a") } == .locked)
        try reader.unlock(password: Data("new".utf8))
        #expect(try readSecret(reader, account: "a") == "1")
    }

    @Test("the password removed by another handle: the next read opens the item without an unlock")
    func passwordRemovedElsewhere() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let reader = try keychain.open(password: "pw")
        _ = try reader.insert(genericPassword(account: "a", secret: "1"))
        reader.lockKeychain()
        #expect(storeError { _ = try readSecret(reader, account: "a") } == .locked)
        let other = try keychain.open(password: "pw")
        try other.changePassword(from: Data("pw".utf8), to: nil)
        #expect(try readSecret(reader, account: "a") == "1")
    }

    @Test("an item another handle adds is found at once; this handle's own writes and reads alternate without error")
    func ownAndOtherWrites() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let reader = try keychain.open(password: "pw")
        let other = try keychain.open(password: "pw")
        for index in 0..<5 {
            _ = try reader.insert(genericPassword(account: "own-\(index)", secret: "o\(index)"))
            #expect(try readSecret(reader, account: "own-\(index)") == "o\(index)")
            _ = try other.insert(genericPassword(account: "other-\(index)", secret: "x\(index)"))
            #expect(try readSecret(reader, account: "other-\(index)") == "x\(index)")
        }
    }

    @Test("a hierarchy altered on disk after this handle's last check is refused at the next read that returns an item")
    func alteredAfterCheck() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let reader = try keychain.open(password: "pw")
        _ = try reader.insert(genericPassword(account: "a", secret: "s"))
        #expect(try readSecret(reader, account: "a") == "s")
        try withRawDatabase(keychain.path) {
            rawExecute($0, "INSERT OR REPLACE INTO meta (key, value) VALUES ('auto_lock_seconds', x'0000000000000001')")
        }
        #expect(storeError { _ = try readSecret(reader, account: "a") }?.osStatus == -26275)
        #expect(storeError { _ = try readSecret(reader, account: "a") }?.osStatus == -26275, "refused again, not only once")
        #expect(try readSecret(reader, account: "absent") == nil)  // a lookup that finds nothing uses no key
        #expect(storeError { _ = try readSecret(reader, account: "a") }?.osStatus == -26275)
    }
}
