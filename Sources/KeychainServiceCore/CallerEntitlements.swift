#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainVocabulary

/// A caller's application identifier and access groups, derived by the service from its
/// verified identity and the machine owner's grants — the Linux counterpart of the entitlements
/// in an iOS app's code signature. The caller's own claims (`KEYCHAINKIT_APP_ID`,
/// `KEYCHAINKIT_ACCESS_GROUPS`) only choose among these: anything else is
/// `errSecMissingEntitlement` (-34018), as on Apple platforms.
package struct CallerEntitlements: Sendable, Equatable {
    /// The application identifier: the granted one, else the executable's path — and, for a
    /// program its user can change (or a traced process), the path with the content's digest,
    /// so that a same-user program that overwrites it, or runs its own copy, is another application.
    package var applicationIdentifier: String
    /// Groups granted beyond the application identifier.
    package var grantedGroups: [String]

    /// The entitlements of `peer` under `grants` — the machine owner's first, then the user's
    /// own: every grant that applies adds its groups; the application identifier is the first one
    /// a grant names, and any other named identifier is granted as a group (no grant takes away
    /// what another gave).
    package init(peer: PeerIdentity, grants: [ApplicationGrant]) {
        let applying = grants.filter { $0.applies(to: peer) }
        if !applying.isEmpty {
            let identifier = applying.lazy.compactMap(\.applicationIdentifier).first ?? peer.executablePath
            var groups: [String] = []
            for grant in applying {
                for group in grant.accessGroups + [grant.applicationIdentifier].compactMap({ $0 })
                where group != identifier && !groups.contains(group) {
                    groups.append(group)
                }
            }
            applicationIdentifier = identifier
            grantedGroups = groups
        } else {
            applicationIdentifier = peer.isVerified ? peer.executablePath : peer.executablePath + "#sha256:" + peer.executableSHA256
            grantedGroups = []
        }
    }

    /// The access groups for a request claiming `claimedApplicationIdentifier` and `claimedGroups`:
    /// the claimed groups in order and the application identifier last (as the embedded mode
    /// orders them), or, without claims, the application identifier first (the default group for
    /// adds) and the granted groups. A claim of anything not granted is `errSecMissingEntitlement`.
    package func accessGroups(claimedApplicationIdentifier: String?, claimedGroups: [String]) throws(KeychainStoreError) -> AccessGroups {
        if let claimedApplicationIdentifier, claimedApplicationIdentifier != applicationIdentifier {
            throw KeychainStoreError(.notAvailable("this program's application identifier is \(applicationIdentifier); "
                                                   + "\(claimedApplicationIdentifier) was not granted to it"), status: .missingEntitlement)
        }
        let claimed = AccessGroups(claimedGroups).groups
        let allowed = Set(grantedGroups + [applicationIdentifier])
        if let ungranted = claimed.first(where: { !allowed.contains($0) }) {
            throw KeychainStoreError(.notAvailable("the access group \(ungranted) was not granted to \(applicationIdentifier) "
                                                   + "(a root-owned grant file names the groups a program may use)"), status: .missingEntitlement)
        }
        if claimed.isEmpty { return AccessGroups([applicationIdentifier] + grantedGroups) }
        return AccessGroups(claimed.contains(applicationIdentifier) ? claimed : claimed + [applicationIdentifier])
    }
}
