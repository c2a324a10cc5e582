import KeychainServices

extension InternetProtocol {
    /// URL schemes (lower case) and the Apple constant of each: the one table of protocol names
    /// in this package (the git and Docker credential helpers and the Secret Service use it too).
    private static let urlSchemes: [(scheme: String, protocol: InternetProtocol)] = [
        ("https", .https), ("http", .http), ("ftp", .ftp), ("ftps", .ftps), ("ssh", .ssh), ("smtp", .smtp),
        ("imap", .imap), ("imaps", .imaps), ("pop3", .pop3), ("ldap", .ldap), ("ldaps", .ldaps), ("smb", .smb),
        ("afp", Self(rawValue: kSecAttrProtocolAFP as String)), ("telnet", .telnet),
        ("telnets", Self(rawValue: kSecAttrProtocolTelnetS as String)), ("irc", Self(rawValue: kSecAttrProtocolIRC as String)),
        ("ircs", Self(rawValue: kSecAttrProtocolIRCS as String)), ("nntp", Self(rawValue: kSecAttrProtocolNNTP as String)),
        ("nntps", Self(rawValue: kSecAttrProtocolNNTPS as String)), ("socks", .socks),
        ("rtsp", Self(rawValue: kSecAttrProtocolRTSP as String)), ("ipp", Self(rawValue: kSecAttrProtocolIPP as String)),
        ("daap", Self(rawValue: kSecAttrProtocolDAAP as String)), ("eppc", Self(rawValue: kSecAttrProtocolEPPC as String)),
    ]

    /// The protocol a URL scheme names, as git, Docker and browsers name protocols: `https` is
    /// ``https`` (`kSecAttrProtocolHTTPS`, stored as `"htps"`).
    ///
    /// - Parameter urlScheme: The scheme, in any case (`https`, `SSH`).
    /// - Returns: The protocol, or nil for a scheme that has no `kSecAttrProtocol` constant.
    public init?(urlScheme: String) {
        let scheme = urlScheme.lowercased()
        guard let match = Self.urlSchemes.first(where: { $0.scheme == scheme }) else { return nil }
        self = match.protocol
    }

    /// The URL scheme of this protocol, lower case (``https`` is `https`), or nil for a protocol
    /// that no scheme names (a four-character code written by other code).
    public var urlScheme: String? {
        Self.urlSchemes.first(where: { $0.protocol == self })?.scheme
    }
}
