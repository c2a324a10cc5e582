import Foundation
import KeychainEngine
import KeychainServiceCore
import KeychainVocabulary
import Testing

/// How the service turns a caller's verified identity, the owner's grants and the caller's
/// claims into access groups.
@Suite("Keychain service entitlements")
struct EntitlementTests {
    static let installed = PeerIdentity(uid: 1000, gid: 1000, pid: 42, executablePath: "/usr/bin/tool", device: 1, inode: 2,
                                        executableSHA256: String(repeating: "a", count: 64), executableWritableByCaller: false, tracerPID: 0)

    @Test("a program's default application identifier is its path; a user-writable one also carries its digest")
    func defaultIdentifier() throws {
        #expect(CallerEntitlements(peer: Self.installed, grants: []).applicationIdentifier == "/usr/bin/tool")
        var writable = Self.installed
        writable.executableWritableByCaller = true
        #expect(CallerEntitlements(peer: writable, grants: []).applicationIdentifier == "/usr/bin/tool#sha256:" + String(repeating: "a", count: 64))
        let groups = try CallerEntitlements(peer: Self.installed, grants: []).accessGroups(claimedApplicationIdentifier: nil, claimedGroups: [])
        #expect(groups.groups == ["/usr/bin/tool"])
    }

    @Test("a claim of an ungranted group or identifier is errSecMissingEntitlement")
    func ungrantedClaims() {
        let entitlements = CallerEntitlements(peer: Self.installed, grants: [])
        for (identifier, groups) in [(String?.none, ["other"]), ("com.victim.app", [])] {
            do {
                _ = try entitlements.accessGroups(claimedApplicationIdentifier: identifier, claimedGroups: groups)
                Issue.record("an ungranted claim was accepted: \(identifier ?? "") \(groups)")
            } catch {
                #expect(error.osStatus == -34018)
            }
        }
    }

    @Test("a grant applies only to that executable, unchanged by its user, with that digest")
    func grants() throws {
        let grant = try ApplicationGrant.parse("""
            # a shared group
            executable = /usr/bin/tool
            sha256 = \(String(repeating: "A", count: 64))
            application-identifier = com.example.tool
            access-groups = com.example.shared, com.example.more
            """, name: "tool.grant")
        let entitlements = CallerEntitlements(peer: Self.installed, grants: [grant])
        #expect(entitlements.applicationIdentifier == "com.example.tool")
        let groups = try entitlements.accessGroups(claimedApplicationIdentifier: "com.example.tool", claimedGroups: ["com.example.shared"])
        #expect(groups.groups == ["com.example.shared", "com.example.tool"])
        var otherDigest = Self.installed
        otherDigest.executableSHA256 = String(repeating: "b", count: 64)
        #expect(CallerEntitlements(peer: otherDigest, grants: [grant]).applicationIdentifier == "/usr/bin/tool")
        var writable = Self.installed
        writable.executableWritableByCaller = true
        #expect(!grant.applies(to: writable))
        var traced = Self.installed
        traced.tracerPID = 7
        #expect(!grant.applies(to: traced))
        for bad in ["executable = relative", "executable = /x\naccess-groups = *", "executable = /x\nsha256 = 12", "nonsense", "executable = /x\nexecutable = /y"] {
            #expect(throws: ApplicationGrant.Refusal.self) { try ApplicationGrant.parse(bad, name: "bad.grant") }
        }
    }

    @Test("a grant bound to a systemd unit applies only inside that system unit, never a user manager's unit of the same name")
    func unitGrants() throws {
        let grant = try ApplicationGrant.parse("executable = /usr/bin/tool\naccess-groups = com.example.backup\nsystemd-unit = backup.service\n",
                                               name: "unit.grant")
        #expect(!grant.applies(to: Self.installed))
        var inSystemUnit = Self.installed
        inSystemUnit.origin = ProcessOrigin(systemdUnit: "backup.service", systemdUnitIsSystem: true)
        #expect(grant.applies(to: inSystemUnit))
        var inUserUnit = Self.installed
        inUserUnit.origin = ProcessOrigin(systemdUnit: "backup.service", systemdUnitIsSystem: false)
        #expect(!grant.applies(to: inUserUnit))
    }

    @Test("code the user could choose (a preloaded library, a non-isolated script) makes a caller unverifiable: no grant, its own digest-bound identifier")
    func untrustedCode() throws {
        let grant = try ApplicationGrant.parse("executable = /usr/bin/tool\naccess-groups = com.example.shared\n", name: "tool.grant")
        var preloaded = Self.installed
        preloaded.untrustedCode = "mapped code: /home/a/evil.so is writable by uid 1000"
        #expect(!preloaded.isVerified && !grant.applies(to: preloaded))
        let entitlements = CallerEntitlements(peer: preloaded, grants: [grant])
        #expect(entitlements.applicationIdentifier == "/usr/bin/tool#sha256:" + String(repeating: "a", count: 64))
        #expect(entitlements.grantedGroups.isEmpty)
    }
}
