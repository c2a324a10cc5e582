#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainServiceWire

/// Which program each embedded access group belongs to in the service, for a migration.
///
/// The two modes name groups differently: an embedded program declares its own (its executable's
/// name, `KEYCHAINKIT_APP_ID`, `KEYCHAINKIT_ACCESS_GROUPS`), while the service derives a program's
/// group from its verified executable path (or a root-owned grant). Nothing in an embedded
/// keychain says which program a group's name meant, so the user says it, one pair per group
/// (`--group NAME=PROGRAM`); keychainctl's own group maps to the running keychainctl by default.
/// A group nobody named is listed and the migration refused: it is never silently put in a group
/// that more programs, or other programs, can read.
///
/// The Secret Service provider is keychainctl: embedded, it keeps its items in keychainctl's own
/// group; through the service it runs in ``ServiceRequest/secretServiceAccessGroup``. Its items
/// (those of keychainctl's group in its stored form) go there, and back to keychainctl's group on
/// the way out. Only keychainctl's group gives items to the Secret Service's: another group's item
/// that merely looks like one stays with its program, since in the Secret Service's group every
/// D-Bus client the user allows could read it.
package struct AccessGroupMapping: Sendable, Equatable {
    /// Embedded group → service group (an executable's absolute path, or a group name a grant hands out).
    package private(set) var serviceGroups: [String: String]
    /// keychainctl's own embedded group: the Secret Service provider's in the embedded mode.
    package let ownGroup: String

    /// A refused mapping, with the fix.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The pairs `NAME=PROGRAM` the user gave, and the default pair for this tool's own group
    /// (`ownGroup`, its embedded name → `ownProgram`, its path) unless the user named that group.
    package init(pairs: [String], ownGroup: String, ownProgram: String) throws(Failure) {
        serviceGroups = [:]
        self.ownGroup = ownGroup
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex, pair.index(after: equals) != pair.endIndex else {
                throw Failure(description: "--group takes NAME=PROGRAM (the embedded access group and the program it belongs to), not \"\(pair)\"")
            }
            let group = String(pair[..<equals]), target = String(pair[pair.index(after: equals)...])
            guard target != "*", group != "*" else {
                throw Failure(description: "--group \(pair): * (every group) is not an access group a migration can use")
            }
            guard target != ServiceRequest.secretServiceAccessGroup else {
                throw Failure(description: "--group \(pair): \(target) holds the Secret Service provider's items only, which move there "
                              + "by themselves; name the program the group belongs to")
            }
            if let earlier = serviceGroups[group], earlier != target {
                throw Failure(description: "--group names \(group) twice (\(earlier) and \(target)): one program per group")
            }
            serviceGroups[group] = target
        }
        if serviceGroups[ownGroup] == nil { serviceGroups[ownGroup] = ownProgram }
    }

    /// The service group of an item of the embedded group `group` (nil: no pair names it);
    /// `isSecretServiceItem`: whether it is in the Secret Service provider's stored form, which
    /// counts in keychainctl's own group only.
    package func serviceGroup(of group: String, isSecretServiceItem: Bool) -> String? {
        if group == ownGroup && isSecretServiceItem { return ServiceRequest.secretServiceAccessGroup }
        return serviceGroups[group]
    }

    /// The embedded groups among `groups` that no pair names, sorted.
    package func unmapped(_ groups: some Sequence<String>) -> [String] {
        Set(groups).filter { serviceGroups[$0] == nil }.sorted()
    }

    /// The service groups among `groups` that no pair names as its target, sorted (a migration out).
    /// The Secret Service's group always goes back to keychainctl's own.
    package func unmappedServiceGroups(_ groups: some Sequence<String>) -> [String] {
        let targets = Set(serviceGroups.values).union([ServiceRequest.secretServiceAccessGroup])
        return Set(groups).filter { !targets.contains($0) }.sorted()
    }

    /// Service group → embedded group, for a migration out; the Secret Service's group goes to
    /// keychainctl's own, where the embedded provider keeps its items. Two embedded groups mapped
    /// to one program cannot be told apart on the way back: refused, naming them.
    package func embeddedGroups() throws(Failure) -> [String: String] {
        var inverse = [ServiceRequest.secretServiceAccessGroup: ownGroup]
        for (embedded, service) in serviceGroups.sorted(by: { $0.key < $1.key }) {
            if let other = inverse[service] {
                throw Failure(description: "both \(other) and \(embedded) map to \(service): a migration out cannot tell which group "
                              + "an item goes back to; name one pair per program")
            }
            inverse[service] = embedded
        }
        return inverse
    }

    /// The sentence listing `groups` with the fix.
    package static func unmappedSentence(_ groups: [String], direction: String) -> String {
        "\(groups.count) access group(s) name no program: \(groups.joined(separator: ", ")). Nothing was moved. Say which program each "
            + "belongs to with --group NAME=PROGRAM (PROGRAM: its executable's absolute path, or a group name a grant in "
            + "/etc/keychainkit/grants.d hands out) \(direction)"
    }
}
