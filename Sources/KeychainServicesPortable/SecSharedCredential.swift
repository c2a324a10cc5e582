// Shared web credentials (Apple's SecSharedCredential.h): passwords an app shares with Safari
// for the domains its associated-domains entitlement names. Linux has neither Safari nor
// entitlements, so the calls answer as Apple's securityd answers an app without the entitlement
// (errSecMissingEntitlement, after the same parameter checks); the password generator is real.

import Foundation

/// Apple: `kSecSharedPassword` (`"spwd"`), the password in the dictionaries
/// `SecRequestSharedWebCredential` returns.
nonisolated(unsafe) public let kSecSharedPassword: CFString = "spwd"

/// The entitlement Apple's securityd names when an app may not use a domain's credentials.
private let associatedDomainsEntitlement = "com.apple.developer.associated-domains"

/// A CFError of domain `NSOSStatusErrorDomain`, as securityd reports failures.
private func sharedCredentialError(_ status: OSStatus, _ message: String) -> CFError {
    NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: [NSLocalizedDescriptionKey: message])
}

/// Apple: `SecAddSharedWebCredential(_:_:_:_:)`. Adds, changes or (with a nil password) removes
/// the shared credential of `account` on `fqdn`, then calls `completionHandler` on a background
/// queue.
///
/// Apple's securityd allows it only for a domain listed under the app's associated-domains
/// entitlement; Linux has no entitlements, so every call ends with `errSecMissingEntitlement`
/// (-34018, "<domain> not found in com.apple.developer.associated-domains entitlement"). An empty
/// account or domain is `errSecParam` first, as there.
public func SecAddSharedWebCredential(
    _ fqdn: CFString, _ account: CFString, _ password: CFString?, _ completionHandler: @escaping (CFError?) -> Void
) {
    let domain = fqdn as String
    let error: CFError
    if (account as String).isEmpty {
        error = sharedCredentialError(errSecParam, "No account provided")
    } else if domain.isEmpty {
        error = sharedCredentialError(errSecParam, "No domain provided")
    } else {
        error = sharedCredentialError(errSecMissingEntitlement, "\(domain) not found in \(associatedDomainsEntitlement) entitlement")
    }
    let handler = UncheckedHandler(call: completionHandler)
    DispatchQueue.global().async { handler.call(error) }
}

/// Apple: `SecRequestSharedWebCredential(_:_:_:)` (deprecated by Apple for
/// `ASAuthorizationPasswordRequest`). Looks up the shared credentials of `fqdn` (every domain of
/// the entitlement when nil), optionally of one `account`, and calls `completionHandler` on a
/// background queue with an array of dictionaries (`kSecAttrServer`, `kSecAttrAccount`,
/// `kSecSharedPassword`) or an error.
///
/// Without entitlements there is no domain to search: nil is `errSecParam` ("No domain
/// provided"), a domain is `errSecMissingEntitlement` (-34018), as securityd answers an app
/// without the associated-domains entitlement.
@available(*, deprecated, message: "Use ASAuthorizationController to make an ASAuthorizationPasswordRequest (AuthenticationServices framework)")
public func SecRequestSharedWebCredential(
    _ fqdn: CFString?, _ account: CFString?, _ completionHandler: @escaping (CFArray?, CFError?) -> Void
) {
    let error: CFError
    if let fqdn, !(fqdn as String).isEmpty {
        error = sharedCredentialError(errSecMissingEntitlement, "\(fqdn as String) not found in \(associatedDomainsEntitlement) entitlement")
    } else {
        error = sharedCredentialError(errSecParam, "No domain provided")
    }
    let handler = UncheckedHandler(call: completionHandler)
    DispatchQueue.global().async { handler.call(nil, error) }
}

/// Apple: `SecCreateSharedWebCredentialPassword()`. A new random password in Safari's format:
/// four groups of three characters separated by hyphens (`"xxx-xxx-xxx-xxx"`), with at least one
/// lower-case letter, one upper-case letter and one digit, and no characters that are easily
/// confused (`0 O o 1 I l i`). The characters come from `SecRandomCopyBytes`, drawn without
/// modulo bias. nil only if the system's random source fails.
@discardableResult
public func SecCreateSharedWebCredentialPassword() -> CFString? {
    SharedWebPassword.generate().map { $0 as NSString }
}

/// Safari's password format and its random generator.
enum SharedWebPassword {
    static let lowercase = Array("abcdefghjkmnpqrstuvwxyz")
    static let uppercase = Array("ABCDEFGHJKLMNPQRSTUVWXYZ")
    static let digits = Array("23456789")
    static let alphabet = lowercase + uppercase + digits

    /// A password, or nil when the random source fails.
    static func generate() -> String? {
        // Redraw until every class is present (about 1 draw in 5 misses one).
        for _ in 0..<64 {
            var characters: [Character] = []
            for _ in 0..<12 {
                guard let index = uniformIndex(below: alphabet.count) else { return nil }
                characters.append(alphabet[index])
            }
            guard characters.contains(where: lowercase.contains), characters.contains(where: uppercase.contains),
                  characters.contains(where: digits.contains) else { continue }
            return stride(from: 0, to: 12, by: 3).map { String(characters[$0..<$0 + 3]) }.joined(separator: "-")
        }
        return nil
    }

    /// A uniform index in `0..<bound` from SecRandomCopyBytes, by rejection sampling.
    private static func uniformIndex(below bound: Int) -> Int? {
        let limit = 256 - 256 % bound
        while true {
            var byte: UInt8 = 0
            guard SecRandomCopyBytes(kSecRandomDefault, 1, &byte) == errSecSuccess else { return nil }
            if Int(byte) < limit { return Int(byte) % bound }
        }
    }
}

/// Apple's completion handlers are not `@Sendable`; they are called once, on another queue, as
/// Apple calls them.
private struct UncheckedHandler<Function>: @unchecked Sendable {
    let call: Function
}
