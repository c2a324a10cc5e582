import Crypto
import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

/// The adversary's view of observation: a log that receives every event of every typed API must
/// never hold a secret, a data length or key bytes, and holds the account only when the
/// observer opted in.
@Suite struct ObservationRedactionTests {
    /// Markers no event may contain; each is unique to one run.
    struct Markers {
        let secret = "SECRET-\(UUID().uuidString)"
        let account = "ACCOUNT-\(UUID().uuidString)@example.com"
        let symmetricKey = SymmetricKey(size: .bits256)
        let p256Key = P256.Signing.PrivateKey()

        /// Renderings of secret material that must appear nowhere: the secret, its bytes in hex and
        /// base64, and the key bytes.
        var secrets: [String] {
            let keyBytes = symmetricKey.withUnsafeBytes { Data($0) }
            return [
                secret,
                Data(secret.utf8).base64EncodedString(),
                Data(secret.utf8).map { String(format: "%02x", $0) }.joined(),
                keyBytes.base64EncodedString(),
                keyBytes.map { String(format: "%02x", $0) }.joined(),
                p256Key.x963Representation.base64EncodedString(),
                p256Key.rawRepresentation.map { String(format: "%02x", $0) }.joined(),
            ]
        }
    }

    /// Stores, reads, updates and deletes the markers through every typed API on `backend`.
    private func exerciseEveryAPI(on backend: KeychainBackend, _ markers: Markers) async throws {
        let keychain = Keychain(service: "com.example.app", backend: backend)
        let account = markers.account

        // Strings, Data and Codable values.
        try keychain.set(markers.secret, forKey: account)
        try keychain.set(markers.secret + "-2", forKey: account)
        #expect(try keychain.string(forKey: account) == markers.secret + "-2")
        try keychain.set(Data(markers.secret.utf8), forKey: account + ".data")
        #expect(try keychain.data(forKey: account + ".data") == Data(markers.secret.utf8))
        try keychain.set(Credentials(username: account, password: markers.secret), forKey: account + ".json")
        #expect(try keychain.value(Credentials.self, forKey: account + ".json")?.password == markers.secret)
        #expect(try keychain.contains(account))
        #expect(try keychain.allKeys().contains(account))

        // Tokens, synchronous and async.
        let tokens = TokenStore(keychain: keychain, key: account + ".tokens")
        try tokens.save(OAuthTokens(accessToken: markers.secret, refreshToken: markers.secret + "-refresh", expiresIn: 3600))
        #expect(try tokens.validAccessToken() == markers.secret)
        try tokens.saveRefreshed(OAuthTokens(accessToken: markers.secret + "-refreshed", expiresIn: 3600))
        #expect(try await tokens.async.load()?.refreshToken == markers.secret + "-refresh")
        try tokens.clear()

        // The property wrapper.
        let stored = KeychainStored<String>(account + ".wrapped", in: keychain)
        try stored.projectedValue.set(markers.secret)
        #expect(try stored.projectedValue.get() == markers.secret)
        try stored.projectedValue.remove()

        // Async calls.
        try await keychain.async.set(markers.secret, forKey: account + ".async")
        #expect(try await keychain.async.string(forKey: account + ".async") == markers.secret)
        try await keychain.async.removeValue(forKey: account + ".async")

        // CryptoKit keys and stored private keys (whose tag is the account marker here).
        try keychain.setKey(markers.symmetricKey, forKey: account + ".key")
        #expect(try keychain.key(SymmetricKey.self, forKey: account + ".key") == markers.symmetricKey)
        try keychain.setKey(markers.p256Key, forKey: account + ".p256")
        _ = try keychain.rotateKey(SymmetricKey.self, forKey: account + ".key")
        let signing = try keychain.loadOrCreateSigningKey(tag: account)
        _ = try signing.signature(for: Data(markers.secret.utf8))
        _ = try keychain.rotateSigningKey(tag: account)
        #expect(try keychain.removePrivateKey(tag: account))

        // Internet passwords.
        let passwords = InternetPasswords(backend: backend)
        let internet = InternetAccount(server: "mail.example.com", account: account, protocol: .imaps)
        try passwords.set(markers.secret, for: internet)
        try passwords.set(markers.secret + "-2", for: internet)
        #expect(try passwords.password(for: internet) == markers.secret + "-2")
        #expect(try passwords.accounts(server: "mail.example.com").map(\.account) == [account])
        #expect(try passwords.removePassword(for: internet))

        // Removal, and reads of what is gone.
        #expect(try keychain.removeValue(forKey: account))
        #expect(try keychain.string(forKey: account) == nil)
        try keychain.removeAll()
    }

    /// Every rendering of an event a logger, a debugger or a crash reporter could produce.
    private func renderingsOf(_ event: KeychainEvent) -> [String] {
        var rendered = renderings(of: event)
        rendered.append(event.debugDescription)
        for child in Mirror(reflecting: event).children {
            rendered.append("\(child.label ?? ""): \(child.value)")
            var dumped = ""
            dump(child.value, to: &dumped)
            rendered.append(dumped)
        }
        return rendered
    }

    @Test func noEventOfAnyAPIHoldsASecretOrTheAccountByDefault() async throws {
        let markers = Markers()
        let recorder = EventRecorder()
        try await exerciseEveryAPI(on: recorder.observing(try .isolated()), markers)

        let operations = Set(recorder.events.map(\.operation))
        #expect(operations == Set(KeychainEvent.Operation.allCases))
        #expect(Set(recorder.events.compactMap(\.itemClass)) == [.genericPassword, .internetPassword, .key])
        for event in recorder.events {
            for text in renderingsOf(event) {
                for secret in markers.secrets {
                    #expect(!text.contains(secret), "a secret in: \(text)")
                }
                #expect(!text.contains(markers.account), "the account in: \(text)")
                #expect(!text.contains("ACCOUNT-"), "part of the account in: \(text)")
                // Data and NSData describe themselves as "N bytes": a length is a secret too.
                #expect(!text.contains("bytes"), "a data length in: \(text)")
            }
        }
        #expect(recorder.events.contains { $0.identifiers[.account] == .redacted })
        #expect(recorder.events.contains { $0.identifiers[.applicationTag] == .redacted })
    }

    @Test func publicIdentifiersShowTheAccountButNeverASecret() async throws {
        let markers = Markers()
        let recorder = EventRecorder()
        try await exerciseEveryAPI(on: recorder.observing(try .isolated(), identifiers: .public), markers)

        for event in recorder.events {
            for text in renderingsOf(event) {
                for secret in markers.secrets {
                    #expect(!text.contains(secret), "a secret in: \(text)")
                }
                #expect(!text.contains("bytes"), "a data length in: \(text)")
            }
        }
        let withAccount = recorder.events.filter { $0.identifiers[.account] == .value(markers.account) }
        #expect(!withAccount.isEmpty)
        for event in withAccount {
            #expect(event.description.contains(markers.account))
            #expect(event.debugDescription.contains(markers.account))
            var dumped = ""
            dump(event, to: &dumped)
            #expect(dumped.contains(markers.account))
        }
        // The private key's tag is its name: shown as text.
        #expect(recorder.events.contains { $0.identifiers[.applicationTag] == .value(markers.account) })
    }

    @Test func otherAttributesReferencesAndContextsNeverAppearEvenWhenPublic() throws {
        let marker = "OTHER-\(UUID().uuidString)"
        let recorder = EventRecorder()
        let backend = recorder.observing(try .isolated(), identifiers: .public)
        let added = backend.add([
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "svc",
            kSecAttrAccount as String: "acct",
            kSecAttrLabel as String: "the label",
            kSecAttrGeneric as String: Data(marker.utf8),
            kSecAttrComment as String: marker,
            kSecAttrDescription as String: marker,
            kSecValueData as String: Data(marker.utf8),
            kSecReturnPersistentRef as String: true,
        ])
        #expect(added.status == errSecSuccess)
        let reference = try #require(added.value as? Data)
        let read = backend.copyMatching([
            kSecClass as String: kSecClassGenericPassword,
            kSecValuePersistentRef as String: reference,
            kSecReturnAttributes as String: true,
            kSecReturnData as String: true,
            kSecReturnPersistentRef as String: true,
        ])
        #expect(read.status == errSecSuccess)
        #expect(backend.update([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "acct"],
                               [kSecAttrComment as String: marker + "-new", kSecAttrAccount as String: marker]) == errSecSuccess)
        // An account that is not a string stays redacted rather than be described.
        _ = backend.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: Data(marker.utf8)])

        #expect(recorder.events.count == 4)
        #expect(recorder.events[0].identifiers == [.service: .value("svc"), .account: .value("acct"), .label: .value("the label")])
        #expect(recorder.events[1].queryKeys.contains("kSecValuePersistentRef"))
        #expect(recorder.events[2].attributesToUpdateKeys == ["kSecAttrAccount", "kSecAttrComment"])
        #expect(recorder.events[3].identifiers == [.account: .redacted])
        let referenceText = [reference.base64EncodedString(), reference.map { String(format: "%02x", $0) }.joined()]
        for event in recorder.events {
            for text in renderingsOf(event) {
                #expect(!text.contains(marker), "another attribute's value in: \(text)")
                for reference in referenceText {
                    #expect(!text.contains(reference), "a persistent reference in: \(text)")
                }
                #expect(!text.contains("bytes"), "a data length in: \(text)")
            }
        }
    }
}
