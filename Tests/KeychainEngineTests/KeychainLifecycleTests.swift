import Foundation
import Testing
@testable import KeychainEngine
import KeychainStore
import KeychainTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The keychain lifecycle service (what `SecKeychain…` calls run), each test on a registry of its
/// own, so nothing here touches the process-wide one other suites use.
@Suite("Keychain lifecycle: open, create, unlock, lock, delete, settings")
struct KeychainLifecycleTests {
    /// Apple's statuses the service returns.
    private enum Expected {
        static let noSuchKeychain: Int32 = -25294
        static let invalidKeychain: Int32 = -25295
        static let duplicateKeychain: Int32 = -25296
        static let interactionNotAllowed: Int32 = -25308
        static let authFailed: Int32 = -25293
    }

    /// A temporary keychain directory and a lifecycle service on a registry of its own whose
    /// default keychain is the fixture's; sharing through the kernel keyring off unless asked for.
    private final class Fixture {
        let scratch: TemporaryKeychain
        let lifecycle: KeychainLifecycle

        init(sharingUnlock: Bool = false) throws {
            scratch = try TemporaryKeychain("lifecycle")
            lifecycle = KeychainLifecycle(registry: try scratch.registry(sharingUnlock: sharingUnlock))
        }

        deinit {
            scratch.remove()
        }

        func path(_ name: String) -> String { scratch.file(name) }
        var defaultPath: String { lifecycle.defaultKeychainPath }
    }

    /// The status a lifecycle call failed with, or nil when it succeeded.
    private func status(_ call: () throws(KeychainCallFailure) -> Void) -> Int32? {
        do {
            try call()
            return nil
        } catch {
            return error.status
        }
    }

    private let item: [String: Any] = ["class": "genp", "svce": "lifecycle", "acct": "a", "v_Data": Data("secret".utf8)]

    @Test("a deleted default keychain stays refused, even for SecItemAdd, and nothing is created until a keychain is created at the path")
    func deletedDefaultKeychainStaysRefused() throws {
        let fixture = try Fixture()
        let lifecycle = fixture.lifecycle
        #expect(try lifecycle.itemEngine(.defaultKeychain, creatingDefault: true).add(item).status == 0)
        #expect(unlink(fixture.defaultPath) == 0)

        // The call that finds the file gone, and every call after it.
        for attempt in 0..<3 {
            let engine = try? lifecycle.itemEngine(.defaultKeychain, creatingDefault: true)
            let added = engine?.add(item).status
            #expect(added != 0, "attempt \(attempt) stored an item after the keychain was deleted")
            #expect(!FileManager.default.fileExists(atPath: fixture.defaultPath), "attempt \(attempt) recreated the keychain")
        }
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.lock(nil) } == Expected.noSuchKeychain)

        // create-keychain: a new, empty keychain at the path, which calls then use.
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.create(at: fixture.defaultPath, password: nil) } == nil)
        let engine = try lifecycle.itemEngine(.defaultKeychain, creatingDefault: false)
        #expect(engine.add(item).status == 0)
        let found = engine.copyMatching(["class": "genp", "svce": "lifecycle", "m_Limit": "m_LimitAll", "r_Attributes": true])
        #expect((found.value as? [Any])?.count == 1, "the new keychain holds only the item stored after its creation")
    }

    @Test("a keychain that does not exist is errSecNoSuchKeychain for every call, and none of them creates it")
    func missingKeychain() throws {
        let fixture = try Fixture()
        let lifecycle = fixture.lifecycle
        let missing = fixture.path("missing.keychain-db")
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.lock(missing) } == Expected.noSuchKeychain)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.unlock(missing, password: Data("pw".utf8)) } == Expected.noSuchKeychain)
        #expect(status { () throws(KeychainCallFailure) in _ = try lifecycle.isUnlocked(missing) } == Expected.noSuchKeychain)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.setAutoLockSeconds(60, missing) } == Expected.noSuchKeychain)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.changePassword(missing, from: nil, to: Data("x".utf8)) }
                == Expected.noSuchKeychain)
        #expect(status { () throws(KeychainCallFailure) in _ = try lifecycle.storageSecurity(missing) } == Expected.noSuchKeychain)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.delete(missing) } == Expected.noSuchKeychain)
        // The default keychain too, before anything was stored in it.
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.lock(nil) } == Expected.noSuchKeychain)
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: fixture.defaultPath))
    }

    @Test("create refuses an existing file; unlock needs the password (or a password file); lock locks; settings are stored")
    func createUnlockLockSettings() throws {
        let fixture = try Fixture()
        let lifecycle = fixture.lifecycle
        let path = fixture.path("work.keychain-db")
        let password = Data("correct horse".utf8)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.create(at: path, password: password) } == nil)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.create(at: path, password: nil) } == Expected.duplicateKeychain)
        #expect(try lifecycle.isUnlocked(path))

        try lifecycle.lock(path)
        #expect(try !lifecycle.isUnlocked(path))
        // No password and no password file: there is no dialog to ask.
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.unlock(path, password: nil) } == Expected.interactionNotAllowed)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.unlock(path, password: Data("wrong".utf8)) } == Expected.authFailed)
        #expect(try !lifecycle.isUnlocked(path))
        try lifecycle.unlock(path, password: password)
        #expect(try lifecycle.isUnlocked(path))

        try lifecycle.setAutoLockSeconds(90, path)
        #expect(try lifecycle.autoLockSeconds(path) == 90)

        try lifecycle.changePassword(path, from: password, to: Data("new".utf8))
        try lifecycle.lock(path)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.unlock(path, password: password) } == Expected.authFailed)
        try lifecycle.unlock(path, password: Data("new".utf8))
        #expect(try lifecycle.isUnlocked(path))
    }

    @Test("delete removes a keychain; a symlink, a directory or a file that is not a keychain is refused and kept")
    func deleteOnlyVerifiedKeychains() throws {
        let fixture = try Fixture()
        let lifecycle = fixture.lifecycle
        let path = fixture.path("doomed.keychain-db")
        try lifecycle.create(at: path, password: nil)

        // An attacker's substitutes: each refused, none removed.
        let link = fixture.path("link.keychain-db")
        #expect(symlink(path, link) == 0)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.delete(link) } == Expected.invalidKeychain)
        let notKeychain = fixture.path("notes.txt")
        try Data("not a keychain".utf8).write(to: URL(fileURLWithPath: notKeychain))
        chmod(notKeychain, 0o600)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.delete(notKeychain) } == Expected.invalidKeychain)
        let directory = fixture.path("dir.keychain-db")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.delete(directory) } == Expected.invalidKeychain)
        #expect(FileManager.default.fileExists(atPath: notKeychain))
        #expect(FileManager.default.fileExists(atPath: directory))
        #expect(FileManager.default.fileExists(atPath: path))

        try lifecycle.delete(path)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.lock(path) } == Expected.noSuchKeychain)
        // Deleted on purpose: a new keychain may be made at the path.
        #expect(status { () throws(KeychainCallFailure) in try lifecycle.create(at: path, password: nil) } == nil)
    }

    @Test("a SecItem call naming a keychain that does not exist is refused and creates nothing; a bad selection is errSecParam")
    func itemCallsOnNamedKeychains() throws {
        let fixture = try Fixture()
        let lifecycle = fixture.lifecycle
        let missing = fixture.path("absent.keychain-db")
        var refused: Int32?
        do { _ = try lifecycle.itemEngine(.named(path: missing), creatingDefault: true) } catch { refused = error.status }
        #expect(refused == -25291)  // errSecNotAvailable, as before the service existed
        #expect(!FileManager.default.fileExists(atPath: missing))
        refused = nil
        do { _ = try lifecycle.itemEngine(.invalid("kSecUseKeychain must be a SecKeychain"), creatingDefault: false) } catch {
            refused = error.status
        }
        #expect(refused == -50)
    }

    @Test("the unlock is shared through the kernel keyring as the service's own registry says, whatever the process-wide one does")
    func sharingFollowsTheRegistry() throws {
        try #require(SystemFacilities.Keyring.isAvailable, "the kernel keyring must be usable here (as in CI)")
        let password = Data("pw".utf8)
        let private_ = try Fixture(sharingUnlock: false)
        let secluded = private_.path("secluded.keychain-db")
        try private_.lifecycle.create(at: secluded, password: password)
        #expect(!SessionKeyring.isPublished(.whenUnlocked, of: try private_.lifecycle.existingKeychain(secluded)))

        let shared = try Fixture(sharingUnlock: true)
        let sharedPath = shared.path("shared.keychain-db")
        try shared.lifecycle.create(at: sharedPath, password: password)
        let database = try shared.lifecycle.existingKeychain(sharedPath)
        #expect(SessionKeyring.isPublished(.whenUnlocked, of: database))
        try shared.lifecycle.lock(sharedPath)
        #expect(!SessionKeyring.isPublished(.whenUnlocked, of: database), "a lock withdraws the shared unlock")
        try shared.lifecycle.delete(sharedPath)
    }
}
