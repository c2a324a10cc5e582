import KeychainPrimitives
import KeychainServices

extension InternetProtocol {
    /// The protocol a URL scheme names, as git, Docker and browsers name protocols: `https` is
    /// ``https`` (`kSecAttrProtocolHTTPS`, stored as `"htps"`).
    ///
    /// - Parameter urlScheme: The scheme, in any case (`https`, `SSH`).
    /// - Returns: The protocol, or nil for a scheme that has no `kSecAttrProtocol` constant.
    public init?(urlScheme: String) {
        // The package's one table of protocol names, shared with the credential helpers.
        guard let code = InternetProtocolSchemes.code(forScheme: urlScheme.lowercased()) else { return nil }
        self.init(rawValue: code)
    }

    /// The URL scheme of this protocol, lower case (``https`` is `https`), or nil for a protocol
    /// that no scheme names (a four-character code written by other code).
    public var urlScheme: String? {
        InternetProtocolSchemes.scheme(forCode: rawValue)
    }
}
