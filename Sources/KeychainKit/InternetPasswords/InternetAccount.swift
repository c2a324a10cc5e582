import KeychainServices

/// The attributes that name an internet password (`kSecClassInternetPassword`): server, account,
/// port, path, protocol, authentication type and security domain.
///
/// A field left `nil` is not part of the query: reading, updating or removing matches items with
/// any value there, and a new item is stored without it. Give every field that tells your items
/// apart; an update whose fields match several items changes them all.
public struct InternetAccount: Sendable, Hashable {
    /// The server's host name (`kSecAttrServer`), for example `"api.example.com"`.
    public var server: String

    /// The user name (`kSecAttrAccount`).
    public var account: String

    /// The port (`kSecAttrPort`).
    public var port: Int?

    /// The path (`kSecAttrPath`), for example `"/login"`.
    public var path: String?

    /// The protocol (`kSecAttrProtocol`).
    public var `protocol`: InternetProtocol?

    /// The authentication type (`kSecAttrAuthenticationType`).
    public var authenticationType: InternetAuthenticationType?

    /// The security domain, such as an HTTP realm (`kSecAttrSecurityDomain`).
    public var securityDomain: String?

    /// Creates the attributes naming an internet password.
    ///
    /// - Parameters:
    ///   - server: The server's host name; must not be empty.
    ///   - account: The user name; must not be empty.
    ///   - port: The port, if it tells items apart.
    ///   - path: The path, if it tells items apart.
    ///   - protocol: The protocol, if it tells items apart.
    ///   - authenticationType: The authentication type, if it tells items apart.
    ///   - securityDomain: The security domain (realm), if it tells items apart.
    public init(
        server: String,
        account: String,
        port: Int? = nil,
        path: String? = nil,
        protocol: InternetProtocol? = nil,
        authenticationType: InternetAuthenticationType? = nil,
        securityDomain: String? = nil
    ) {
        self.server = server
        self.account = account
        self.port = port
        self.path = path
        self.protocol = `protocol`
        self.authenticationType = authenticationType
        self.securityDomain = securityDomain
    }
}

extension InternetAccount {
    /// The class and the attributes that are set.
    func identity() throws(KeychainError) -> [String: Any] {
        guard !server.isEmpty, !account.isEmpty else {
            throw KeychainError.invalidArgument.withContext("An internet password needs a non-empty server and account")
        }
        var identity: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword,
            kSecAttrServer as String: server,
            kSecAttrAccount as String: account,
        ]
        identity[kSecAttrPort as String] = port
        identity[kSecAttrPath as String] = path
        identity[kSecAttrProtocol as String] = self.protocol?.rawValue
        identity[kSecAttrAuthenticationType as String] = authenticationType?.rawValue
        identity[kSecAttrSecurityDomain as String] = securityDomain
        return identity
    }

    /// The account described by an attribute dictionary returned by the keychain; empty and zero
    /// attributes (Apple's defaults for absent ones) read as `nil`.
    init?(attributes: [String: Any]) {
        guard let server = ResultShape.text(attributes[kSecAttrServer as String]),
              let account = ResultShape.text(attributes[kSecAttrAccount as String])
        else {
            return nil
        }
        func nonEmpty(_ key: CFString) -> String? {
            ResultShape.text(attributes[key as String]).flatMap { $0.isEmpty ? nil : $0 }
        }
        self.init(
            server: server,
            account: account,
            port: ResultShape.integer(attributes[kSecAttrPort as String]).flatMap { $0 == 0 ? nil : $0 },
            path: nonEmpty(kSecAttrPath),
            protocol: nonEmpty(kSecAttrProtocol).map(InternetProtocol.init(rawValue:)),
            authenticationType: nonEmpty(kSecAttrAuthenticationType).map(InternetAuthenticationType.init(rawValue:)),
            securityDomain: nonEmpty(kSecAttrSecurityDomain)
        )
    }

    /// Names the item in error messages: server and account, never the password.
    var errorName: String {
        "internet password for '\(account)' at '\(server)'"
    }
}

extension InternetAccount: CustomStringConvertible {
    /// A URL-like summary, for example `htps://alice@api.example.com:443/login`.
    public var description: String {
        var text = self.protocol.map { "\($0.rawValue)://" } ?? ""
        text += "\(account)@\(server)"
        if let port {
            text += ":\(port)"
        }
        text += path ?? ""
        return text
    }
}
