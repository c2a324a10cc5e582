import Foundation
import KeychainTestSupport
@testable import KeychainStore
import KeychainVocabulary
import Testing

/// Opening a keychain file that this process already has open must leave the open connection's
/// SQLite locks in place. A POSIX lock belongs to the process and the file, and closing any
/// descriptor of the file drops it; the check before SQLite opens a keychain (that the file is a
/// regular file of this user's, with one name) must therefore not drop the locks of another
/// connection of this process to the same file, or another process would believe it is alone with
/// the keychain (https://www.sqlite.org/howtocorrupt.html, section 2.2).
@Suite("A second open of one keychain keeps the first connection's locks")
struct SecondOpenLockTests {
    /// The POSIX locks this process holds on `path`.
    private static func locksHeld(on path: String) throws -> Int {
        try #require(ProcessLocks.held(on: path), "\(path) exists and /proc/locks can be read")
    }

    @Test("the check before a second open drops no lock the first connection holds on the database file")
    func secondOpenKeepsLocks() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let first = try keychain.open()
        _ = try first.insert(NewItem(itemClass: .genericPassword, attributes: ["acct": .string("a"), "svce": .string("s")],
                                     data: Data("1".utf8), protection: .afterFirstUnlock))
        let before = try Self.locksHeld(on: keychain.path)
        try #require(before > 0, "the first connection holds a lock on the database file")
        let second = try keychain.open()
        #expect(try Self.locksHeld(on: keychain.path) >= before, "opening the keychain again dropped the first connection's locks")
        _ = second
        _ = try first.insert(NewItem(itemClass: .genericPassword, attributes: ["acct": .string("b"), "svce": .string("s")],
                                     data: Data("2".utf8), protection: .afterFirstUnlock))
    }
}
