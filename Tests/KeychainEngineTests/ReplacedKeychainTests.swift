import Foundation
import Testing
@testable import KeychainEngine
import KeychainStore
import KeychainTestSupport
import KeychainVocabulary
#if canImport(Glibc)
import Glibc
#endif

/// The registry: once a call has reported that the keychain file was deleted
/// or replaced, the registry drops the dead handle. A deleted keychain stays refused — no call
/// creates a new, password-less one in its place — until a keychain exists at the path again,
/// which the next call then opens.
@Suite("Registry: a keychain file replaced while open")
struct ReplacedKeychainTests {
    @Test("after the deletion every call is refused and nothing is created; once a keychain is created at the path, it is opened")
    func reopensAfterReporting() throws {
        let scratch = try TemporaryKeychain("replaced")
        defer { scratch.remove() }
        let path = scratch.path
        let registry = try scratch.registry()
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

        // The calls after the refused one, a storing one too, are refused as well, and create nothing.
        for _ in 0..<2 {
            var refused: KeychainStoreError?
            do { _ = try registry.database(at: path, createIfMissing: true).insert(item("lost")) } catch { refused = error }
            guard case .keychainReplaced(let again)? = refused?.reason else {
                Issue.record("expected keychainReplaced again, got \(String(describing: refused))")
                return
            }
            #expect(again == path)
            #expect(!FileManager.default.fileExists(atPath: path), "a call recreated the deleted keychain")
        }

        // The user creates a keychain at the path again (create-keychain, here another handle).
        let recreated = try KeychainDatabase.open(path: path, password: nil, options: registry.options(createIfMissing: true))
        _ = try recreated.insert(item("recreated"))
        let second = try registry.database(at: path)
        #expect(second !== first)
        _ = try second.insert(item("three"))
        var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["g"]))
        query.filters = ["svce": .string("s")]
        let accounts = try second.find(query, decrypt: true).compactMap { $0.attributes["acct"] }
        #expect(accounts == [.string("recreated"), .string("three")], "\(accounts)")
    }
}
