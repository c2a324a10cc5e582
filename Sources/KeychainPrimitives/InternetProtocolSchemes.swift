/// URL schemes (lower case) and the `kSecAttrProtocol` code of each: the one table of protocol
/// names in this package. The typed API (`InternetProtocol(urlScheme:)`), the git and Docker
/// credential helpers and the Secret Service all store what it says, so it sits at the bottom,
/// where each reaches it without the others.
///
/// The codes are the four-character values of Apple's `kSecAttrProtocol…` constants (SecItem.h:
/// `kSecAttrProtocolHTTPS` is `'htps'`), which every keychain stores and so never change;
/// `InternetProtocolSchemeTests` checks each against the constant of the platform's Security API.
package enum InternetProtocolSchemes {
    /// Each scheme and its code, in the order lookups try them.
    package static let all: [(scheme: String, code: String)] = [
        ("https", "htps"), ("http", "http"), ("ftp", "ftp "), ("ftps", "ftps"), ("ssh", "ssh "), ("smtp", "smtp"),
        ("imap", "imap"), ("imaps", "imps"), ("pop3", "pop3"), ("ldap", "ldap"), ("ldaps", "ldps"), ("smb", "smb "),
        ("afp", "afp "), ("telnet", "teln"), ("telnets", "tels"), ("irc", "irc "), ("ircs", "ircs"), ("nntp", "nntp"),
        ("nntps", "ntps"), ("socks", "sox "), ("rtsp", "rtsp"), ("ipp", "ipp "), ("daap", "daap"), ("eppc", "eppc"),
    ]

    /// The code a scheme names (`https` → `htps`); `scheme` must be lower case. Nil for a scheme
    /// that has no `kSecAttrProtocol` constant.
    package static func code(forScheme scheme: String) -> String? {
        all.first { $0.scheme == scheme }?.code
    }

    /// The scheme of a code (`htps` → `https`), or nil for a code that no scheme names.
    package static func scheme(forCode code: String) -> String? {
        all.first { $0.code == code }?.scheme
    }
}
