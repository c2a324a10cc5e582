import Foundation
import KeychainServices
import KeychainTestSupport
@testable import SecretService
import Testing

/// Access decisions read the per-application access record from the store's cache; a change
/// that `keychainctl app-access` makes in its own process takes effect on the next read.
@Suite("Secret Service store: the cached access record", .serialized)
struct AccessRecordCacheTests {
    private static let password = "work password"

    @Test("a policy, a trust and an untrust set by keychainctl in another process reach the next decision")
    func keychainctlChangesReachTheNextRead() throws {
        try IsolatedKeychains.withStore { store, directory in
            // A collection with a password: keychainctl loosens its record with that password, no prompt.
            let id = try store.createCollection(label: "Work", password: Data(Self.password.utf8))
            let file = try store.keychainPath(of: id)
            let ref = try store.createItem(in: id, label: "w", attributes: ["service": "work", "username": "u"],
                                           secret: SecretValue(bytes: Array("w".utf8)), replace: false)
            try store.changeApplicationList(of: ref) { $0 = ItemApplicationList(creator: "/usr/bin/creator") }
            let first = try store.applicationAccessRecord(of: id, items: [ref.item.rawValue])
            #expect(first.policy == .allow)
            #expect(store.accessRecordCache[id] != nil, "a read fills the cache")
            #expect(try store.applicationAccessRecord(of: id, items: [ref.item.rawValue]) == first)

            func keychainctl(_ arguments: [String]) throws {
                let run = try KeychainctlRunner.run(["app-access"] + arguments, stdin: Self.password + "\n", directory: directory)
                try #require(run.status == 0, "keychainctl app-access \(arguments): \(run)")
            }
            try keychainctl(["policy", "deny", "--keychain", file])
            #expect(try store.applicationAccessRecord(of: id, items: [ref.item.rawValue]).policy == .deny)

            try keychainctl(["trust", "--item", ref.item.rawValue, "/usr/bin/granted", file])
            #expect(try store.applicationAccessRecord(of: id, items: [ref.item.rawValue]).list(of: ref.item.rawValue).trusts("/usr/bin/granted"))

            try keychainctl(["policy", "allow", "--keychain", file])
            #expect(try store.applicationAccessRecord(of: id, items: [ref.item.rawValue]).policy == .allow)

            // A revoke, on the login keychain (no password: keychainctl opens it without asking).
            let loginRef = try store.createItem(in: .login, label: "l", attributes: ["service": "login", "username": "u"],
                                                secret: SecretValue(bytes: Array("l".utf8)), replace: false)
            try store.changeApplicationList(of: loginRef) { $0 = ItemApplicationList(creator: "/usr/bin/creator", trusted: ["/usr/bin/granted"]) }
            #expect(try store.applicationAccessRecord(of: .login, items: [loginRef.item.rawValue]).list(of: loginRef.item.rawValue).trusts("/usr/bin/granted"))
            #expect(store.accessRecordCache[.login] != nil)
            try keychainctl(["untrust", "--item", loginRef.item.rawValue, "/usr/bin/granted"])
            #expect(!(try store.applicationAccessRecord(of: .login, items: [loginRef.item.rawValue]).list(of: loginRef.item.rawValue).trusts("/usr/bin/granted")))
        }
    }

    @Test("the provider's own list changes are read back at once; locking drops the cached record")
    func ownChangesAndLock() throws {
        try IsolatedKeychains.withStore { store, _ in
            let id = try store.createCollection(label: "Work", password: Data(Self.password.utf8))
            let ref = try store.createItem(in: id, label: "w", attributes: ["service": "work", "username": "u"],
                                           secret: SecretValue(bytes: Array("w".utf8)), replace: false)
            #expect(!(try store.applicationAccessRecord(of: id, items: [ref.item.rawValue]).list(of: ref.item.rawValue).trusts("/usr/bin/mine")))
            try store.changeApplicationList(of: ref) { $0 = ItemApplicationList(creator: "/usr/bin/mine") }
            #expect(try store.applicationAccessRecord(of: id, items: [ref.item.rawValue]).list(of: ref.item.rawValue).trusts("/usr/bin/mine"))

            try store.lock(id)
            #expect(store.accessRecordCache[id] == nil, "a locked collection's lists leave memory")
            #expect(throws: SecretServiceError.isLocked) { try store.applicationAccessRecord(of: id, items: [ref.item.rawValue]) }
        }
    }
}
