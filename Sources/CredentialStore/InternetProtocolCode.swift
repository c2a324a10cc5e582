import Foundation
import KeychainServices

/// Maps URL schemes (`https`, as git and Docker name protocols) to the four-character codes of
/// `kSecAttrProtocol` (`kSecAttrProtocolHTTPS` = `"htps"`) and back.
public enum InternetProtocolCode {
    /// Schemes with an Apple constant, lower case.
    private static let known: [(scheme: String, code: String)] = [
        ("https", kSecAttrProtocolHTTPS as String), ("http", kSecAttrProtocolHTTP as String),
        ("ftp", kSecAttrProtocolFTP as String), ("ftps", kSecAttrProtocolFTPS as String),
        ("ssh", kSecAttrProtocolSSH as String), ("smtp", kSecAttrProtocolSMTP as String),
        ("imap", kSecAttrProtocolIMAP as String), ("imaps", kSecAttrProtocolIMAPS as String),
        ("pop3", kSecAttrProtocolPOP3 as String), ("ldap", kSecAttrProtocolLDAP as String),
        ("ldaps", kSecAttrProtocolLDAPS as String), ("smb", kSecAttrProtocolSMB as String),
        ("afp", kSecAttrProtocolAFP as String), ("telnet", kSecAttrProtocolTelnet as String),
        ("telnets", kSecAttrProtocolTelnetS as String), ("irc", kSecAttrProtocolIRC as String),
        ("ircs", kSecAttrProtocolIRCS as String), ("nntp", kSecAttrProtocolNNTP as String),
        ("nntps", kSecAttrProtocolNNTPS as String), ("socks", kSecAttrProtocolSOCKS as String),
        ("rtsp", kSecAttrProtocolRTSP as String), ("ipp", kSecAttrProtocolIPP as String),
        ("daap", kSecAttrProtocolDAAP as String), ("eppc", kSecAttrProtocolEPPC as String),
    ]

    /// The code for a scheme or a code: a known scheme gives Apple's constant (`https` → `htps`);
    /// anything else is taken as a code, its first four characters padded with spaces
    /// (`ssh` → `"ssh "`, `cert` → `cert`). Nil for an empty or non-ASCII name.
    public static func code(for schemeOrCode: String) -> String? {
        let name = schemeOrCode.lowercased()
        if let match = known.first(where: { $0.scheme == name }) { return match.code }
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && !$0.isNewline }) else { return nil }
        let prefix = String(name.prefix(4))
        return prefix + String(repeating: " ", count: 4 - prefix.count)
    }

    /// The scheme for a code (`htps` → `https`), or the code without its padding if none is known.
    public static func scheme(for code: String) -> String {
        if let match = known.first(where: { $0.code == code }) { return match.scheme }
        return code.trimmingCharacters(in: .whitespaces)
    }
}
