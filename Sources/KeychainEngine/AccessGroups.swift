#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// The keychain access groups a caller is "entitled" to, in order: on Linux they come from
/// configuration instead of code-signing entitlements, with Apple's rules unchanged — the first
/// is the default group for adds, queries without a group search all of them, any other explicit
/// group is `errSecMissingEntitlement`. A `*` entry grants every group (used by tools such as
/// keychainctl). On Linux this is an API contract, not a security boundary: any process of the
/// same user can claim any group.
package struct AccessGroups: Sendable, Equatable {
    /// The groups, in order.
    package let groups: [String]

    /// Creates a group list; surrounding whitespace is trimmed and empty entries are dropped.
    package init(_ groups: [String]) {
        self.groups = groups.map(Self.trimmingWhitespace).filter { !$0.isEmpty }
    }

    /// `text` without leading and trailing whitespace as `CharacterSet.whitespaces` has it
    /// (general category Zs, the tab and, in swift-corelibs-foundation, U+200B), checked per
    /// scalar: building Foundation's character set cost about 0.8 million instructions at every
    /// process's first keychain call.
    private static func trimmingWhitespace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }),
              let last = scalars.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// Whether `scalar` is in `CharacterSet.whitespaces` (see ``trimmingWhitespace(_:)``).
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }

    /// The groups a process is entitled to: `listed` (`KEYCHAINKIT_ACCESS_GROUPS`) in order, then
    /// `applicationIdentifier` (`KEYCHAINKIT_APP_ID`), else `executableName`, unless listed already.
    /// (``KeychainConfiguration`` reads the variables.)
    package static func entitled(listed: [String], applicationIdentifier: String?, executableName: String) -> AccessGroups {
        let appID = applicationIdentifier ?? executableName
        var groups = AccessGroups(listed).groups
        if !groups.contains(appID) { groups.append(appID) }
        return AccessGroups(groups)
    }

    /// The executable's file name (the last component of `argv[0]`), what `ProcessInfo.processName`
    /// gives, without building `ProcessInfo` (it reads the whole environment and arguments: a
    /// noticeable share of a command-line tool's start).
    static var executableName: String {
        guard let first = CommandLine.arguments.first, let name = first.split(separator: "/").last else {
            return ProcessInfo.processInfo.processName  // no argv[0]: Foundation's own answer
        }
        return String(name)
    }

    /// `kSecAttrAccessGroupToken`: items of hardware tokens, which callers may read but never
    /// write — Apple removes it from the writable list for add, update and delete.
    static let tokenGroup = "com.apple.token"

    /// Whether every group is granted.
    var isUnrestricted: Bool { groups.contains("*") }

    /// The groups add, update and delete may touch: every group but the read-only token group.
    var writableGroups: [String] { groups.filter { $0 != Self.tokenGroup } }

    /// The group an add without `kSecAttrAccessGroup` goes to: the first writable one.
    func defaultGroup() throws(KeychainStoreError) -> String {
        guard let first = writableGroups.first(where: { $0 != "*" }) else { throw KeychainStoreError(status: .missingEntitlement) }
        return first
    }

    /// Checks that the caller has some group at all.
    func requireAny() throws(KeychainStoreError) {
        if groups.isEmpty { throw KeychainStoreError(status: .missingEntitlement) }
    }

    /// Checks an explicitly named group.
    func require(_ group: String) throws(KeychainStoreError) {
        if !isUnrestricted && !groups.contains(group) { throw KeychainStoreError(status: .missingEntitlement) }
    }

    /// Checks an explicitly named group for a write (add, update, delete): it must be granted
    /// and must not be the read-only token group.
    func requireWritable(_ group: String) throws(KeychainStoreError) {
        if group == Self.tokenGroup { throw KeychainStoreError(status: .missingEntitlement) }
        try require(group)
    }
}
