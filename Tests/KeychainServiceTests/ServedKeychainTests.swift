import Foundation
import KeychainEngine
import KeychainTestSupport
import KeychainVocabulary
import Testing

/// An engine configured by value: its keychain and device key where it is told, and nothing
/// read from or written to the process-wide registry.
@Suite("Served keychain configured by value")
struct ServedKeychainTests {
    @Test("two served keychains keep their own files and groups, apart from the process's registry")
    func isolatedByValue() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/a", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(atPath: directory + "/b", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sharedBefore = AppleAPIRegistry.openKeychainPaths
        let first = ServedKeychain(keychainPath: directory + "/a/login.keychain-db", deviceKeyPath: directory + "/a/device.key",
                                   authenticator: OwnerAuthenticator(pinentry: nil))
        let second = ServedKeychain(keychainPath: directory + "/b/login.keychain-db", deviceKeyPath: directory + "/b/device.key",
                                    authenticator: OwnerAuthenticator(pinentry: nil))
        // A read creates nothing.
        #expect(throws: KeychainStoreError.self) { try first.engine(accessGroups: AccessGroups(["app"]), creatingKeychain: false) }
        #expect(!FileManager.default.fileExists(atPath: directory + "/a/login.keychain-db"))
        let item: [String: Any] = ["class": "genp", "acct": "me", "svce": "api", "v_Data": Data("one".utf8)]
        #expect(try first.engine(accessGroups: AccessGroups(["app"]), creatingKeychain: true).add(item).status == 0)
        #expect(FileManager.default.fileExists(atPath: directory + "/a/login.keychain-db"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/b/login.keychain-db"))
        let query: [String: Any] = ["class": "genp", "acct": "me", "r_Data": true]
        #expect(try first.engine(accessGroups: AccessGroups(["app"]), creatingKeychain: false).copyMatching(query).value as? Data == Data("one".utf8))
        // Another group of the same keychain does not see it; another keychain does not have it.
        #expect(try first.engine(accessGroups: AccessGroups(["other"]), creatingKeychain: false).copyMatching(query).status == -25300)
        #expect(try second.engine(accessGroups: AccessGroups(["app"]), creatingKeychain: true).copyMatching(query).status == -25300)
        #expect(AppleAPIRegistry.openKeychainPaths == sharedBefore)
    }
}
