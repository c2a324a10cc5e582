import Foundation
import KeychainServices
import KeychainTestSupport
import Testing

/// `SecKeychainDelete` removes a verified keychain file and nothing else.
@Suite("SecKeychainDelete deletes only keychains")
struct SecKeychainDeleteTests {
    private func handle(_ path: String) throws -> SecKeychain {
        var keychain: SecKeychain?
        #expect(SecKeychainOpen(path, &keychain) == errSecSuccess)
        return try #require(keychain)
    }

    @Test("a directory, a file that is not a keychain and a symlink to a keychain are refused (-25295) and left as they were; a real keychain is deleted")
    func onlyVerifiedKeychains() throws {
        let scratch = try TemporaryKeychain.forAppleAPI("delete")
        defer { scratch.remove() }
        let base = scratch.directory

        let directory = base + "/documents"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try #require(FileManager.default.createFile(atPath: directory + "/thesis.txt", contents: Data("years of work".utf8)))
        #expect(SecKeychainDelete(try handle(directory)) == errSecInvalidKeychain)
        #expect(FileManager.default.contents(atPath: directory + "/thesis.txt") == Data("years of work".utf8))

        let notes = base + "/notes.txt"
        try #require(FileManager.default.createFile(atPath: notes, contents: Data("not a keychain".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(SecKeychainDelete(try handle(notes)) == errSecInvalidKeychain)
        #expect(FileManager.default.contents(atPath: notes) == Data("not a keychain".utf8))

        let path = base + "/real.keychain-db"
        var created: SecKeychain?
        let password = Array("pw".utf8)
        #expect(password.withUnsafeBytes { SecKeychainCreate(path, UInt32(password.count), $0.baseAddress, false, nil, &created) } == errSecSuccess)
        let keychain = try #require(created)
        let link = base + "/link.keychain-db"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(SecKeychainDelete(try handle(link)) == errSecInvalidKeychain)
        #expect(FileManager.default.fileExists(atPath: path))

        #expect(SecKeychainDelete(keychain) == errSecSuccess)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: directory) && FileManager.default.fileExists(atPath: notes))
    }
}
