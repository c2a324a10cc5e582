import Foundation
import KeychainKit
import KeychainKitTesting
import Testing

@Suite struct TokenStoreTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        private let current = Locked(Date(timeIntervalSince1970: 1_700_000_000))
        var now: Date { current.withLock { $0 } }
        func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    @Test func tokensRoundTripAndClearOnLogout() throws {
        let store = TokenStore(keychain: try isolatedKeychain())
        #expect(try store.load() == nil)
        let tokens = OAuthTokens(accessToken: "a1", refreshToken: "r1", expiresAt: Date(timeIntervalSince1970: 2_000_000_000))
        try store.save(tokens)
        #expect(try store.load() == tokens)

        try store.clear()
        #expect(try store.load() == nil)
        try store.clear()
    }

    @Test func expiryHonoursTheLeeway() throws {
        let clock = ManualClock()
        let store = TokenStore(keychain: try isolatedKeychain(), now: { clock.now })
        #expect(try store.isExpired())
        try store.save(OAuthTokens(accessToken: "a", refreshToken: "r", expiresIn: 3600, now: clock.now))

        #expect(try store.isExpired() == false)
        #expect(try store.validAccessToken() == "a")
        clock.advance(by: 3600 - 61)
        #expect(try store.isExpired(leeway: 60) == false)
        clock.advance(by: 2)
        #expect(try store.isExpired(leeway: 60))
        #expect(try store.isExpired(leeway: 0) == false)
        #expect(try store.validAccessToken() == nil)
        #expect(try store.validAccessToken(leeway: 0) == "a")
        clock.advance(by: 60)
        #expect(try store.isExpired(leeway: 0))
    }

    @Test func tokensWithoutExpiryNeverExpire() {
        let tokens = OAuthTokens(accessToken: "a")
        #expect(tokens.isExpired(at: .distantFuture) == false)
    }

    @Test func aRefreshWithoutANewRefreshTokenKeepsTheOldOne() throws {
        let store = TokenStore(keychain: try isolatedKeychain())
        try store.save(OAuthTokens(accessToken: "a1", refreshToken: "r1", expiresIn: 10))
        let stored = try store.saveRefreshed(OAuthTokens(accessToken: "a2", expiresIn: 3600))
        #expect(stored.accessToken == "a2")
        #expect(stored.refreshToken == "r1")
        #expect(try store.load() == stored)

        try store.saveRefreshed(OAuthTokens(accessToken: "a3", refreshToken: "r2", expiresIn: 3600))
        #expect(try store.load()?.refreshToken == "r2")
    }

    @Test func storesForTwoAccountsAreSeparate() throws {
        let keychain = try isolatedKeychain()
        let alice = TokenStore(keychain: keychain, key: "tokens.alice")
        let bob = TokenStore(keychain: keychain, key: "tokens.bob")
        try alice.save(OAuthTokens(accessToken: "alice"))
        try bob.save(OAuthTokens(accessToken: "bob"))
        try alice.clear()
        #expect(try alice.load() == nil)
        #expect(try bob.load()?.accessToken == "bob")
    }

    @Test func theAsyncStoreMatches() async throws {
        let store = TokenStore(keychain: try isolatedKeychain()).async
        try await store.save(OAuthTokens(accessToken: "a", refreshToken: "r", expiresIn: 3600))
        #expect(try await store.isExpired() == false)
        #expect(try await store.validAccessToken() == "a")
        #expect(try await store.saveRefreshed(OAuthTokens(accessToken: "b", expiresIn: 3600)).refreshToken == "r")
        #expect(try await store.load()?.accessToken == "b")
        try await store.clear()
        #expect(try await store.load() == nil)
    }
}
