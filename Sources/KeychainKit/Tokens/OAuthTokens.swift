import Foundation

/// An OAuth access token, its refresh token and its expiry.
///
/// Its `description`, `debugDescription` and `dump` output never show the tokens.
public struct OAuthTokens: Codable, Sendable, Hashable {
    /// The access token sent with requests.
    public var accessToken: String

    /// The refresh token that obtains a new access token, if the server issued one.
    public var refreshToken: String?

    /// When the access token expires, or `nil` if the server gave no lifetime.
    public var expiresAt: Date?

    /// Creates tokens with an absolute expiry.
    ///
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token, if any.
    ///   - expiresAt: When the access token expires, if known.
    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// Creates tokens from a token response's `expires_in` (seconds from now).
    ///
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token, if any.
    ///   - expiresIn: The access token's lifetime in seconds.
    ///   - now: The time the response was received.
    public init(accessToken: String, refreshToken: String? = nil, expiresIn: TimeInterval, now: Date = Date()) {
        self.init(accessToken: accessToken, refreshToken: refreshToken, expiresAt: now.addingTimeInterval(expiresIn))
    }

    /// Whether the access token has expired, or will within `leeway` seconds.
    ///
    /// A leeway refreshes a little early, so that a token does not expire between the check and
    /// the request, and absorbs small clock differences with the server. Tokens without an
    /// expiry never expire.
    ///
    /// - Parameters:
    ///   - date: The time to check against, by default now.
    ///   - leeway: How many seconds before the expiry a token already counts as expired.
    /// - Returns: `true` when `date + leeway` is at or after ``expiresAt``.
    public func isExpired(at date: Date = Date(), leeway: TimeInterval = 60) -> Bool {
        guard let expiresAt else {
            return false
        }
        return date.addingTimeInterval(leeway) >= expiresAt
    }
}

extension OAuthTokens: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The expiry and whether a refresh token exists; the tokens are redacted.
    public var description: String {
        let refresh = refreshToken == nil ? "nil" : "<redacted>"
        let expiry = expiresAt.map { "\($0)" } ?? "nil"
        return "OAuthTokens(accessToken: <redacted>, refreshToken: \(refresh), expiresAt: \(expiry))"
    }

    /// Same as ``description``: the tokens are redacted.
    public var debugDescription: String {
        description
    }

    /// A mirror showing only the expiry, so that `dump` shows no token.
    public var customMirror: Mirror {
        Mirror(self, children: ["expiresAt": expiresAt as Any], displayStyle: .struct)
    }
}
