import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore

@Suite("Lock states, passwords and the device key")
struct LockStateTests {
    @Test("a keychain without a password is unlocked and readable after reopening")
    func passwordless() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        _ = try keychain.open().insert(genericPassword(account: "a", secret: "one"))
        let reopened = try keychain.open()
        #expect(try reopened.status.isUnlocked)
        #expect(try reopened.status.hasPassword == false)
        #expect(try readSecret(reopened, account: "a") == "one")
    }

    @Test("locked: ak items fail with -25308 while dk items still read")
    func lockedClasses() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "pw")
        _ = try database.insert(genericPassword(account: "ak", secret: "when-unlocked"))
        _ = try database.insert(genericPassword(account: "dk", secret: "always", protection: .always))
        _ = try database.insert(genericPassword(account: "cku", secret: "after-first", protection: .afterFirstUnlockThisDeviceOnly))
        database.lockKeychain()
        #expect(storeError { _ = try readSecret(database, account: "ak") }?.osStatus == -25308)
        #expect(try readSecret(database, account: "dk") == "always")
        // "after first unlock" stays readable across a lock, as on iOS.
        #expect(try readSecret(database, account: "cku") == "after-first")
        // Adding to a locked class fails before the uniqueness check, even for a duplicate.
        #expect(storeError { _ = try database.insert(genericPassword(account: "ak", secret: "x")) } == .locked)

        let fresh = try keychain.open()  // a new process: nothing unlocked yet
        #expect(storeError { _ = try readSecret(fresh, account: "cku") } == .locked)
        #expect(try readSecret(fresh, account: "dk") == "always")
        try fresh.unlock(password: Data("pw".utf8))
        #expect(try readSecret(fresh, account: "ak") == "when-unlocked")
    }

    @Test("a wrong password fails with -25293 and leaves the file byte-identical")
    func wrongPassword() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "right")
        _ = try database.insert(genericPassword(account: "a", secret: "s"))
        database.lockKeychain()
        let before = try Data(contentsOf: URL(fileURLWithPath: keychain.path))
        for _ in 0..<5 {
            #expect(storeError { try database.unlock(password: Data("wrong".utf8)) }?.osStatus == -25293)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: keychain.path)) == before)
        #expect(storeError { _ = try keychain.open(password: "wrong") } == .wrongPassword)
    }

    @Test("akpu needs a password: refused with -25291 without one; removing the password destroys akpu items")
    func passcodeClass() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        let error = storeError { _ = try database.insert(genericPassword(account: "p", secret: "s", protection: .whenPasscodeSetThisDeviceOnly)) }
        #expect(error?.osStatus == -25291)

        try database.changePassword(from: nil, to: Data("pw".utf8))
        _ = try database.insert(genericPassword(account: "p", secret: "s", protection: .whenPasscodeSetThisDeviceOnly))
        #expect(try readSecret(database, account: "p") == "s")
        try database.changePassword(from: Data("pw".utf8), to: nil)
        #expect(try readSecret(database, account: "p") == nil)
        try database.changePassword(from: nil, to: Data("new".utf8))
        #expect(try readSecret(database, account: "p") == nil)
        _ = try database.insert(genericPassword(account: "p", secret: "again", protection: .whenPasscodeSetThisDeviceOnly))
        #expect(try readSecret(database, account: "p") == "again")
    }

    @Test("changing the password re-wraps class keys: old password fails, new one opens every item")
    func changePassword() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "old")
        _ = try database.insert(genericPassword(account: "a", secret: "s1"))
        _ = try database.insert(genericPassword(account: "b", secret: "s2", protection: .whenUnlockedThisDeviceOnly))
        let itemBytesBefore = try rawPayloads(keychain.path)
        #expect(storeError { try database.changePassword(from: Data("bad".utf8), to: Data("new".utf8)) } == .wrongPassword)
        try database.changePassword(from: Data("old".utf8), to: Data("new".utf8))
        #expect(try rawPayloads(keychain.path) == itemBytesBefore, "items are not re-encrypted")
        #expect(storeError { _ = try keychain.open(password: "old") } == .wrongPassword)
        let reopened = try keychain.open(password: "new")
        #expect(try readSecret(reopened, account: "a") == "s1")
        #expect(try readSecret(reopened, account: "b") == "s2")
    }

    @Test("a file moved without its device key keeps ThisDeviceOnly items unreadable with a clear error")
    func deviceBinding() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "pw")
        _ = try database.insert(genericPassword(account: "portable", secret: "p"))
        _ = try database.insert(genericPassword(account: "bound", secret: "b", protection: .whenUnlockedThisDeviceOnly))
        try FileManager.default.removeItem(atPath: keychain.deviceKeyPath)  // "another device": a new key is made

        let elsewhere = try keychain.open(password: "pw")
        #expect(try readSecret(elsewhere, account: "portable") == "p")
        let error = storeError { _ = try readSecret(elsewhere, account: "bound") }
        guard case .notAvailable(let message)? = error?.reason else {
            Issue.record("expected notAvailable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("device key"))
    }

    // Under umask 000 (in a child process, the umask being process-wide): ReliabilityTests/PathTests.
    @Test("files are created 0600 in a 0700 directory, whatever the umask allows; loose modes and symlinks are refused")
    func permissions() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let nested = keychain.directoryURL.appendingPathComponent("a/b/k.keychain-db").path
        _ = try KeychainDatabase.open(path: nested, password: nil, options: keychain.options)
        #expect(try mode(nested) == 0o600)
        #expect(try mode((nested as NSString).deletingLastPathComponent) == 0o700)
        #expect(try mode(keychain.deviceKeyPath) == 0o600)

        chmod(nested, 0o644)
        #expect(storeError { _ = try KeychainDatabase.open(path: nested, password: nil, options: keychain.options) }?.osStatus == -25291)
        chmod(nested, 0o600)
        let link = keychain.directoryURL.appendingPathComponent("link.keychain-db").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: nested)
        #expect(storeError { _ = try KeychainDatabase.open(path: link, password: nil, options: keychain.options) }?.osStatus == -25291)
    }

    @Test("a file whose KDF is weaker than the minimum is refused unless tests allow it")
    func weakKDFRefused() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        _ = try keychain.open(password: "pw")
        var strict = keychain.options
        strict.allowTestingKDF = false
        let error = storeError { _ = try KeychainDatabase.open(path: keychain.path, password: nil, options: strict) }
        #expect(error?.osStatus == -25291)
    }
}

func mode(_ path: String) throws -> mode_t {
    var info = stat()
    guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
    return info.st_mode & 0o777
}
