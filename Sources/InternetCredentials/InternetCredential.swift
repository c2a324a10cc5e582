#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An internet password as git and Docker see it: protocol, host, port, path, user name, secret.
/// Stored as a `kSecClassInternetPassword` item (server, port, path, protocol code, account).
package struct InternetCredential: Sendable, Equatable {
    /// The URL scheme (`https`).
    package var scheme: String
    /// The host name without port (`example.com`, `::1`).
    package var host: String
    /// The port, if one was given.
    package var port: Int?
    /// The path (git: without a leading slash; Docker: as in the URL), if any.
    package var path: String?
    /// The user name.
    package var account: String?
    /// The secret; nil in queries and in results that did not ask for it.
    package var secret: Data?
    /// `kSecAttrLabel`.
    package var label: String?
    /// `kSecAttrComment`.
    package var comment: String?
    /// `kSecAttrAccessGroup` to store in and search (nil: the tool's default group; every
    /// entitled group when searching). Not filled in by searches.
    package var accessGroup: String?

    /// A credential (or a query: nil fields match anything).
    package init(scheme: String, host: String, port: Int? = nil, path: String? = nil, account: String? = nil,
                secret: Data? = nil, label: String? = nil, comment: String? = nil, accessGroup: String? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.account = account
        self.secret = secret
        self.label = label
        self.comment = comment
        self.accessGroup = accessGroup
    }
}
