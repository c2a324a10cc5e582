import KeychainServices

/// The protocol of an internet password (`kSecAttrProtocol`), with Apple's constants by name.
///
/// A struct over the stored string so that values written by other code (any four-character
/// code) survive a round trip.
public struct InternetProtocol: RawRepresentable, Hashable, Sendable {
    /// The `kSecAttrProtocol` value, for example `"htps"` for HTTPS.
    public let rawValue: String

    /// Creates a protocol from its `kSecAttrProtocol` value.
    ///
    /// - Parameter rawValue: The stored value, for example `kSecAttrProtocolHTTPS as String`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// HTTP (`kSecAttrProtocolHTTP`).
    public static var http: Self { Self(rawValue: kSecAttrProtocolHTTP as String) }
    /// HTTPS (`kSecAttrProtocolHTTPS`).
    public static var https: Self { Self(rawValue: kSecAttrProtocolHTTPS as String) }
    /// FTP (`kSecAttrProtocolFTP`).
    public static var ftp: Self { Self(rawValue: kSecAttrProtocolFTP as String) }
    /// FTP over TLS (`kSecAttrProtocolFTPS`).
    public static var ftps: Self { Self(rawValue: kSecAttrProtocolFTPS as String) }
    /// SSH (`kSecAttrProtocolSSH`).
    public static var ssh: Self { Self(rawValue: kSecAttrProtocolSSH as String) }
    /// SMTP (`kSecAttrProtocolSMTP`).
    public static var smtp: Self { Self(rawValue: kSecAttrProtocolSMTP as String) }
    /// IMAP (`kSecAttrProtocolIMAP`).
    public static var imap: Self { Self(rawValue: kSecAttrProtocolIMAP as String) }
    /// IMAP over TLS (`kSecAttrProtocolIMAPS`).
    public static var imaps: Self { Self(rawValue: kSecAttrProtocolIMAPS as String) }
    /// POP3 (`kSecAttrProtocolPOP3`).
    public static var pop3: Self { Self(rawValue: kSecAttrProtocolPOP3 as String) }
    /// POP3 over TLS (`kSecAttrProtocolPOP3S`).
    public static var pop3s: Self { Self(rawValue: kSecAttrProtocolPOP3S as String) }
    /// LDAP (`kSecAttrProtocolLDAP`).
    public static var ldap: Self { Self(rawValue: kSecAttrProtocolLDAP as String) }
    /// LDAP over TLS (`kSecAttrProtocolLDAPS`).
    public static var ldaps: Self { Self(rawValue: kSecAttrProtocolLDAPS as String) }
    /// SMB (`kSecAttrProtocolSMB`).
    public static var smb: Self { Self(rawValue: kSecAttrProtocolSMB as String) }
    /// Telnet (`kSecAttrProtocolTelnet`).
    public static var telnet: Self { Self(rawValue: kSecAttrProtocolTelnet as String) }
    /// SOCKS (`kSecAttrProtocolSOCKS`).
    public static var socks: Self { Self(rawValue: kSecAttrProtocolSOCKS as String) }
}

extension InternetProtocol: CustomStringConvertible {
    /// The stored four-character code.
    public var description: String { rawValue }
}

/// How an internet password authenticates (`kSecAttrAuthenticationType`), with Apple's
/// constants by name.
public struct InternetAuthenticationType: RawRepresentable, Hashable, Sendable {
    /// The `kSecAttrAuthenticationType` value, for example `"form"` for an HTML form.
    public let rawValue: String

    /// Creates an authentication type from its `kSecAttrAuthenticationType` value.
    ///
    /// - Parameter rawValue: The stored value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The default for the protocol (`kSecAttrAuthenticationTypeDefault`).
    public static var `default`: Self { Self(rawValue: kSecAttrAuthenticationTypeDefault as String) }
    /// HTTP basic authentication (`kSecAttrAuthenticationTypeHTTPBasic`).
    public static var httpBasic: Self { Self(rawValue: kSecAttrAuthenticationTypeHTTPBasic as String) }
    /// HTTP digest authentication (`kSecAttrAuthenticationTypeHTTPDigest`).
    public static var httpDigest: Self { Self(rawValue: kSecAttrAuthenticationTypeHTTPDigest as String) }
    /// An HTML form (`kSecAttrAuthenticationTypeHTMLForm`).
    public static var htmlForm: Self { Self(rawValue: kSecAttrAuthenticationTypeHTMLForm as String) }
    /// NTLM (`kSecAttrAuthenticationTypeNTLM`).
    public static var ntlm: Self { Self(rawValue: kSecAttrAuthenticationTypeNTLM as String) }
}

extension InternetAuthenticationType: CustomStringConvertible {
    /// The stored four-character code.
    public var description: String { rawValue }
}
