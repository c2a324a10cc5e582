import Foundation
import KeychainTestSupport
import KeychainServices
@testable import SecretService
import Testing

extension SecretStoreTests {
    @Test("login and the default alias always exist; login cannot be deleted")
    func defaults() throws {
        try IsolatedKeychains.withStore { store, directory in
            #expect(store.collectionIDs() == [.login])
            #expect(store.readAlias("default") == .login)
            #expect(store.readAlias("session") == nil)
            let login = try store.collection(.login)
            #expect(login.label == "Login" && !login.isLocked)
            #expect(store.loginPath == directory + "/login.keychain-db")
            #expect(FileManager.default.fileExists(atPath: directory + "/secret-service.json"))
            #expect(throws: SecretServiceError.notSupported("the login collection cannot be deleted")) { try store.deleteCollection(.login) }
        }
    }

    @Test("collections, labels and aliases persist across a new store; deleting a collection resets its aliases")
    func persistence() throws {
        try IsolatedKeychains.withStore { store, directory in
            let work = try store.createCollection(label: "Work stuff!", password: nil)
            #expect(work.rawValue == "Work_stuff_")
            let again = try store.createCollection(label: "Work stuff!", password: nil)
            #expect(again.rawValue == "Work_stuff__2")
            #expect(FileManager.default.fileExists(atPath: directory + "/Work_stuff_.keychain-db"))
            try store.setLabel("Work", of: work)
            try store.setAlias("default", to: work)
            try store.setAlias("session", to: again)
            let item = try store.createItem(in: work, label: "w", attributes: ["k": "v"], secret: SecretValue(bytes: [7]), replace: false)

            let reopened = try SecretStore(loginKeychainPath: directory + "/login.keychain-db")
            #expect(reopened.collectionIDs() == [.login, work, again])
            #expect(try reopened.collection(work).label == "Work")
            #expect(reopened.readAlias("default") == work)
            #expect(reopened.readAlias("session") == again)
            #expect(try reopened.search(attributes: ["k": "v"]).unlocked == [item])
            #expect(try reopened.secret(item).bytes == [7])

            try reopened.deleteCollection(again)
            #expect(reopened.readAlias("session") == nil)
            try reopened.deleteCollection(work)
            #expect(reopened.readAlias("default") == .login)
            #expect(!FileManager.default.fileExists(atPath: directory + "/Work_stuff_.keychain-db"))
            #expect(throws: SecretServiceError.noSuchObject) { try reopened.secret(item) }
            #expect(throws: SecretServiceError.noSuchObject) { try reopened.setAlias("x", to: work) }
            #expect(try SecretStore(loginKeychainPath: directory + "/login.keychain-db").collectionIDs() == [.login])

            // A collection whose file was removed by hand does not break searches of the others.
            let gone = try reopened.createCollection(label: "gone", password: nil)
            _ = try reopened.createItem(in: gone, label: "g", attributes: ["k": "v"], secret: SecretValue(bytes: [1]), replace: false)
            let loginItem = try reopened.createItem(in: .login, label: "l", attributes: ["k": "v"], secret: SecretValue(bytes: [2]), replace: false)
            try FileManager.default.removeItem(atPath: directory + "/gone.keychain-db")
            // As after a daemon restart: the process no longer holds the removed file open.
            AppleAPIRegistry.forget(path: directory + "/gone.keychain-db")
            #expect(try reopened.search(attributes: ["k": "v"]).unlocked == [loginItem])
            // Its own items: the error names the missing file and what to do.
            #expect(throws: SecretServiceError.keychainFileGone(path: directory + "/gone.keychain-db")) { try reopened.itemIDs(in: gone) }
        }
    }

    @Test("a password-protected collection: lock hides secrets and attributes, wrong password is distinct")
    func locking() throws {
        try IsolatedKeychains.withStore { store, _ in
            let password = Data("correct horse".utf8)
            let vault = try store.createCollection(label: "Vault", password: password)
            #expect(try store.isLocked(vault) == false)
            let ref = try store.createItem(in: vault, label: "v", attributes: ["service": "vault", "username": "me"],
                                           secret: SecretValue(bytes: Array("top".utf8)), replace: false)
            try store.lock(vault)
            #expect(try store.isLocked(vault))
            #expect(try store.collection(vault).isLocked)
            #expect(throws: SecretServiceError.isLocked) { try store.secret(ref) }
            #expect(throws: SecretServiceError.isLocked) { try store.item(ref) }
            #expect(throws: SecretServiceError.isLocked) { try store.itemIDs(in: vault) }
            #expect(throws: SecretServiceError.isLocked) {
                try store.createItem(in: vault, label: "x", attributes: [:], secret: SecretValue(bytes: []), replace: false)
            }
            #expect(throws: SecretServiceError.isLocked) { try store.deleteItem(ref) }
            #expect(try store.search(attributes: ["service": "vault"]) == SecretSearchResult(unlocked: [], locked: [], lockedCollections: [vault]))

            #expect(throws: SecretServiceError.wrongPassword) { try store.unlock(vault, password: Data("wrong".utf8)) }
            #expect(throws: SecretServiceError.isLocked) { try store.unlock(vault, password: nil) }
            #expect(try store.isLocked(vault))
            try store.unlock(vault, password: password)
            #expect(try store.isLocked(vault) == false)
            #expect(try store.secret(ref).text == "top")
            #expect(try store.search(attributes: ["service": "vault"]).unlocked == [ref])

            // A collection without password unlocks without one.
            try store.lock(.login)
            #expect(try store.isLocked(.login))
            try store.unlock(.login, password: nil)
            #expect(try store.isLocked(.login) == false)
        }
    }

    @Test("a damaged metadata file is an error, never silently replaced")
    func damagedMetadata() throws {
        try IsolatedKeychains.withStore { _, directory in
            let path = directory + "/secret-service.json"
            try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: SecretServiceError.self) { try SecretStore(loginKeychainPath: directory + "/login.keychain-db") }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("{not json".utf8))
        }
    }
}
