import Foundation

extension TokenStore {
    /// The same token store with `async` methods that never block the caller's executor.
    public var async: AsyncTokenStore {
        AsyncTokenStore(store: self)
    }
}

/// A ``TokenStore``'s operations as `async` functions, run like ``AsyncKeychain``'s: on a
/// thread of their own while the caller is suspended.
public struct AsyncTokenStore: Sendable {
    /// The token store whose operations this runs.
    public let store: TokenStore

    /// Creates the async view of `store`.
    ///
    /// - Parameter store: The token store.
    public init(store: TokenStore) {
        self.store = store
    }

    /// Stores the tokens. See ``TokenStore/save(_:)``.
    ///
    /// - Parameter tokens: The tokens.
    /// - Throws: ``KeychainError``.
    public func save(_ tokens: OAuthTokens) async throws(KeychainError) {
        let store = store
        try await BlockingCalls.run { () throws(KeychainError) in try store.save(tokens) }
    }

    /// Stores refreshed tokens. See ``TokenStore/saveRefreshed(_:)``.
    ///
    /// - Parameter refreshed: The tokens from a refresh response.
    /// - Returns: The tokens now stored.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func saveRefreshed(_ refreshed: OAuthTokens) async throws(KeychainError) -> OAuthTokens {
        let store = store
        return try await BlockingCalls.run { () throws(KeychainError) in try store.saveRefreshed(refreshed) }
    }

    /// The stored tokens. See ``TokenStore/load()``.
    ///
    /// - Returns: The tokens, or `nil`.
    /// - Throws: ``KeychainError``.
    public func load() async throws(KeychainError) -> OAuthTokens? {
        let store = store
        return try await BlockingCalls.run { () throws(KeychainError) in try store.load() }
    }

    /// The access token if still valid. See ``TokenStore/validAccessToken(leeway:)``.
    ///
    /// - Parameter leeway: Seconds of validity the token must have left.
    /// - Returns: The access token, or `nil`.
    /// - Throws: ``KeychainError``.
    public func validAccessToken(leeway: TimeInterval = 60) async throws(KeychainError) -> String? {
        let store = store
        return try await BlockingCalls.run { () throws(KeychainError) in try store.validAccessToken(leeway: leeway) }
    }

    /// Whether a refresh is due. See ``TokenStore/isExpired(leeway:)``.
    ///
    /// - Parameter leeway: Seconds before the expiry that already count as expired.
    /// - Returns: Whether the access token must be refreshed.
    /// - Throws: ``KeychainError``.
    public func isExpired(leeway: TimeInterval = 60) async throws(KeychainError) -> Bool {
        let store = store
        return try await BlockingCalls.run { () throws(KeychainError) in try store.isExpired(leeway: leeway) }
    }

    /// Removes the tokens. See ``TokenStore/clear()``.
    ///
    /// - Throws: ``KeychainError``.
    public func clear() async throws(KeychainError) {
        let store = store
        try await BlockingCalls.run { () throws(KeychainError) in try store.clear() }
    }
}
