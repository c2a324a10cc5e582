import Foundation

/// Keeps a signed-in user's OAuth tokens in the keychain: one item holding the access token,
/// the refresh token and the expiry, so that they always change together.
///
/// ```swift
/// let tokens = TokenStore(keychain: Keychain(service: "com.example.app"))
/// try tokens.save(OAuthTokens(accessToken: access, refreshToken: refresh, expiresIn: 3600))
/// if try tokens.isExpired() { /* refresh, then save the new tokens */ }
/// try tokens.clear()   // on logout
/// ```
///
/// The default accessibility of ``Keychain`` (`afterFirstUnlockThisDeviceOnly`) suits tokens:
/// background refresh can read them, and they never leave the device.
public struct TokenStore: Sendable {
    /// The keychain holding the tokens.
    public let keychain: Keychain

    /// The item's account.
    public let key: String

    private let now: @Sendable () -> Date

    /// Creates a token store.
    ///
    /// - Parameters:
    ///   - keychain: The keychain holding the tokens.
    ///   - key: The item's account; one store per signed-in account.
    ///   - now: The clock used by ``isExpired(leeway:)``; replace it in tests.
    public init(keychain: Keychain, key: String = "oauth-tokens", now: @escaping @Sendable () -> Date = { Date() }) {
        self.keychain = keychain
        self.key = key
        self.now = now
    }

    /// Stores the tokens, replacing the previous ones.
    ///
    /// - Parameter tokens: The tokens from the last token response.
    /// - Throws: ``KeychainError``.
    public func save(_ tokens: OAuthTokens) throws(KeychainError) {
        try keychain.set(tokens, forKey: key)
    }

    /// Stores a refreshed access token, keeping the stored refresh token when the response
    /// carries none (servers often reuse it).
    ///
    /// - Parameter refreshed: The tokens from a refresh response.
    /// - Returns: The tokens now stored.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func saveRefreshed(_ refreshed: OAuthTokens) throws(KeychainError) -> OAuthTokens {
        var tokens = refreshed
        if tokens.refreshToken == nil {
            tokens.refreshToken = try load()?.refreshToken
        }
        try save(tokens)
        return tokens
    }

    /// The stored tokens, or `nil` when signed out.
    ///
    /// - Returns: The tokens, or `nil`.
    /// - Throws: ``KeychainError``; a locked keychain throws rather than reading as signed out.
    public func load() throws(KeychainError) -> OAuthTokens? {
        try keychain.value(OAuthTokens.self, forKey: key)
    }

    /// The stored access token if it is still valid for `leeway` seconds, else `nil`.
    ///
    /// - Parameter leeway: Seconds of validity the token must have left.
    /// - Returns: The access token, or `nil` when signed out or expired.
    /// - Throws: ``KeychainError``.
    public func validAccessToken(leeway: TimeInterval = 60) throws(KeychainError) -> String? {
        guard let tokens = try load(), !tokens.isExpired(at: now(), leeway: leeway) else {
            return nil
        }
        return tokens.accessToken
    }

    /// Whether a refresh is due: `true` when the access token expires within `leeway` seconds,
    /// or when there are no tokens at all.
    ///
    /// - Parameter leeway: Seconds before the expiry that already count as expired.
    /// - Returns: Whether the access token must be refreshed (or the user signed in).
    /// - Throws: ``KeychainError``.
    public func isExpired(leeway: TimeInterval = 60) throws(KeychainError) -> Bool {
        guard let tokens = try load() else {
            return true
        }
        return tokens.isExpired(at: now(), leeway: leeway)
    }

    /// Removes the tokens, on logout; clearing an empty store is not an error.
    ///
    /// - Throws: ``KeychainError``.
    public func clear() throws(KeychainError) {
        try keychain.removeValue(forKey: key)
    }
}
