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
    /// The POSIX locks this process holds on `path` (from `/proc/locks`).
    private static func locksHeld(on path: String) throws -> Int {
        var info = stat()
        try #require(stat(path, &info) == 0, "\(path) exists")
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/locks"))
        let text = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let pid = String(getpid())
        let inode = String(info.st_ino)
        return text.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let posix = fields.firstIndex(of: "POSIX"), fields.count > posix + 4 else { return false }
            return fields[posix + 3] == pid && fields[posix + 4].split(separator: ":").last.map(String.init) == inode
        }.count
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
