import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

/// The typed API's contract, written as an app writes it, with the declared type of every
/// result (on an isolated backend).
@Suite struct ContractTests {
    @Test func theContractAsWritten() throws {
        let backend = try KeychainBackend.isolated()
        let keychain = Keychain(service: "com.example.app", backend: backend)
        let credentials = Credentials(username: "alice", password: "hunter2")

        try keychain.set("s3cret", forKey: "password")
        try keychain.set(Data([1, 2, 3]), forKey: "blob")
        try keychain.set(credentials, forKey: "auth")
        let password: String? = try keychain.string(forKey: "password")
        let blob: Data? = try keychain.data(forKey: "blob")
        let auth: Credentials? = try keychain.value(Credentials.self, forKey: "auth")
        let present: Bool = try keychain.contains("password")
        let keys: [String] = try keychain.allKeys()

        #expect(password == "s3cret")
        #expect(blob == Data([1, 2, 3]))
        #expect(auth == credentials)
        #expect(present)
        #expect(keys == ["auth", "blob", "password"])

        try keychain.removeValue(forKey: "password")
        #expect(try keychain.string(forKey: "password") == nil)
        #expect(try keychain.contains("password") == false)
        #expect(try keychain.allKeys() == ["auth", "blob"])

        try keychain.removeAll()
        #expect(try keychain.allKeys() == [])
        #expect(try keychain.data(forKey: "blob") == nil)
    }

    @Test func initializersOfTheContract() {
        let byClass = Keychain(service: "s", accessibility: .whenUnlockedThisDeviceOnly)
        let shared = Keychain(service: "s", accessGroup: "TEAMID.com.example.shared")
        let synced = Keychain(service: "s", synchronizable: true)
        let plain = Keychain(service: "com.example.app")

        #expect(byClass.accessibility == .whenUnlockedThisDeviceOnly)
        #expect(shared.accessGroup == "TEAMID.com.example.shared")
        #expect(synced.isSynchronizable)
        #expect(synced.accessibility == .afterFirstUnlock)
        #expect(plain.accessibility == .afterFirstUnlockThisDeviceOnly)
        #expect(plain.accessGroup == nil)
        #expect(!plain.isSynchronizable)
    }

    @Test func absentItemsReadAsNilAndRemoveWithoutError() throws {
        let keychain = try isolatedKeychain()
        #expect(try keychain.string(forKey: "missing") == nil)
        #expect(try keychain.data(forKey: "missing") == nil)
        #expect(try keychain.value(Credentials.self, forKey: "missing") == nil)
        #expect(try keychain.contains("missing") == false)
        #expect(try keychain.removeValue(forKey: "missing") == false)
        try keychain.removeAll()
    }

    @Test func aSecondWriteReplacesTheValue() throws {
        let keychain = try isolatedKeychain()
        try keychain.set("first", forKey: "k")
        try keychain.set("second", forKey: "k")
        #expect(try keychain.string(forKey: "k") == "second")
        #expect(try keychain.allKeys() == ["k"])
    }

    @Test func stringsAndDataAreStoredAsTheirBytesAndOtherValuesAsJSON() throws {
        let keychain = try isolatedKeychain()
        try keychain.set("héllo", forKey: "text")
        try keychain.set(42, forKey: "number")
        try keychain.set(Credentials(username: "a", password: "b"), forKey: "auth")

        #expect(try keychain.data(forKey: "text") == Data("héllo".utf8))
        #expect(try keychain.data(forKey: "number") == Data("42".utf8))
        #expect(try keychain.value(Int.self, forKey: "number") == 42)
        #expect(try keychain.value(String.self, forKey: "text") == "héllo")
        let json = try #require(try keychain.data(forKey: "auth"))
        let decoded = try JSONDecoder().decode(Credentials.self, from: json)
        #expect(decoded == Credentials(username: "a", password: "b"))
    }

    @Test func servicesDoNotSeeEachOther() throws {
        let backend = try KeychainBackend.isolated()
        let mail = Keychain(service: "com.example.mail", backend: backend)
        let chat = Keychain(service: "com.example.chat", backend: backend)
        try mail.set("m", forKey: "token")
        try chat.set("c", forKey: "token")

        #expect(try mail.string(forKey: "token") == "m")
        #expect(try chat.string(forKey: "token") == "c")
        try mail.removeAll()
        #expect(try mail.allKeys() == [])
        #expect(try chat.string(forKey: "token") == "c")
    }

    @Test func emptyServiceOrKeyIsRejectedBeforeTheKeychain() throws {
        let recorder = try RecordingBackend()
        let keychain = Keychain(service: "com.example.app", backend: recorder.backend)
        let unnamed = Keychain(service: "", backend: recorder.backend)

        #expect(throws: KeychainError.invalidArgument) { try keychain.set("x", forKey: "") }
        #expect(throws: KeychainError.invalidArgument) { try unnamed.set("x", forKey: "k") }
        #expect(throws: KeychainError.invalidArgument) { try unnamed.removeAll() }
        #expect(recorder.calls.isEmpty)
    }
}
