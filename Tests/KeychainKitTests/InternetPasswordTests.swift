import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

@Suite struct InternetPasswordTests {
    @Test func aPasswordRoundTripsAsAnInternetPasswordItem() throws {
        let backend = try KeychainBackend.isolated()
        let passwords = InternetPasswords(backend: backend)
        let account = InternetAccount(
            server: "mail.example.com", account: "alice", port: 993, path: "/inbox",
            protocol: .imaps, authenticationType: .default, securityDomain: "Mail"
        )
        try passwords.set("s3cret", for: account)

        #expect(try passwords.password(for: account) == "s3cret")
        #expect(try passwords.contains(account))
        let listed = try passwords.accounts(server: "mail.example.com")
        #expect(listed == [account])

        let response = backend.copyMatching([
            kSecClass as String: kSecClassInternetPassword,
            kSecAttrServer as String: "mail.example.com",
            kSecReturnAttributes as String: true,
            kSecReturnData as String: true,
        ])
        let raw = try #require(response.value as? [String: Any])
        #expect(raw[kSecAttrAccount as String] as? String == "alice")
        #expect(raw[kSecAttrProtocol as String] as? String == kSecAttrProtocolIMAPS as String)
        #expect(raw[kSecAttrAuthenticationType as String] as? String == kSecAttrAuthenticationTypeDefault as String)
        #expect((raw[kSecAttrPort as String] as? NSNumber)?.intValue == 993)
        #expect(raw[kSecAttrPath as String] as? String == "/inbox")
        #expect(raw[kSecAttrSecurityDomain as String] as? String == "Mail")
        #expect(raw[kSecValueData as String] as? Data == Data("s3cret".utf8))
    }

    @Test func portAndProtocolTellItemsApart() throws {
        let passwords = InternetPasswords(backend: try .isolated())
        let web = InternetAccount(server: "example.com", account: "bob", port: 443, protocol: .https)
        let ftp = InternetAccount(server: "example.com", account: "bob", port: 21, protocol: .ftp)
        try passwords.set("web", for: web)
        try passwords.set("ftp", for: ftp)

        #expect(try passwords.password(for: web) == "web")
        #expect(try passwords.password(for: ftp) == "ftp")
        #expect(try passwords.accounts().count == 2)

        #expect(try passwords.removePassword(for: ftp))
        #expect(try passwords.password(for: ftp) == nil)
        #expect(try passwords.password(for: web) == "web")
    }

    @Test func aSecondWriteUpdatesTheSameItem() throws {
        let passwords = InternetPasswords(backend: try .isolated())
        let account = InternetAccount(server: "example.com", account: "carol", protocol: .https)
        try passwords.set("one", for: account)
        try passwords.set("two", for: account)
        #expect(try passwords.password(for: account) == "two")
        #expect(try passwords.accounts(server: "example.com").count == 1)
    }

    @Test func keychainsShareTheirSettingsWithInternetPasswords() throws {
        let keychain = Keychain(service: "unused", accessibility: .whenUnlocked, backend: try .isolated())
        let account = InternetAccount(server: "example.com", account: "dave")
        try keychain.internetPasswords.set(Data([1, 2]), for: account)
        #expect(try keychain.internetPasswords.passwordData(for: account) == Data([1, 2]))
        #expect(try keychain.allKeys() == [])
    }

    @Test func anotherBackendReplacesOnlyTheBackend() throws {
        let first = try KeychainBackend.isolated(), second = try KeychainBackend.isolated()
        let account = InternetAccount(server: "example.com", account: "erin")
        let passwords = InternetPasswords(accessibility: .whenUnlocked, backend: first)
        try passwords.set("on the first", for: account)
        let moved = passwords.backend(second)
        #expect(try moved.password(for: account) == nil, "the second keychain is another keychain")
        try moved.set("on the second", for: account)
        #expect(try passwords.password(for: account) == "on the first")
        #expect(try moved.password(for: account) == "on the second")
        let recorder = EventRecorder()
        try moved.backend(recorder.observing(moved.backend)).removePassword(for: account)
        #expect(recorder.summary == ["delete errSecSuccess"])
        #expect(try moved.password(for: account) == nil)
    }

    @Test func absentAndInvalidAccounts() throws {
        let passwords = InternetPasswords(backend: try .isolated())
        let account = InternetAccount(server: "example.com", account: "nobody")
        #expect(try passwords.password(for: account) == nil)
        #expect(try passwords.removePassword(for: account) == false)
        #expect(try passwords.accounts() == [])
        #expect(throws: KeychainError.invalidArgument) {
            try passwords.set("x", for: InternetAccount(server: "", account: "a"))
        }
    }
}
