// SecItem semantics through SecItem* only, written so that the same file compiles and passes
// against Apple's Security on a Mac (see docs/PORTING.md, "Running the parity suite on a Mac")
// and against KeychainServices on Linux. The numbers are those of the engine's conformance suite
// (Tests/KeychainEngineTests), which checks the same rules, and more, below the API.

import Foundation
import KeychainServices
import Testing

@Suite("SecItem parity (compiles against Apple's Security too)", .serialized)
struct SecItemParityTests {
    @Test("1 adding the same generic password twice is errSecDuplicateItem; another account is another item")
    func duplicate() {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        #expect(keychain.add(keychain.password("a", [kSecValueData: Data("1".utf8)])).0 == errSecSuccess)
        #expect(keychain.add(keychain.password("a", [kSecValueData: Data("2".utf8)])).0 == errSecDuplicateItem)
        #expect(keychain.add(keychain.password("b", [kSecValueData: Data("3".utf8)])).0 == errSecSuccess)
    }

    @Test("1 internet passwords: another port or path is another item")
    func internetPrimaryKey() {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        #expect(keychain.add(keychain.internetPassword("a", [kSecAttrPort: 443, kSecValueData: Data("x".utf8)])).0 == errSecSuccess)
        #expect(keychain.add(keychain.internetPassword("a", [kSecAttrPort: 443, kSecValueData: Data("y".utf8)])).0 == errSecDuplicateItem)
        #expect(keychain.add(keychain.internetPassword("a", [kSecAttrPort: 8443, kSecValueData: Data("z".utf8)])).0 == errSecSuccess)
        #expect(keychain.add(keychain.internetPassword("a", [kSecAttrPort: 443, kSecAttrPath: "/other",
                                                             kSecValueData: Data("w".utf8)])).0 == errSecSuccess)
    }

    @Test("2 reading an absent item is errSecItemNotFound and leaves the result untouched")
    func notFound() {
        let keychain = ParityKeychain()
        var result: CFTypeRef? = "untouched" as CFString
        #expect(SecItemCopyMatching(keychain.scoped(keychain.password("none", [kSecReturnData: true])), &result) == errSecItemNotFound)
        #expect(result as? String == "untouched")
    }

    @Test("20/27/28 result shapes: data alone, attributes alone, an array with kSecMatchLimitAll")
    func resultShapes() throws {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        keychain.add(keychain.password("a", [kSecValueData: Data("secret-a".utf8), kSecAttrLabel: "label a"]))
        keychain.add(keychain.password("b", [kSecValueData: Data("secret-b".utf8)]))
        #expect(keychain.copy(keychain.password("a", [kSecReturnData: true])).1 as? Data == Data("secret-a".utf8))
        let attributes = try #require(keychain.copy(keychain.password("a", [kSecReturnAttributes: true])).1 as? [String: Any])
        #expect(attributes[kSecAttrAccount as String] as? String == "a")
        #expect(attributes[kSecAttrLabel as String] as? String == "label a")
        #expect(attributes[kSecValueData as String] == nil)
        let all: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: keychain.service,
                                    kSecMatchLimit: kSecMatchLimitAll, kSecReturnAttributes: true, kSecReturnData: true]
        let items = try #require(keychain.copy(all).1 as? [[String: Any]])
        #expect(Set(items.compactMap { $0[kSecAttrAccount as String] as? String }) == ["a", "b"])
        #expect(Set(items.compactMap { $0[kSecValueData as String] as? Data }) == [Data("secret-a".utf8), Data("secret-b".utf8)])
    }

    @Test("3.4 no kSecReturn key is an existence test: success and no result")
    func existence() {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        keychain.add(keychain.password("a", [kSecValueData: Data("x".utf8)]))
        let (status, result) = keychain.copy(keychain.password("a"))
        #expect(status == errSecSuccess && result == nil)
    }

    @Test("8 update replaces the data and an attribute; 10 updating an absent item is errSecItemNotFound")
    func update() throws {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        keychain.add(keychain.password("a", [kSecValueData: Data("old".utf8)]))
        #expect(keychain.update(keychain.password("a"), [kSecValueData: Data("new".utf8), kSecAttrLabel: "L"]) == errSecSuccess)
        #expect(keychain.copy(keychain.password("a", [kSecReturnData: true])).1 as? Data == Data("new".utf8))
        let attributes = try #require(keychain.copy(keychain.password("a", [kSecReturnAttributes: true])).1 as? [String: Any])
        #expect(attributes[kSecAttrLabel as String] as? String == "L")
        #expect(keychain.update(keychain.password("none"), [kSecValueData: Data("x".utf8)]) == errSecItemNotFound)
    }

    @Test("9 update with kSecValueData that is not data is errSecParam, and nothing changes")
    func updateWrongType() {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        keychain.add(keychain.password("a", [kSecValueData: Data("old".utf8)]))
        #expect(keychain.update(keychain.password("a"), [kSecValueData: "a string"]) == errSecParam)
        #expect(keychain.copy(keychain.password("a", [kSecReturnData: true])).1 as? Data == Data("old".utf8))
    }

    @Test("11 an update that would make two items equal is errSecDuplicateItem")
    func updateCollision() {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        keychain.add(keychain.password("a", [kSecValueData: Data("1".utf8)]))
        keychain.add(keychain.password("b", [kSecValueData: Data("2".utf8)]))
        #expect(keychain.update(keychain.password("a"), [kSecAttrAccount: "b"]) == errSecDuplicateItem)
        #expect(keychain.copy(keychain.password("a", [kSecReturnData: true])).1 as? Data == Data("1".utf8))
    }

    @Test("15 a non-attribute key in attributesToUpdate is errSecNoSuchAttr")
    func updateNonAttribute() {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        keychain.add(keychain.password("a", [kSecValueData: Data("1".utf8)]))
        #expect(keychain.update(keychain.password("a"), [kSecClass: kSecClassInternetPassword]) == errSecNoSuchAttr)
    }

    @Test("18 delete removes every match of the query; deleting again is errSecItemNotFound")
    func deleteAllMatches() {
        let keychain = ParityKeychain()
        keychain.add(keychain.password("a", [kSecValueData: Data("1".utf8)]))
        keychain.add(keychain.password("b", [kSecValueData: Data("2".utf8)]))
        let everything: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: keychain.service]
        #expect(keychain.delete(everything) == errSecSuccess)
        #expect(keychain.copy(keychain.password("a")).0 == errSecItemNotFound)
        #expect(keychain.copy(keychain.password("b")).0 == errSecItemNotFound)
        #expect(keychain.delete(everything) == errSecItemNotFound)
    }

    @Test("6 an attribute of another class is errSecNoSuchAttr")
    func foreignAttribute() {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        #expect(keychain.add(keychain.password("a", [kSecAttrServer: "example.com", kSecValueData: Data("1".utf8)])).0 == errSecNoSuchAttr)
    }

    @Test("19 a persistent reference returned by add finds the item, survives an update and dies with it")
    func persistentReference() throws {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        let reference = try #require(keychain.add(keychain.password("a", [kSecValueData: Data("1".utf8), kSecReturnPersistentRef: true])).1 as? Data)
        #expect(keychain.copy([kSecValuePersistentRef: reference, kSecReturnData: true]).1 as? Data == Data("1".utf8))
        #expect(keychain.update(keychain.password("a"), [kSecValueData: Data("2".utf8)]) == errSecSuccess)
        #expect(keychain.copy([kSecValuePersistentRef: reference, kSecReturnData: true]).1 as? Data == Data("2".utf8))
        #expect(keychain.delete(keychain.password("a")) == errSecSuccess)
        #expect(keychain.copy([kSecValuePersistentRef: reference, kSecReturnData: true]).0 == errSecItemNotFound)
    }

    @Test("3.9 items are not synchronizable unless asked; kSecAttrSynchronizableAny finds both kinds")
    func synchronizableDefault() throws {
        let keychain = ParityKeychain()
        defer {
            keychain.removeAll()
            SecItemDelete(keychain.scoped([kSecClass: kSecClassGenericPassword, kSecAttrService: keychain.service,
                                           kSecAttrSynchronizable: kSecAttrSynchronizableAny]))
        }
        keychain.add(keychain.password("local", [kSecValueData: Data("1".utf8)]))
        keychain.add(keychain.password("synced", [kSecValueData: Data("2".utf8), kSecAttrSynchronizable: true]))
        #expect(keychain.copy(keychain.password("synced")).0 == errSecItemNotFound)
        #expect(keychain.copy(keychain.password("synced", [kSecAttrSynchronizable: true])).0 == errSecSuccess)
        let any: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: keychain.service,
                                    kSecAttrSynchronizable: kSecAttrSynchronizableAny, kSecMatchLimit: kSecMatchLimitAll,
                                    kSecReturnAttributes: true]
        let items = try #require(keychain.copy(any).1 as? [[String: Any]])
        #expect(items.count == 2)
    }

    @Test("54 accessibility defaults to kSecAttrAccessibleWhenUnlocked and is returned with the attributes")
    func defaultAccessibility() throws {
        let keychain = ParityKeychain()
        defer { keychain.removeAll() }
        keychain.add(keychain.password("a", [kSecValueData: Data("1".utf8)]))
        let attributes = try #require(keychain.copy(keychain.password("a", [kSecReturnAttributes: true])).1 as? [String: Any])
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
    }
}
