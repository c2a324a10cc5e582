import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

private struct Settings: Sendable {
    @KeychainStored<String> var apiKey: String?
    @KeychainStored<Credentials> var credentials: Credentials?

    init(keychain: Keychain, onReadFailure: (@Sendable (KeychainError) -> Void)? = nil) {
        _apiKey = KeychainStored("api-key", in: keychain, onReadFailure: onReadFailure)
        _credentials = KeychainStored("credentials", in: keychain, onReadFailure: onReadFailure)
    }
}

@Suite struct PropertyWrapperTests {
    @Test func theProjectedValueReadsAndWritesWithErrors() throws {
        let keychain = try isolatedKeychain()
        let settings = Settings(keychain: keychain)
        #expect(settings.apiKey == nil)
        #expect(try settings.$apiKey.get() == nil)

        try settings.$apiKey.set("k-123")
        try settings.$credentials.set(Credentials(username: "alice", password: "pw"))

        #expect(settings.apiKey == "k-123")
        #expect(try settings.$apiKey.get() == "k-123")
        #expect(settings.credentials == Credentials(username: "alice", password: "pw"))
        #expect(try keychain.string(forKey: "api-key") == "k-123")

        try settings.$apiKey.set(nil)
        #expect(try keychain.contains("api-key") == false)
        try settings.$credentials.remove()
        #expect(settings.credentials == nil)
    }

    @Test func aFailedReadIsNilForTheWrappedValueButThrownByGetAndReported() throws {
        let locked = try RecordingBackend { _, _ in errSecInteractionNotAllowed }
        let reported = Locked<[KeychainError]>([])
        let settings = Settings(keychain: Keychain(service: "s", backend: locked.backend)) { error in
            reported.withLock { $0.append(error) }
        }

        #expect(settings.apiKey == nil)
        #expect(reported.withLock { $0 } == [.interactionNotAllowed])
        #expect(throws: KeychainError.interactionNotAllowed) { try settings.$apiKey.get() }
        #expect(throws: KeychainError.interactionNotAllowed) { try settings.$apiKey.set("x") }
    }
}

/// The declaration form of the documentation, with the value type inferred.
private struct Session: Sendable {
    @KeychainStored("refresh-token", in: Keychain(service: "com.example.app"))
    var refreshToken: String?
}

@Suite struct PropertyWrapperDeclarationTests {
    @Test func theDocumentedDeclarationInfersTheValueType() {
        let session = Session()
        #expect(session.$refreshToken.key == "refresh-token")
        #expect(session.$refreshToken.keychain.service == "com.example.app")
    }
}
