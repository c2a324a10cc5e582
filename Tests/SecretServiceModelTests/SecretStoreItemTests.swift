import Foundation
import KeychainTestSupport
import KeychainServices
@testable import SecretService
import Synchronization
import Testing

/// The store on real keychain files in temporary directories. Serialized: the default keychain
/// is process-wide.
@Suite("Secret Service store", .serialized)
struct SecretStoreTests {
    @Test("create, search, read, replace and delete items in login")
    func itemLifecycle() throws {
        try IsolatedKeychains.withStore { store, _ in
            let attributes = ["app": "demo", "kind": "token"]
            let ref = try store.createItem(in: .login, label: "Demo token", attributes: attributes,
                                           secret: SecretValue(bytes: Array("s1".utf8)), replace: false)
            #expect(SecretItemID(rawValue: ref.item.rawValue) != nil)
            #expect(try store.search(attributes: ["app": "demo"]) == SecretSearchResult(unlocked: [ref], locked: []))
            #expect(try store.search(attributes: ["app": "demo", "kind": "other"]).unlocked.isEmpty)
            #expect(try store.search(attributes: [:]).unlocked.contains(ref))
            let info = try store.item(ref)
            #expect(info.label == "Demo token" && info.attributes == attributes)
            #expect(info.created > Date(timeIntervalSince1970: 1_700_000_000) && info.modified >= info.created)
            #expect(try store.secret(ref) == SecretValue(bytes: Array("s1".utf8), contentType: "text/plain"))

            // replace: true with the same attributes updates the same item.
            let replaced = try store.createItem(in: .login, label: "Renamed", attributes: attributes,
                                                secret: SecretValue(bytes: Array("s2".utf8)), replace: true)
            #expect(replaced == ref)
            #expect(try store.secret(ref).text == "s2")
            #expect(try store.item(ref).label == "Renamed")
            #expect(try store.itemIDs(in: .login) == [ref.item])

            // replace: false adds a second item with the same attributes.
            let second = try store.createItem(in: .login, label: "Again", attributes: attributes,
                                              secret: SecretValue(bytes: Array("s3".utf8)), replace: false)
            #expect(second != ref)
            #expect(Set(try store.search(attributes: attributes).unlocked) == [ref, second])

            try store.setLabel("L", of: second)
            try store.setSecret(second, SecretValue(bytes: [0, 1, 2], contentType: "application/octet-stream"))
            #expect(try store.secret(second) == SecretValue(bytes: [0, 1, 2], contentType: "application/octet-stream"))
            try store.setAttributes(["app": "other"], of: second)
            #expect(try store.item(second).attributes == ["app": "other"])
            #expect(try store.search(attributes: attributes).unlocked == [ref])

            try store.deleteItem(ref)
            #expect(throws: SecretServiceError.noSuchObject) { try store.item(ref) }
            #expect(throws: SecretServiceError.noSuchObject) { try store.secret(ref) }
            #expect(try store.itemIDs(in: .login) == [second.item])
        }
    }

    @Test("Python keyring items are generic passwords with kSecAttrService/kSecAttrAccount, both ways")
    func keyringMapping() throws {
        try IsolatedKeychains.withStore { store, _ in
            // Made as keychainctl add-generic-password -s S -a U does: found by keyring's query.
            #expect(IsolatedKeychains.addGeneric(service: "pypi", account: "alice", secret: "from-keychainctl") == errSecSuccess)
            let found = try store.search(attributes: ["service": "pypi", "username": "alice"]).unlocked
            try #require(found.count == 1)
            #expect(try store.secret(found[0]).text == "from-keychainctl")
            #expect(try store.item(found[0]).attributes == ["xdg:schema": "org.freedesktop.Secret.Generic", "service": "pypi", "username": "alice"])

            // keyring.set_password (replace: true, with its application attribute) overwrites that
            // item rather than adding one keychainctl cannot tell apart.
            let keyring = ["service": "pypi", "username": "alice", "application": "Python keyring library"]
            let ref = try store.createItem(in: .login, label: "Password for 'alice' on 'pypi'", attributes: keyring,
                                           secret: SecretValue(bytes: Array("from-keyring".utf8)), replace: true)
            #expect(ref == found[0])
            #expect(try store.item(ref).attributes == keyring)
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "pypi", kSecAttrAccount as String: "alice"]
            #expect(IsolatedKeychains.lookup(query) == (errSecSuccess, "from-keyring"))
            #expect(IsolatedKeychains.count(query) == 1)

            // Made here first: keychainctl's lookup by service and account finds it.
            let npm = try store.createItem(in: .login, label: "x", attributes: ["service": "npm", "username": "bob"],
                                           secret: SecretValue(bytes: Array("npm-token".utf8)), replace: false)
            let npmQuery: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "npm",
                                           kSecAttrAccount as String: "bob"]
            #expect(IsolatedKeychains.lookup(npmQuery) == (errSecSuccess, "npm-token"))
            // New attributes without service/username: the item leaves the npm/bob slot, same id.
            try store.setAttributes(["tool": "npm"], of: npm)
            #expect(IsolatedKeychains.lookup(npmQuery).0 == errSecItemNotFound)
            #expect(try store.search(attributes: ["tool": "npm"]).unlocked == [npm])
            #expect(try store.secret(npm).text == "npm-token")
            // And back: it takes the slot again.
            try store.setAttributes(["service": "npm", "username": "bob"], of: npm)
            #expect(IsolatedKeychains.lookup(npmQuery) == (errSecSuccess, "npm-token"))
        }
    }

    @Test("git-credential-libsecret items are internet passwords, both ways")
    func gitMapping() throws {
        try IsolatedKeychains.withStore { store, _ in
            #expect(IsolatedKeychains.addInternet(server: "github.com", account: "alice", protocolCode: kSecAttrProtocolHTTPS, secret: "ghp_1") == errSecSuccess)
            // git's query: user, protocol, server (no xdg:schema: the schema is DONT_MATCH_NAME).
            let found = try store.search(attributes: ["user": "alice", "protocol": "https", "server": "github.com"]).unlocked
            try #require(found.count == 1)
            #expect(try store.item(found[0]).attributes == ["xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "alice",
                                                            "protocol": "https", "server": "github.com"])
            #expect(try store.secret(found[0]).text == "ghp_1")

            // git credential store: replace with exactly those attributes updates the same item.
            let git = ["xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "alice", "protocol": "https", "server": "github.com"]
            let replaced = try store.createItem(in: .login, label: "Git: https://github.com/", attributes: git,
                                                secret: SecretValue(bytes: Array("ghp_2".utf8)), replace: true)
            #expect(replaced == found[0])
            let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "github.com",
                                        kSecAttrProtocol as String: kSecAttrProtocolHTTPS]
            #expect(IsolatedKeychains.lookup(query) == (errSecSuccess, "ghp_2"))
            #expect(IsolatedKeychains.count(query) == 1)

            // Made here with a port and a path: keychainctl sees an internet password with them.
            let withPort = ["xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "bob", "protocol": "https",
                            "server": "git.example.org", "port": "8443", "object": "team/repo.git"]
            let ref = try store.createItem(in: .login, label: "Git", attributes: withPort,
                                           secret: SecretValue(bytes: Array("pw".utf8)), replace: false)
            #expect(IsolatedKeychains.lookup([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "git.example.org",
                                              kSecAttrAccount as String: "bob", kSecAttrPort as String: 8443,
                                              kSecAttrPath as String: "team/repo.git",
                                              kSecAttrProtocol as String: kSecAttrProtocolHTTPS]) == (errSecSuccess, "pw"))
            #expect(try store.item(ref).attributes == withPort)
            #expect(ref.item.rawValue.hasPrefix(Data("inet".utf8).hex))
            // New internet attributes in place (port and path dropped), same id; others refused.
            var moved = withPort
            moved["port"] = nil
            moved["object"] = nil
            try store.setAttributes(moved, of: ref)
            #expect(try store.item(ref).attributes == moved)
            #expect(IsolatedKeychains.lookup([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "git.example.org",
                                              kSecAttrPort as String: 0, kSecAttrPath as String: ""]) == (errSecSuccess, "pw"))
            #expect(throws: SecretServiceError.notSupported("these attributes on an item stored as an internet password")) {
                try store.setAttributes(["foo": "bar"], of: ref)
            }
            #expect(try store.item(ref).attributes == moved)
        }
    }

    @Test("other attribute sets are kept faithfully in a collision-free generic slot")
    func otherAttributes() throws {
        try IsolatedKeychains.withStore { store, _ in
            var many: [String: String] = ["": "empty name", "empty": "", "ключ": "значение ✓", "xdg:schema": "org.example.Odd"]
            for index in 0..<100 { many["attribute-\(index)"] = String(repeating: "v", count: index) }
            let ref = try store.createItem(in: .login, label: "Odd ✓", attributes: many,
                                           secret: SecretValue(bytes: [0xFF, 0x00], contentType: "application/x-odd"), replace: false)
            #expect(try store.item(ref).attributes == many)
            #expect(try store.item(ref).label == "Odd ✓")
            #expect(try store.secret(ref) == SecretValue(bytes: [0xFF, 0x00], contentType: "application/x-odd"))
            #expect(try store.search(attributes: ["empty": "", "ключ": "значение ✓"]).unlocked == [ref])
            #expect(try store.search(attributes: ["empty": "x"]).unlocked.isEmpty)
            // Stored under the fallback service, its attributes encrypted in kSecAttrGeneric.
            #expect(IsolatedKeychains.count([kSecClass as String: kSecClassGenericPassword,
                                             kSecAttrService as String: AttributeMapping.fallbackService]) == 1)
            // An almost-git set that would not read back identically (protocol name with no
            // four-character code, port not canonical) is not turned into an internet password.
            let almostGit = ["xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "u", "server": "s", "protocol": "https", "port": "0443"]
            let other = try store.createItem(in: .login, label: "g", attributes: almostGit, secret: SecretValue(bytes: [1]), replace: false)
            #expect(try store.item(other).attributes == almostGit)
            #expect(IsolatedKeychains.count([kSecClass as String: kSecClassInternetPassword]) == 0)
        }
    }

    @Test("two items for one service/username: the second takes the collision-free slot; keychainctl sees the first")
    func primaryKeyCollision() throws {
        try IsolatedKeychains.withStore { store, _ in
            let first = try store.createItem(in: .login, label: "a", attributes: ["service": "s", "username": "u", "app": "1"],
                                             secret: SecretValue(bytes: Array("one".utf8)), replace: false)
            let second = try store.createItem(in: .login, label: "b", attributes: ["service": "s", "username": "u", "app": "2"],
                                              secret: SecretValue(bytes: Array("two".utf8)), replace: false)
            #expect(first != second)
            #expect(Set(try store.search(attributes: ["service": "s", "username": "u"]).unlocked) == [first, second])
            #expect(try store.search(attributes: ["app": "2"]).unlocked == [second])
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s", kSecAttrAccount as String: "u"]
            #expect(IsolatedKeychains.lookup(query) == (errSecSuccess, "one"))
            // Once the first is gone, the second is still found by its attributes.
            try store.deleteItem(first)
            #expect(try store.search(attributes: ["service": "s", "username": "u"]).unlocked == [second])
            #expect(try store.secret(second).text == "two")
        }
    }

    @Test("unknown items and collections are noSuchObject; ids are D-Bus path elements")
    func unknownObjects() throws {
        try IsolatedKeychains.withStore { store, _ in
            let bogus = try #require(SecretItemID(rawValue: String(repeating: "0", count: 8) + String(repeating: "a", count: 32)))
            #expect(throws: SecretServiceError.noSuchObject) { try store.item(SecretItemRef(collection: .login, item: bogus)) }
            let missing = try #require(SecretCollectionID(rawValue: "nope"))
            #expect(throws: SecretServiceError.noSuchObject) { try store.collection(missing) }
            #expect(throws: SecretServiceError.noSuchObject) { try store.itemIDs(in: missing) }
            #expect(SecretCollectionID(rawValue: "a/b") == nil && SecretCollectionID(rawValue: "") == nil && SecretCollectionID(rawValue: "é") == nil)
            #expect(SecretItemID(rawValue: "xyz") == nil)
        }
    }
}

extension SecretStoreTests {
    @Test("the real keychainctl and the store see the same items, both ways")
    func withKeychainctl() throws {
        try IsolatedKeychains.withStore { store, directory in
            let generic = try KeychainctlRunner.run(["add-generic-password", "-s", "pypi", "-a", "alice", "-w"], stdin: "gen-secret\n", directory: directory)
            try #require(generic.status == 0)
            let internet = try KeychainctlRunner.run(["add-internet-password", "-s", "github.com", "-a", "bob", "-r", "https", "-w"],
                                                     stdin: "git-secret\n", directory: directory)
            try #require(internet.status == 0)

            // secret-tool lookup service pypi username alice / Python keyring.get_password.
            let keyringHit = try store.search(attributes: ["service": "pypi", "username": "alice"]).unlocked
            try #require(keyringHit.count == 1)
            #expect(try store.secret(keyringHit[0]).text == "gen-secret")
            // git credential-libsecret get for https://bob@github.com.
            let gitHit = try store.search(attributes: ["user": "bob", "protocol": "https", "server": "github.com"]).unlocked
            try #require(gitHit.count == 1)
            #expect(try store.secret(gitHit[0]).text == "git-secret")

            // Created here, read by keychainctl.
            _ = try store.createItem(in: .login, label: "npm", attributes: ["service": "npm", "username": "carol", "application": "Python keyring library"],
                                     secret: SecretValue(bytes: Array("npm-secret".utf8)), replace: true)
            #expect(try KeychainctlRunner.run(["find-generic-password", "-s", "npm", "-a", "carol", "-w"], directory: directory)
                == (0, "npm-secret\n"))
            _ = try store.createItem(in: .login, label: "Git: https://gitlab.com/",
                                     attributes: ["xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "dave", "protocol": "https", "server": "gitlab.com"],
                                     secret: SecretValue(bytes: Array("glpat".utf8)), replace: true)
            #expect(try KeychainctlRunner.run(["find-internet-password", "-s", "gitlab.com", "-a", "dave", "-r", "htps", "-w"], directory: directory)
                == (0, "glpat\n"))
        }
    }
}

extension SecretStoreTests {
    @Test("calls from several threads at once: every item created once, every search consistent")
    func concurrentCalls() throws {
        try IsolatedKeychains.withStore { store, _ in
            let errors = Mutex<[SecretServiceError]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in 0..<10 {
                    do throws(SecretServiceError) {
                        _ = try store.createItem(in: .login, label: "t", attributes: ["thread": "\(thread)", "index": "\(index)"],
                                                 secret: SecretValue(bytes: [UInt8(thread), UInt8(index)]), replace: false)
                        _ = try store.search(attributes: ["thread": "\(thread)"])
                    } catch {
                        errors.withLock { $0.append(error) }
                    }
                }
            }
            #expect(errors.withLock { $0 }.isEmpty)
            #expect(try store.itemIDs(in: .login).count == 40)
            for thread in 0..<4 {
                let found = try store.search(attributes: ["thread": "\(thread)"]).unlocked
                #expect(found.count == 10)
                #expect(Set(try found.map { try store.secret($0).bytes[0] }) == [UInt8(thread)])
            }
        }
    }
}
