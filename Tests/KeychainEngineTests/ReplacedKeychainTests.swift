import Foundation
import Testing
@testable import KeychainEngine
import KeychainStore
#if canImport(Glibc)
import Glibc
#endif

/// Issue 24 (3b) at the registry: once a call has reported that the keychain file was deleted
/// or replaced, the registry drops the dead handle, and the next call opens what the path names now.
@Suite("Registry: a keychain file replaced while open")
struct ReplacedKeychainTests {
    @Test("the call after the deletion is refused; the one after that opens a new keychain at the path")
    func reopensAfterReporting() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-replaced-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { _ = try? FileManager.default.removeItem(at: directory) }  // test cleanup only
        let path = directory.appendingPathComponent("login.keychain-db").path
        let registry = KeychainRegistry(readConfiguration: {
            KeychainConfiguration(environment: ["KEYCHAINKIT_KEYCHAIN": path,
                                                "KEYCHAINKIT_DEVICE_KEY_FILE": directory.appendingPathComponent("device.key").path,
                                                "KEYCHAINKIT_SESSION_KEYRING": "off"],
                                  authenticator: OwnerAuthenticator(pinentry: nil))
        })
        registry.useTestingKDF(true)
        let item = { (account: String) in
            NewItem(itemClass: .genericPassword,
                    attributes: ["acct": .string(account), "svce": .string("s"), "agrp": .string("g"), "sync": .number(0)],
                    data: Data("secret".utf8), protection: .whenUnlocked)
        }
        let first = try registry.database(at: path)
        _ = try first.insert(item("one"))
        #expect(unlink(path) == 0)

        var reported: KeychainStoreError?
        do { _ = try registry.database(at: path).insert(item("two")) } catch { reported = error }
        guard case .keychainReplaced(let named)? = reported?.reason else {
            Issue.record("expected keychainReplaced, got \(String(describing: reported))")
            return
        }
        #expect(named == path)

        let second = try registry.database(at: path)
        #expect(second !== first)
        _ = try second.insert(item("three"))
        var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["g"]))
        query.filters = ["svce": .string("s")]
        let accounts = try second.find(query, decrypt: true).compactMap { $0.attributes["acct"] }
        #expect(accounts == [.string("three")], "\(accounts)")
    }
}
