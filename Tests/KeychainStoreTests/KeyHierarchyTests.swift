import Crypto
import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore
import KeychainVocabulary

/// Class keys replaced on every password change, ThisDeviceOnly classes that
/// cannot be opened, and the authenticated key hierarchy.
@Suite("Key hierarchy: rotation, orphaned classes, authentication")
struct KeyHierarchyTests {
    /// Every item row of the file, as the store reads them (for opening with chosen class keys).
    private func itemRows(_ database: KeychainDatabase) throws -> [ItemRow] {
        try database.wholeRows("SELECT \(ItemRow.Columns.whole.sql) FROM items WHERE tombstone = 0 ORDER BY id", [])
    }

    private func opens(_ row: ItemRow, with key: SymmetricKey?) -> Bool {
        guard let key else { return false }
        do {
            _ = try ItemRecord.open(row, classKey: key)
            return true
        } catch {
            return false
        }
    }

    @Test("setting or changing the password replaces the class keys: keys from an earlier copy open no item afterwards")
    func classKeysRotate() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()  // no password: the class keys are wrapped under the file key
        _ = try database.insert(genericPassword(account: "early", secret: "e"))
        _ = try database.insert(genericPassword(account: "early-ck", secret: "c", protection: .afterFirstUnlock))
        // What a copy of the file taken now gives anyone: every class key.
        let copiedKeys = database.availableClassKeys()
        #expect(try itemRows(database).allSatisfy { opens($0, with: copiedKeys[$0.protection]) })

        try database.changePassword(from: nil, to: Data("pw".utf8))
        _ = try database.insert(genericPassword(account: "later", secret: "l"))
        let afterFirst = database.availableClassKeys()
        for row in try itemRows(database) {
            #expect(!opens(row, with: copiedKeys[row.protection]), "\(row.protection.rawValue) item opens with the copied key")
            #expect(opens(row, with: afterFirst[row.protection]))
        }
        try database.changePassword(from: Data("pw".utf8), to: Data("pw2".utf8))
        for row in try itemRows(database) {
            #expect(!opens(row, with: afterFirst[row.protection]), "key from before the change still opens an item")
        }
        // The copied keys are not accepted by a locked handle either (session-cache adoption).
        let reopened = try keychain.open()
        try reopened.adoptClassKeys(copiedKeys.merging(afterFirst) { _, new in new })
        #expect(reopened.isLocked)
        try reopened.unlock(password: Data("pw2".utf8))
        #expect(try readSecret(reopened, account: "early") == "e")
        #expect(try readSecret(reopened, account: "later") == "l")
    }

    @Test("a handle opened before another handle's password change drops the replaced keys and never seals an item under them")
    func otherHandleFollowsRotation() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let first = try keychain.open(password: "pw")
        _ = try first.insert(genericPassword(account: "a", secret: "1"))
        let second = try keychain.open(password: "pw")
        try second.changePassword(from: Data("pw".utf8), to: Data("new".utf8))

        #expect(storeError { _ = try first.insert(genericPassword(account: "b", secret: "2")) } == .locked)
        #expect(storeError { _ = try readSecret(first, account: "a") } == .locked)
        #expect(storeError { try first.unlock(password: Data("pw".utf8)) } == .wrongPassword)
        try first.unlock(password: Data("new".utf8))
        _ = try first.insert(genericPassword(account: "b", secret: "2"))
        #expect(try readSecret(second, account: "b") == "2")
        #expect(try readSecret(second, account: "a") == "1")
    }

    @Test("a password change under another device key is refused and loses nothing")
    func orphaningChangeRefused() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "pw")
        _ = try database.insert(genericPassword(account: "portable", secret: "p"))
        _ = try database.insert(genericPassword(account: "bound", secret: "b", protection: .whenUnlockedThisDeviceOnly))
        let homeKey = try Data(contentsOf: URL(fileURLWithPath: keychain.deviceKeyPath))
        try FileManager.default.removeItem(atPath: keychain.deviceKeyPath)  // "another device": a new key is made

        let elsewhere = try keychain.open(password: "pw")
        let error = storeError { try elsewhere.changePassword(from: Data("pw".utf8), to: Data("new".utf8)) }
        guard case .notAvailable(let message)? = error?.reason else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(message.contains("orphan"))
        #expect(try readSecret(elsewhere, account: "portable") == "p")

        // Back on the first device, the old password still opens everything.
        try FileManager.default.removeItem(atPath: keychain.deviceKeyPath)
        try homeKey.write(to: URL(fileURLWithPath: keychain.deviceKeyPath))
        chmod(keychain.deviceKeyPath, 0o600)
        let home = try keychain.open(password: "pw")
        #expect(try readSecret(home, account: "portable") == "p")
        #expect(try readSecret(home, account: "bound") == "b")
    }

    @Test("a ThisDeviceOnly class entry that does not open (left by an older version) makes that class unavailable, not the unlock")
    func staleThisDeviceOnlyEntry() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        do {
            let database = try keychain.open(password: "pw")
            _ = try database.insert(genericPassword(account: "portable", secret: "p"))
            _ = try database.insert(genericPassword(account: "bound", secret: "b", protection: .whenUnlockedThisDeviceOnly))
            // The state an older version's password change on another device left behind: the
            // aku entry still wrapped under a password that is no longer the keychain's (written
            // here with the hierarchy re-tagged, as that version's own write would have been).
            let strayKey = Sealing.randomKey()
            let stray = try database.keybag.wrap(strayKey, for: .whenUnlockedThisDeviceOnly, passwordKey: Sealing.randomKey())
            try database.withLock { () throws(KeychainStoreError) in
                try database.transaction(changesKeyHierarchy: true) { () throws(KeychainStoreError) in
                    try database.writeKeybagEntry(.whenUnlockedThisDeviceOnly,
                                                  KeybagEntry(wrapped: stray, check: KeybagEntry.checkValue(of: strayKey)))
                }
            }
        }
        let reopened = try keychain.open(password: "pw")
        #expect(try reopened.status.isUnlocked)
        #expect(try readSecret(reopened, account: "portable") == "p")
        let error = storeError { _ = try readSecret(reopened, account: "bound") }
        guard case .notAvailable(let message)? = error?.reason else {
            Issue.record("expected notAvailable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("ThisDeviceOnly") || message.contains("aku"))
    }

    /// What someone able to edit the file (not the device key) can do: read the file key and the
    /// keychain id, and wrap new class keys the way a password-less keychain does.
    private func downgradeToPasswordless(_ path: String) throws {
        let file = try KeychainDatabase.open(path: path, password: nil,
                                             options: .init(deviceKeyPath: nil, allowTestingKDF: true, createIfMissing: false))
        let keychainID = file.keychainID
        let fileKey = file.keybag.fileKey
        let forger = Keybag(keychainID: keychainID, fileKey: fileKey, deviceKey: nil, deviceKeyPath: nil, expectedDeviceKeyID: nil,
                           passwordKDF: nil)
        try withRawDatabase(path) { db in
            for protection in [ProtectionClass.whenUnlocked, .afterFirstUnlock] {
                let key = Sealing.randomKey()
                let entry = KeybagEntry(wrapped: try forger.wrap(key, for: protection, passwordKey: nil), check: KeybagEntry.checkValue(of: key))
                let hex = entry.encoded.hex
                rawExecute(db, "UPDATE keybag SET wrapped_key = x'\(hex)' WHERE class = '\(protection.rawValue)'")
            }
            rawExecute(db, "DELETE FROM keybag WHERE class IN ('aku', 'cku', 'akpu')")
            rawExecute(db, "DELETE FROM meta WHERE key = 'password_kdf'")
        }
    }

    @Test("deleting the KDF row and re-wrapping the class keys under the file key is refused, with or without the tag")
    func downgradeRefused() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        _ = try keychain.open(password: "pw").insert(genericPassword(account: "a", secret: "s"))
        try downgradeToPasswordless(keychain.path)
        for stripTag in [false, true] {
            if stripTag { try withRawDatabase(keychain.path) { rawExecute($0, "DELETE FROM meta WHERE key = 'hierarchy_mac'") } }
            let error = storeError { _ = try keychain.open() }
            guard case .undecodable(let reason)? = error?.reason, reason.contains("key hierarchy") else {
                Issue.record("downgraded keychain (tag stripped: \(stripTag)) opened or failed otherwise: \(String(describing: error))")
                continue
            }
        }
    }

    @Test("an altered auto-lock timeout or device-key id is refused, at open and by a handle already open")
    func settingsAuthenticated() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let open = try keychain.open(password: "pw")
        _ = try open.insert(genericPassword(account: "a", secret: "s"))
        try withRawDatabase(keychain.path) { rawExecute($0, "UPDATE meta SET value = x'0000000000000000' WHERE key = 'auto_lock_seconds'") }
        // The timeout row may not exist yet (the default applies): then it is inserted.
        try withRawDatabase(keychain.path) { rawExecute($0, "INSERT OR IGNORE INTO meta (key, value) VALUES ('auto_lock_seconds', x'0000000000000000')") }
        #expect(storeError { _ = try readSecret(open, account: "a") }?.osStatus == -26275)
        #expect(storeError { _ = try keychain.open(password: "pw") }?.osStatus == -26275)

        let second = try TemporaryKeychain()
        defer { second.remove() }
        _ = try second.open(password: "pw")
        try withRawDatabase(second.path) { rawExecute($0, "UPDATE meta SET value = x'00112233445566778899aabbccddeeff' WHERE key = 'device_key_id'") }
        let error = storeError { _ = try second.open(password: "pw") }
        #expect(error?.osStatus == -26275, "\(String(describing: error))")
    }

    @Test("the timeout set through the API is re-tagged; a moved file (another device key) still opens")
    func legitimateChangesOpen() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "pw")
        _ = try database.insert(genericPassword(account: "a", secret: "s"))
        try database.setAutoLockTimeout(seconds: 42)
        #expect(try keychain.open(password: "pw").status.autoLockSeconds == 42)
        try FileManager.default.removeItem(atPath: keychain.deviceKeyPath)
        let elsewhere = try keychain.open(password: "pw")
        #expect(try readSecret(elsewhere, account: "a") == "s")
    }
}
