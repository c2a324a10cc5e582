#if !canImport(Security)
import Foundation
import KeychainKit
import KeychainServices
import KeychainTestSupport
import Testing

/// `Keychain.storageSecurity(ofKeychainAt:)`: the typed report on real keychain files.
@Suite("Keychain.storageSecurity")
struct KeychainStorageSecurityTests {
    @Test("a password keychain reports its password, lock state and auto-lock; one without reports none; a missing file is -25294 and stays missing")
    func report() throws {
        let scratch = try TemporaryKeychain.forAppleAPI("storage")
        defer { scratch.remove() }
        let base = scratch.directory

        let protected = base + "/protected.keychain-db"
        var created: SecKeychain?
        let password = Array("pw".utf8)
        #expect(password.withUnsafeBytes { SecKeychainCreate(protected, UInt32(password.count), $0.baseAddress, false, nil, &created) } == errSecSuccess)
        let keychain = try #require(created)
        defer { _ = SecKeychainDelete(keychain) }
        let unlocked = try Keychain.storageSecurity(ofKeychainAt: protected)
        #expect(unlocked.isEncryptedAtRest)
        #expect(unlocked.keySource == .password)
        #expect(!unlocked.isLocked)
        #expect(unlocked.autoLockInterval == 300)
        #expect(unlocked.deviceBoundClassesAvailable)
        #expect(SecKeychainLock(keychain) == errSecSuccess)
        #expect(try Keychain.storageSecurity(ofKeychainAt: protected).isLocked)

        let open = base + "/open.keychain-db"
        var openKeychain: SecKeychain?
        #expect(SecKeychainCreate(open, 0, nil, false, nil, &openKeychain) == errSecSuccess)
        defer { if let openKeychain { _ = SecKeychainDelete(openKeychain) } }
        #expect(try Keychain.storageSecurity(ofKeychainAt: open).keySource == .none)

        let missing = base + "/missing.keychain-db"
        #expect(throws: KeychainError(status: -25294)) { try Keychain.storageSecurity(ofKeychainAt: missing) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
#endif
