import KeychainServices

/// The settings every item of a ``Keychain`` or ``InternetPasswords`` shares: where items live
/// (access group, synchronizable), how they are protected (accessibility, access control), how
/// reads authenticate, and which backend runs the calls.
struct ItemScope: Sendable {
    var accessGroup: String?
    var explicitAccessibility: Accessibility?
    var synchronizable: Bool
    var accessControl: AccessControl?
    var authenticationContext: AuthenticationContext?
    var backend: KeychainBackend

    /// The protection class used for new and rewritten items: the explicit one, else
    /// `afterFirstUnlock` for a synchronizable keychain and `afterFirstUnlockThisDeviceOnly`
    /// otherwise.
    var accessibility: Accessibility {
        explicitAccessibility ?? (synchronizable ? .afterFirstUnlock : .afterFirstUnlockThisDeviceOnly)
    }

    /// Rejects combinations Apple forbids or that would silently never sync.
    func validate() throws(KeychainError) {
        if accessGroup?.isEmpty == true {
            throw KeychainError.invalidArgument.withContext("An empty access group is not allowed; pass nil for the default group")
        }
        guard synchronizable else {
            return
        }
        if accessibility.isThisDeviceOnly {
            throw KeychainError.invalidArgument.withContext(
                "A synchronizable keychain cannot use the ThisDeviceOnly accessibility class \(accessibility); use .afterFirstUnlock or .whenUnlocked"
            )
        }
        if accessControl != nil {
            throw KeychainError.invalidArgument.withContext(
                "A synchronizable keychain cannot use access control (the Security framework rejects kSecAttrAccessControl with kSecAttrSynchronizable)"
            )
        }
    }

    /// The keys that select this scope's items: access group, synchronizable, and the
    /// data-protection keychain on macOS.
    func selection() -> [String: Any] {
        var query: [String: Any] = [
            kSecAttrSynchronizable as String: synchronizable,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup {
            query[kSecAttrAccessGroup as String] = accessGroup
        }
        return query
    }

    /// The protection attributes written with every add and update: the access control if there
    /// is one, otherwise the accessibility class (never both: Apple rejects that with -50).
    func protection() throws(KeychainError) -> [String: Any] {
        if let accessControl {
            let object = try accessControl.makeSecAccessControl(accessibility: accessibility)
            return [kSecAttrAccessControl as String: object]
        }
        return [kSecAttrAccessible as String: accessibility.attributeValue]
    }

    /// Adds the authentication context, if any, to a query (never to attributes to update).
    func authenticate(_ query: inout [String: Any]) {
        authenticationContext?.apply(to: &query)
    }
}
