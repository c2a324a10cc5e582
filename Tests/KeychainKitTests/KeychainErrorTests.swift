import Crypto
import Foundation
import KeychainTestSupport
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

@Suite struct KeychainErrorTests {
    @Test func anUnknownStatusReachesTheCallerUnchanged() throws {
        let failing = try RecordingBackend { _, _ in 12345 }
        let keychain = Keychain(service: "s", backend: failing.backend)

        let error = #expect(throws: KeychainError.self) { try keychain.string(forKey: "k") }
        #expect(error?.status == 12345)
        #expect(error?.kind == .securityFramework)
        #expect(error?.errorDescription?.contains("12345") == true)
    }

    @Test func namedErrorsMatchInCatchClauses() throws {
        let locked = try RecordingBackend { _, _ in errSecInteractionNotAllowed }
        let keychain = Keychain(service: "s", backend: locked.backend)

        var matched = false
        do {
            _ = try keychain.data(forKey: "k")
        } catch KeychainError.itemNotFound {
            Issue.record("matched the wrong name")
        } catch KeychainError.interactionNotAllowed {
            matched = true
        } catch {
            Issue.record("not matched: \(error)")
        }
        #expect(matched)
    }

    @Test func namedErrorsCarryApplesCodes() {
        #expect(KeychainError.itemNotFound.status == -25300)
        #expect(KeychainError.duplicateItem.status == -25299)
        #expect(KeychainError.interactionNotAllowed.status == -25308)
        #expect(KeychainError.authFailed.status == -25293)
        #expect(KeychainError.userCanceled.status == -128)
        #expect(KeychainError.missingEntitlement.status == -34018)
        #expect(KeychainError.decode.status == -26275)
        #expect(KeychainError.param.status == -50)
        #expect(KeychainError.decodingFailed.status == -26275)
        #expect(KeychainError.decodingFailed != KeychainError.decode)
        #expect(KeychainError.invalidArgument != KeychainError.param)
    }

    @Test func equalityIgnoresTheContext() {
        let withContext = KeychainError(status: errSecItemNotFound, context: "Reading 'k' in service 's'")
        #expect(withContext == .itemNotFound)
        #expect(withContext.hashValue == KeychainError.itemNotFound.hashValue)
        #expect(withContext != .duplicateItem)
    }

    @Test func descriptionsUseSecurityFrameworkMessages() throws {
        let keychain = Keychain(service: "com.example.app", backend: try RecordingBackend { _, _ in errSecMissingEntitlement }.backend)
        let error = try #require(#expect(throws: KeychainError.self) { try keychain.set("v", forKey: "token") })

        let expected = try #require(SecCopyErrorMessageString(errSecMissingEntitlement, nil)) as String
        #expect(error.statusMessage == expected)
        #expect(error.errorDescription == "Writing 'token' in service 'com.example.app' failed: \(expected) (OSStatus -34018)")
        #expect(error.description.contains("errSecMissingEntitlement -34018"))
        #expect(error.debugDescription.contains(expected))
    }

    @Test func aDecodingFailureIsNotAKeychainDecodeError() throws {
        let keychain = try isolatedKeychain()
        try keychain.set(Data([0xFF, 0xFE, 0x00]), forKey: "binary")

        #expect(throws: KeychainError.decodingFailed) { try keychain.string(forKey: "binary") }
        #expect(throws: KeychainError.decodingFailed) { try keychain.value(Credentials.self, forKey: "binary") }
    }

    @Test func anEncodingFailureIsReported() throws {
        let keychain = try isolatedKeychain()
        #expect(throws: KeychainError.encodingFailed) { try keychain.set(Double.nan, forKey: "nan") }
        #expect(try keychain.contains("nan") == false)
    }
}

/// No secret ever appears in an error, a description or a dump.
@Suite struct SecretRedactionTests {
    static let canary = "CANARY-7f3a9c-SECRET"

    private func assertNoCanary(in value: Any, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in renderings(of: value) {
            #expect(!text.contains(Self.canary), "leaked in: \(text)", sourceLocation: sourceLocation)
            #expect(!text.contains("7f3a9c"), "leaked in: \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func decodingErrorsDoNotQuoteTheStoredValue() throws {
        let keychain = try isolatedKeychain()
        try keychain.set(Self.canary, forKey: "token")
        try keychain.set("{\"username\": \"\(Self.canary)\", \"password\": 7}", forKey: "json")

        let notJSON = #expect(throws: KeychainError.self) { try keychain.value(Credentials.self, forKey: "token") }
        let wrongType = #expect(throws: KeychainError.self) { try keychain.value(Credentials.self, forKey: "json") }
        let notAKey = #expect(throws: KeychainError.self) { try keychain.key(Curve25519.Signing.PrivateKey.self, forKey: "token") }
        for error in [notJSON, wrongType, notAKey] {
            let error = try #require(error)
            #expect(error == .decodingFailed)
            assertNoCanary(in: error)
        }
    }

    @Test func writeErrorsDoNotQuoteTheValue() throws {
        let keychain = Keychain(service: "s", backend: try RecordingBackend { _, _ in errSecAuthFailed }.backend)
        let error = try #require(#expect(throws: KeychainError.self) { try keychain.set(Self.canary, forKey: "token") })
        assertNoCanary(in: error)
        let encoding = try #require(#expect(throws: KeychainError.self) {
            try keychain.set(CanaryThatFailsToEncode(secret: Self.canary), forKey: "token")
        })
        assertNoCanary(in: encoding)
    }

    @Test func tokensAndRotationsAreRedacted() throws {
        let tokens = OAuthTokens(accessToken: Self.canary, refreshToken: Self.canary, expiresAt: Date())
        assertNoCanary(in: tokens)
        assertNoCanary(in: [tokens])

        let keychain = try isolatedKeychain()
        let rotation = try keychain.rotateKey(SymmetricKey.self, forKey: "k")
        let keyHex = Data(rotation.current.keychainRepresentation).hex
        for text in renderings(of: rotation) {
            #expect(!text.contains(keyHex))
        }
    }

    @Test func keychainDescriptionsNameTheServiceOnly() throws {
        let keychain = try isolatedKeychain(service: "com.example.app")
        try keychain.set(Self.canary, forKey: "token")
        assertNoCanary(in: keychain)
        #expect(keychain.description.contains("com.example.app"))
    }
}

private struct CanaryThatFailsToEncode: Encodable {
    var secret: String
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(secret, .init(codingPath: [], debugDescription: "refusing \(secret)"))
    }
}

/// Over an isolated engine (KeychainKitTesting) too, `KeychainError.reason` carries the
/// keychain's cause: a value over the 16 MiB limit names its size and the limit.
@Suite struct KeychainErrorReasonOverEngineTests {
    @Test func aValueOverTheLimitNamesItsSizeAndTheLimit() throws {
        let keychain = try IsolatedKeychain.keychain()
        let error = #expect(throws: KeychainError.self) { try keychain.set(Data(count: 17_000_000), forKey: "big") }
        #expect(error?.status == errSecParam)
        #expect(error?.reason?.contains("the value is 17.0 MB; the limit is 16 MiB") == true, "\(String(describing: error?.reason))")
        try keychain.set("small", forKey: "k")
        #expect(try keychain.string(forKey: "k") == "small")
    }
}
