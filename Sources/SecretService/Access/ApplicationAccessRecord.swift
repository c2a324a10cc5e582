#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the provider does when an application not on an item's list of trusted applications
/// reads the item's secret or changes the item.
package enum ApplicationAccessPolicy: String, Codable, Sendable, CaseIterable {
    /// Allowed, and recorded as allowed by policy (the default: clients keep working as they did
    /// before per-application access existed).
    case allow
    /// A person is asked through pinentry: allow once, always (the application joins the item's
    /// list), or deny. Denied at once when no prompt can be shown.
    case confirm
    /// Refused.
    case deny

    /// Whether `self` lets more through without a person than `other` does (`allow` > `confirm` > `deny`).
    package func isLooser(than other: ApplicationAccessPolicy) -> Bool {
        rank > other.rank
    }

    private var rank: Int {
        switch self {
        case .deny: 0
        case .confirm: 1
        case .allow: 2
        }
    }
}

/// One item's applications: the one that created it (always trusted) and the others allowed to
/// read and change it. Applications are named by their executable's absolute path, as the kernel
/// reports it in `/proc/<pid>/exe` (symbolic links resolved: `/usr/bin/python3` is
/// `/usr/bin/python3.11` on Debian 12).
package struct ItemApplicationList: Codable, Sendable, Equatable {
    /// The executable that created the item through the Secret Service, if it was identified.
    package var creator: String?
    /// Executables allowed besides the creator, in the order they were added.
    package var trusted: [String]

    /// A list with `creator` and `trusted`.
    package init(creator: String?, trusted: [String] = []) {
        self.creator = creator
        self.trusted = trusted
    }

    /// Whether `executable` is the creator or on the list.
    package func trusts(_ executable: String) -> Bool {
        creator == executable || trusted.contains(executable)
    }
}

/// A keychain's per-application access settings: the policy and each item's list. Stored as the
/// secret of one hidden item of the keychain (``ApplicationAccessStore``), so it is encrypted and
/// authenticated as every secret is, and no Secret Service attribute can change it.
package struct ApplicationAccessRecord: Codable, Sendable, Equatable {
    /// The format's version (this is 1).
    package var version: Int
    /// What happens to applications not on an item's list.
    package var policy: ApplicationAccessPolicy
    /// The lists, by Secret Service item id (the hex of the keychain item's persistent reference).
    /// An item with no entry (made before per-application access, or by `keychainctl`) has an
    /// empty list.
    package var items: [String: ItemApplicationList]

    /// The record of a keychain that has none yet: policy `allow`, no lists.
    package static let empty = ApplicationAccessRecord(version: 1, policy: .allow, items: [:])

    /// A record with these settings.
    package init(version: Int = 1, policy: ApplicationAccessPolicy, items: [String: ItemApplicationList]) {
        self.version = version
        self.policy = policy
        self.items = items
    }

    /// The list of the item `itemID` (empty when it has none).
    package func list(of itemID: String) -> ItemApplicationList {
        items[itemID] ?? ItemApplicationList(creator: nil)
    }
}
