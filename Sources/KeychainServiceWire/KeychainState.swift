#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The service's answer to ``ServiceRequest/Operation/keychainStatus``: whether the caller's login
/// keychain is unlocked and has a password, its auto-lock interval and whether it locks when the
/// machine sleeps, as a result dictionary of exactly those values (a service without lock-on-sleep
/// sends the first three, read as "does not lock on sleep").
package struct KeychainState: Equatable, Sendable {
    private static let unlockedKey = "unlocked"
    private static let hasPasswordKey = "hasPassword"
    private static let lockIntervalKey = "lockInterval"
    private static let lockOnSleepKey = "lockOnSleep"

    /// The "when unlocked" classes are available in the service.
    package var isUnlocked: Bool
    /// The keychain has a password.
    package var hasPassword: Bool
    /// The auto-lock interval in seconds (0: never), as `SecKeychainCopySettings` reports it.
    package var lockInterval: UInt32
    /// The service locks the keychain when the machine sleeps (`SecKeychainSettings.lockOnSleep`).
    package var lockOnSleep: Bool

    /// A state.
    package init(isUnlocked: Bool, hasPassword: Bool, lockInterval: UInt32, lockOnSleep: Bool = false) {
        self.isUnlocked = isUnlocked
        self.hasPassword = hasPassword
        self.lockInterval = lockInterval
        self.lockOnSleep = lockOnSleep
    }

    /// The reply's result.
    package var wireValue: WireValue {
        .dictionary([WireEntry(key: Self.hasPasswordKey, value: .bool(hasPassword)),
                     WireEntry(key: Self.lockIntervalKey, value: .integer(Int64(lockInterval))),
                     WireEntry(key: Self.lockOnSleepKey, value: .bool(lockOnSleep)),
                     WireEntry(key: Self.unlockedKey, value: .bool(isUnlocked))])
    }

    /// The state a reply's result carries, or nil when it is not exactly this form.
    package init?(_ value: WireValue?) {
        guard case .dictionary(let entries)? = value, entries.count == 3 || entries.count == 4 else { return nil }
        var flags: [String: Bool] = [:]
        var interval: UInt32?
        for entry in entries {
            switch entry.value {
            case .bool(let flag) where [Self.unlockedKey, Self.hasPasswordKey, Self.lockOnSleepKey].contains(entry.key) && flags[entry.key] == nil:
                flags[entry.key] = flag
            case .integer(let seconds) where entry.key == Self.lockIntervalKey: interval = UInt32(exactly: seconds)
            default: return nil
            }
        }
        guard let unlocked = flags[Self.unlockedKey], let hasPassword = flags[Self.hasPasswordKey], let interval,
              flags.count == entries.count - 1 else { return nil }
        self.init(isUnlocked: unlocked, hasPassword: hasPassword, lockInterval: interval, lockOnSleep: flags[Self.lockOnSleepKey] ?? false)
    }
}
