#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The entries of the calls on the Secret Service's per-application access the service keeps
/// (``ServiceRequest/Operation/readSecretServiceAccess``,
/// ``ServiceRequest/Operation/changeSecretServiceAccess``: `keychainctl app-access` with the
/// keychain service; ``ServiceRequest/Operation/readSecretServicePolicy``: the provider), and the
/// strict check of which each may hold. A change carries the keychain password, which the service
/// verifies itself.
package enum SecretServiceAccessRequest {
    /// The keychain password, as data (change only, required).
    package static let passwordKey = ServiceRequest.passwordKey
    /// What a change does, a string: ``trust``, ``untrust`` or ``setPolicy`` (change only, required).
    package static let actionKey = "action"
    /// The item's Secret Service id (the hex of its persistent reference), a string.
    package static let itemKey = "item"
    /// The application's executable (or script) path, a string.
    package static let executableKey = "executable"
    /// The policy for applications not on an item's list, a string: `allow`, `confirm` or `deny`
    /// (a change's, and in the reply to either read).
    package static let policyKey = "policy"
    /// The reply's items (an array of dictionaries with ``itemKey``, ``labelKey``, ``serviceKey``,
    /// ``accountKey``, ``creatorKey`` and ``trustedKey``).
    package static let itemsKey = "items"
    /// An item's label in a reply.
    package static let labelKey = "label"
    /// An item's service (or server) in a reply.
    package static let serviceKey = "service"
    /// An item's account in a reply.
    package static let accountKey = "account"
    /// An item's creator in a reply.
    package static let creatorKey = "creator"
    /// An item's other trusted applications in a reply, an array of strings.
    package static let trustedKey = "trusted"

    /// Put an application on an item's list.
    package static let trust = "trust"
    /// Take an application off an item's list (its creator too).
    package static let untrust = "untrust"
    /// Set the policy.
    package static let setPolicy = "policy"

    /// Refuses entries an operation does not take, a wrong type, an unknown action and a missing
    /// required entry.
    static func check(_ operation: ServiceRequest.Operation, _ query: [WireEntry]) throws(WireFailure) {
        switch operation {
        case .readSecretServiceAccess, .readSecretServicePolicy:
            guard query.isEmpty else { throw .malformed("\(operation) takes no entries") }
        case .changeSecretServiceAccess:
            var present: Set<String> = []
            for entry in query {
                switch (entry.key, entry.value) {
                case (passwordKey, .data): break
                case (actionKey, .string(let action)) where [trust, untrust, setPolicy].contains(action): break
                case (itemKey, .string), (executableKey, .string): break
                case (policyKey, .string(let policy)) where ["allow", "confirm", "deny"].contains(policy): break
                default: throw .malformed("\(operation) takes no \(entry.key) of that type or value")
                }
                present.insert(entry.key)
            }
            guard present.isSuperset(of: [passwordKey, actionKey]) else { throw .malformed("\(operation) needs a password and an action") }
        default:
            return
        }
    }
}
