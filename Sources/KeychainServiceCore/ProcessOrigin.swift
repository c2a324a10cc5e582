#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainPrimitives

/// Where a caller runs, beyond its executable: its systemd unit (from `/proc/<pid>/cgroup`) and,
/// for a Flatpak app, the app id its sandbox names (`/.flatpak-info` in its root).
///
/// Only a **system** unit is evidence: its cgroup (under `system.slice`, outside
/// `user.slice/user-<uid>.slice/user@<uid>.service`) is root's, and a user cannot move a process
/// into it. Units of the user's own service manager live in a subtree delegated to the user,
/// who can move any of their processes into any of them, so they are reported but never trusted.
///
/// The Flatpak id is never trusted for entitlements: Flatpak writes `.flatpak-info` as the user,
/// and any same-uid program can build a sandbox of its own (an unprivileged user and mount
/// namespace, as `bwrap` does) that shows a `.flatpak-info` of its choosing — even a root-owned
/// one, by bind-mounting a system Flatpak's `metadata` file, which has the same `[Application]
/// name=` form. A root-owned file in a mount namespace other than the host's therefore proves
/// nothing either; the id is shown (log, consent prompt) as the sandbox's claim.
package struct ProcessOrigin: Sendable, Equatable {
    /// The `.service` or `.scope` unit the process is in, or nil.
    package var systemdUnit: String?
    /// Whether ``systemdUnit`` is a system unit (root's cgroup), not one of the user's manager.
    package var systemdUnitIsSystem: Bool
    /// The Flatpak app id the process's sandbox names (a claim, never an entitlement), or nil.
    package var flatpakApplication: String?

    package init(systemdUnit: String? = nil, systemdUnitIsSystem: Bool = false, flatpakApplication: String? = nil) {
        self.systemdUnit = systemdUnit
        self.systemdUnitIsSystem = systemdUnitIsSystem
        self.flatpakApplication = flatpakApplication
    }

    /// The unit named by the text of a `/proc/<pid>/cgroup` file: the unified hierarchy's line
    /// (`0::/system.slice/sshd.service`), else the v1 `name=systemd` line. Returns the unit (see
    /// below) and whether the path is outside every user's manager.
    static func systemdUnit(inCgroup text: String) -> (unit: String, isSystem: Bool)? {
        var unified: Substring?
        var named: Substring?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty { unified = fields[2] }
            if fields[1] == "name=systemd" { named = fields[2] }
        }
        guard let path = [unified, named].compactMap({ $0 }).first(where: { $0 != "/" }) else { return nil }
        let components = path.split(separator: "/")
        let isUnit = { (component: Substring) in component.hasSuffix(".service") || component.hasSuffix(".scope") }
        // In a user's slice the innermost unit is the informative one (it is never trusted). In a
        // system unit, the outermost: cgroups below a unit are the unit's own (a unit with
        // `Delegate=yes` may let its user name them anything, "other.service" included).
        let isSystem = components.first != "user.slice"
        guard let unit = isSystem ? components.first(where: isUnit) : components.last(where: isUnit) else { return nil }
        return (String(unit), isSystem)
    }

    /// The app id in the text of a `.flatpak-info` file (`[Application]` then `name=`).
    static func flatpakApplication(inInfo text: String) -> String? {
        var inApplication = false
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.trimmingWhitespace()
            if line.hasPrefix("[") { inApplication = line == "[Application]"; continue }
            if inApplication, line.hasPrefix("name=") {
                let name = line.dropFirst(5).trimmingWhitespace()
                return name.isEmpty ? nil : name
            }
        }
        return nil
    }

    /// The origin of process `pid`. Every process has a cgroup file; a `.flatpak-info` is read
    /// only when one exists in the process's root.
    static func read(pid: Int32) throws(PeerIdentification.Failure) -> ProcessOrigin {
        var origin = ProcessOrigin()
        let cgroup = try ProcessFile.text("/proc/\(pid)/cgroup")
        if let unit = systemdUnit(inCgroup: cgroup) {
            origin.systemdUnit = unit.unit
            origin.systemdUnitIsSystem = unit.isSystem
        }
        let infoPath = "/proc/\(pid)/root/.flatpak-info"
        var info = stat()
        if stat(infoPath, &info) == 0 {
            do { origin.flatpakApplication = flatpakApplication(inInfo: try String(contentsOfFile: infoPath, encoding: .utf8)) } catch {
                throw PeerIdentification.Failure(description: "cannot read \(infoPath): \(SystemErrorText.of(error))")
            }
        }
        return origin
    }
}
