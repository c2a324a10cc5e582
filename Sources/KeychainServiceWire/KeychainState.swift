import Foundation

/// The service's answer to ``ServiceRequest/Operation/keychainStatus``: whether the caller's login
/// keychain is unlocked and whether it has a password, as a result dictionary of two booleans.
package struct KeychainState: Equatable, Sendable {
    private static let unlockedKey = "unlocked"
    private static let hasPasswordKey = "hasPassword"

    /// The "when unlocked" classes are available in the service.
    package var isUnlocked: Bool
    /// The keychain has a password.
    package var hasPassword: Bool

    /// A state.
    package init(isUnlocked: Bool, hasPassword: Bool) {
        self.isUnlocked = isUnlocked
        self.hasPassword = hasPassword
    }

    /// The reply's result.
    package var wireValue: WireValue {
        .dictionary([WireEntry(key: Self.hasPasswordKey, value: .bool(hasPassword)), WireEntry(key: Self.unlockedKey, value: .bool(isUnlocked))])
    }

    /// The state a reply's result carries, or nil when it is not this form.
    package init?(_ value: WireValue?) {
        guard case .dictionary(let entries)? = value, entries.count == 2 else { return nil }
        var flags: [String: Bool] = [:]
        for entry in entries {
            guard case .bool(let flag) = entry.value else { return nil }
            flags[entry.key] = flag
        }
        guard let unlocked = flags[Self.unlockedKey], let hasPassword = flags[Self.hasPasswordKey] else { return nil }
        self.init(isUnlocked: unlocked, hasPassword: hasPassword)
    }
}
