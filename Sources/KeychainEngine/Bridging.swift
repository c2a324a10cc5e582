import Foundation
import KeychainStore

/// A value that stands for an access-control object in a query dictionary (KeychainServices'
/// `SecAccessControl` on Linux conforms). The engine reads the policy through this protocol so
/// it does not depend on the module that declares Apple's names.
public protocol AccessControlConvertible {
    /// The protection class and flags.
    var accessControlPolicy: AccessControlPolicy { get }
}

extension AccessControlPolicy: AccessControlConvertible {
    /// The policy itself.
    public var accessControlPolicy: AccessControlPolicy { self }
}

/// A value that stands for an authentication context (`LAContext`) under
/// `kSecUseAuthenticationContext`.
public protocol AuthenticationContextConvertible: AnyObject {
    /// An application password set on the context with `setCredential(_:type:)`, if any.
    var applicationPasswordCredential: Data? { get }
    /// Whether the context forbids user interaction.
    var forbidsInteraction: Bool { get }
}
