import KeychainPrimitives

/// Maps URL schemes (`https`, as git and Docker name protocols) to the four-character codes of
/// `kSecAttrProtocol` (`kSecAttrProtocolHTTPS` = `"htps"`) and back, for the tools:
/// `InternetProtocolSchemes` (the table the typed API names protocols by too) names the protocols;
/// this adds the tools' rule for names it does not know.
package enum InternetProtocolCode {
    /// The code for a scheme or a code: a known scheme gives Apple's constant (`https` → `htps`);
    /// anything else is taken as a code, its first four characters padded with spaces
    /// (`ssh` → `"ssh "`, `cert` → `cert`). Nil for an empty or non-ASCII name.
    package static func code(for schemeOrCode: String) -> String? {
        let name = schemeOrCode.lowercased()
        if let known = InternetProtocolSchemes.code(forScheme: name) { return known }
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && !$0.isNewline }) else { return nil }
        let prefix = String(name.prefix(4))
        return prefix + String(repeating: " ", count: 4 - prefix.count)
    }

    /// The scheme for a code (`htps` → `https`), or the code without its padding if none is known.
    package static func scheme(for code: String) -> String {
        InternetProtocolSchemes.scheme(forCode: code) ?? code.trimmingWhitespace()
    }
}
