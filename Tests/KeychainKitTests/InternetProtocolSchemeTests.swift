import KeychainKit
import KeychainPrimitives
import KeychainServices
import Testing

/// `InternetProtocol(urlScheme:)` and `urlScheme`: the one table of protocol names that the git and
/// Docker helpers and the Secret Service share (they store what it says, so a wrong entry would
/// write items other tools cannot find).
@Suite struct InternetProtocolSchemeTests {
    @Test func knownSchemesGiveApplesConstantsAndBack() {
        let expected: [(String, CFString)] = [
            ("https", kSecAttrProtocolHTTPS), ("http", kSecAttrProtocolHTTP), ("ftp", kSecAttrProtocolFTP),
            ("ssh", kSecAttrProtocolSSH), ("imaps", kSecAttrProtocolIMAPS), ("smb", kSecAttrProtocolSMB),
            ("telnets", kSecAttrProtocolTelnetS), ("eppc", kSecAttrProtocolEPPC), ("socks", kSecAttrProtocolSOCKS),
        ]
        for (scheme, constant) in expected {
            let named = InternetProtocol(urlScheme: scheme)
            #expect(named?.rawValue == constant as String, "\(scheme)")
            #expect(named?.urlScheme == scheme, "\(scheme)")
        }
        #expect(InternetProtocol(urlScheme: "https") == .https)
        #expect(InternetProtocol.ssh.urlScheme == "ssh")
    }

    /// The table spells Apple's codes as literals (so that the helpers reach it without the typed
    /// API): each must be the platform's own constant, Apple's Security framework on Apple platforms.
    @Test func everyCodeInTheTableIsTheSecurityConstant() {
        let constants: [String: CFString] = [
            "https": kSecAttrProtocolHTTPS, "http": kSecAttrProtocolHTTP, "ftp": kSecAttrProtocolFTP, "ftps": kSecAttrProtocolFTPS,
            "ssh": kSecAttrProtocolSSH, "smtp": kSecAttrProtocolSMTP, "imap": kSecAttrProtocolIMAP, "imaps": kSecAttrProtocolIMAPS,
            "pop3": kSecAttrProtocolPOP3, "ldap": kSecAttrProtocolLDAP, "ldaps": kSecAttrProtocolLDAPS, "smb": kSecAttrProtocolSMB,
            "afp": kSecAttrProtocolAFP, "telnet": kSecAttrProtocolTelnet, "telnets": kSecAttrProtocolTelnetS, "irc": kSecAttrProtocolIRC,
            "ircs": kSecAttrProtocolIRCS, "nntp": kSecAttrProtocolNNTP, "nntps": kSecAttrProtocolNNTPS, "socks": kSecAttrProtocolSOCKS,
            "rtsp": kSecAttrProtocolRTSP, "ipp": kSecAttrProtocolIPP, "daap": kSecAttrProtocolDAAP, "eppc": kSecAttrProtocolEPPC,
        ]
        #expect(Set(InternetProtocolSchemes.all.map(\.scheme)) == Set(constants.keys))
        #expect(Set(InternetProtocolSchemes.all.map(\.code)).count == InternetProtocolSchemes.all.count, "two schemes share a code")
        for row in InternetProtocolSchemes.all {
            #expect(constants[row.scheme].map { $0 as String } == row.code, "\(row.scheme)")
        }
    }

    @Test func schemesAreCaseInsensitive() {
        #expect(InternetProtocol(urlScheme: "HTTPS") == .https)
        #expect(InternetProtocol(urlScheme: "Ssh") == .ssh)
    }

    /// A hostile or unknown name is never guessed into a known protocol, and a four-character code
    /// written by other code has no scheme rather than a wrong one.
    @Test func unknownNamesAndForeignCodesMapToNothing() {
        for name in ["", "htps", "git", "https ", "ht tps", "httpsx", "ssh:"] {
            #expect(InternetProtocol(urlScheme: name) == nil, "\(name)")
        }
        #expect(InternetProtocol(rawValue: "cert").urlScheme == nil)
        #expect(InternetProtocol(rawValue: "HTPS").urlScheme == nil)
    }
}
