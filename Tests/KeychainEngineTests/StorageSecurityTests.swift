import Foundation
import KeychainStore
import KeychainTestSupport
import Testing
@testable import KeychainEngine
import KeychainVocabulary

/// The storage-security report and `KEYCHAINKIT_REQUIRE` on real keychain files, with
/// configurations built from given environments (no process-wide state).
@Suite("Storage security and requirements")
struct StorageSecurityTests {
    private func configuration(_ environment: [String: String]) -> KeychainConfiguration {
        KeychainConfiguration(environment: ["HOME": "/nonexistent"].merging(environment) { _, new in new },
                              authenticator: OwnerAuthenticator(pinentry: nil))
    }

    /// A keychain file in a fresh private directory (with its own device key), removed afterwards.
    private func withKeychain(password: Data?, _ body: (KeychainDatabase, String) throws -> Void) throws {
        let scratch = try TemporaryKeychain("storage")
        defer { scratch.remove() }
        try body(try scratch.open(password: password), scratch.directory)
    }

    @Test("key source follows the password and where this process reads it from")
    func keySources() throws {
        try withKeychain(password: nil) { (database, _) throws in
            let report = try StorageSecurity.of(database, configuration: configuration(["KEYCHAINKIT_PASSWORD_FILE": "/run/pw"]))
            #expect(report.keySource == .none, "no password: a password file in the environment changes nothing")
            #expect(report.encryptedAtRest)
            #expect(report.deviceBoundClassesAvailable)
            #expect(!report.isLocked)
        }
        try withKeychain(password: Data("pw".utf8)) { (database, directory) throws in
            #expect(try StorageSecurity.of(database, configuration: configuration([:])).keySource == .password)
            #expect(try StorageSecurity.of(database, configuration: configuration(["KEYCHAINKIT_PASSWORD_FILE": "/run/pw"])).keySource == .passwordFile)
            // A credentials directory counts only when it holds keychainkit.password.
            #expect(try StorageSecurity.of(database, configuration: configuration(["CREDENTIALS_DIRECTORY": directory])).keySource == .password)
            FileManager.default.createFile(atPath: directory + "/keychainkit.password", contents: Data("pw".utf8), attributes: [.posixPermissions: 0o400])
            let systemd = configuration(["CREDENTIALS_DIRECTORY": directory])
            #expect(try StorageSecurity.of(database, configuration: systemd).keySource == .systemdCredential)
            #expect(try systemd.passwordFromFile() == Data("pw".utf8))
            // The explicit password file wins over the credential.
            #expect(configuration(["CREDENTIALS_DIRECTORY": directory, "KEYCHAINKIT_PASSWORD_FILE": "/run/pw"]).unlockSource == .passwordFile("/run/pw"))
            // A relative CREDENTIALS_DIRECTORY is not systemd's: ignored.
            #expect(configuration(["CREDENTIALS_DIRECTORY": "relative"]).unlockSource == nil)
            database.lockKeychain()
            #expect(try StorageSecurity.of(database, configuration: systemd).isLocked)
        }
    }

    @Test("a credential others can read is refused with a reason naming the systemd credential, never its content")
    func credentialModes() throws {
        try withKeychain(password: nil) { (_, directory) throws in
            FileManager.default.createFile(atPath: directory + "/keychainkit.password", contents: Data("hunter2".utf8), attributes: [.posixPermissions: 0o644])
            let systemd = configuration(["CREDENTIALS_DIRECTORY": directory])
            do {
                _ = try systemd.passwordFromFile()
                Issue.record("a world-readable credential was accepted")
            } catch {
                let message = "\(error)"
                #expect(message.contains("the systemd credential keychainkit.password"))
                #expect(message.contains("chmod 600"))
                #expect(!message.contains("hunter2"))
            }
        }
    }

    @Test("KEYCHAINKIT_REQUIRE: each level accepts exactly the sources it names; an unknown value accepts none")
    func requirements() throws {
        let sources = StorageSecurity.KeySource.allCases
        #expect(sources.filter { StorageRequirement.password.isMet(by: $0) } == [.password, .passwordFile, .systemdCredential])
        #expect(sources.filter { StorageRequirement.anyUnlockSecret.isMet(by: $0) } == [.password, .passwordFile, .systemdCredential, .tpm])
        #expect(sources.filter { StorageRequirement.tpm.isMet(by: $0) } == [.tpm])
        #expect(sources.filter { StorageRequirement.invalid("pasword").isMet(by: $0) }.isEmpty)
        func configured(_ environment: [String: String]) -> StorageRequirement? {
            KeychainConfiguration(environment: environment, authenticator: OwnerAuthenticator(pinentry: nil)).storageRequirement
        }
        #expect(configured(["KEYCHAINKIT_REQUIRE": "Any-Unlock-Secret"]) == .anyUnlockSecret)
        #expect(configured(["KEYCHAINKIT_REQUIRE": "pasword"]) == .invalid("pasword"))
        #expect(configured(["KEYCHAINKIT_REQUIRE": ""]) == nil)
        #expect(configured([:]) == nil)
        #expect(throws: KeychainStoreError.self) { try StorageRequirement.password.check(.none, path: "/k", creating: true) }
        #expect(throws: Never.self) { try StorageRequirement.password.check(.systemdCredential, path: "/k", creating: false) }
    }
}
