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

/// What the machine's owner granted one program: a root-owned file in the grants directory
/// (`/etc/keychainkit/grants.d` by default), one `key = value` per line, `#` for comments:
///
/// ```
/// executable = /usr/bin/backup-tool
/// sha256 = 3f7a…            # optional: only this exact build
/// application-identifier = com.example.backup   # optional: else the executable's path
/// access-groups = com.example.shared, com.example.backup.keys
/// systemd-unit = backup.service                 # optional: only inside this system unit
/// ```
///
/// A grant applies only to a caller running exactly that executable, whose user cannot change
/// it (``PeerIdentity/isVerified``) and, when `sha256` is given, whose content has that digest;
/// with `systemd-unit`, only when it runs in that system unit (a unit of the user's own service
/// manager never counts: the user can move processes into those).
package struct ApplicationGrant: Sendable, Equatable {
    /// The executable's absolute path.
    package var executablePath: String
    /// The content's SHA-256 (lowercase hex), or nil for any content at that path.
    package var sha256: String?
    /// The application identifier granted, or nil (the executable's path).
    package var applicationIdentifier: String?
    /// The access groups granted beyond the application identifier.
    package var accessGroups: [String]
    /// The system unit the program must run in, or nil for any.
    package var systemdUnit: String? = nil

    /// Whether the grant applies to `peer`.
    package func applies(to peer: PeerIdentity) -> Bool {
        peer.isVerified && peer.executablePath == executablePath && (sha256 == nil || sha256 == peer.executableSHA256)
            && (systemdUnit == nil || peer.origin.systemdUnitIsSystem && peer.origin.systemdUnit == systemdUnit)
    }

    /// Why a grant file was refused.
    package struct Refusal: Error, CustomStringConvertible {
        /// The file and the problem.
        package let description: String
    }

    /// Parses a grant file's text (`name` for messages).
    package static func parse(_ text: String, name: String) throws(Refusal) -> ApplicationGrant {
        var values: [String: String] = [:]
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingWhitespace()
            if line.isEmpty { continue }
            guard let equals = line.firstIndex(of: "=") else { throw Refusal(description: "\(name): '\(line)' is not key = value") }
            let key = line[..<equals].trimmingWhitespace()
            let value = line[line.index(after: equals)...].trimmingWhitespace()
            guard ["executable", "sha256", "application-identifier", "access-groups", "systemd-unit"].contains(key) else {
                throw Refusal(description: "\(name): unknown key \(key)")
            }
            guard values.updateValue(value, forKey: key) == nil else { throw Refusal(description: "\(name): \(key) given twice") }
        }
        guard let executable = values["executable"], executable.hasPrefix("/") else {
            throw Refusal(description: "\(name): executable = an absolute path is required")
        }
        let digest = values["sha256"]?.lowercased()
        if let digest, digest.count != 64 || !digest.allSatisfy(\.isHexDigit) {
            throw Refusal(description: "\(name): sha256 must be 64 hex digits")
        }
        let groups = (values["access-groups"] ?? "").split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        if groups.contains("*") { throw Refusal(description: "\(name): the access group * (every group) cannot be granted") }
        return ApplicationGrant(executablePath: executable, sha256: digest, applicationIdentifier: values["application-identifier"].flatMap { $0.isEmpty ? nil : $0 },
                                accessGroups: groups, systemdUnit: values["systemd-unit"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The grants in `directory` (`*.grant` files). The directory and each file must be owned by
    /// root and writable by nobody else, and a file must not be a symlink: anything else is
    /// refused (reported through `refused`), so a user cannot grant themselves anything.
    /// A missing directory holds no grants.
    package static func load(from directory: String, refused: (Refusal) -> Void) -> [ApplicationGrant] {
        var info = stat()
        guard lstat(directory, &info) == 0 else { return [] }
        if let problem = ownershipProblem(info) {
            refused(Refusal(description: "\(directory): \(problem); no grant in it is used"))
            return []
        }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".grant") }.sorted() } catch {
            refused(Refusal(description: "\(directory): cannot list it (\(SystemErrorText.of(error)))"))
            return []
        }
        var grants: [ApplicationGrant] = []
        for name in names {
            let path = directory + "/" + name
            var fileInfo = stat()
            guard lstat(path, &fileInfo) == 0, fileInfo.st_mode & S_IFMT == S_IFREG else {
                refused(Refusal(description: "\(path): not a regular file"))
                continue
            }
            if let problem = ownershipProblem(fileInfo) {
                refused(Refusal(description: "\(path): \(problem)"))
                continue
            }
            do {
                grants.append(try parse(String(contentsOfFile: path, encoding: .utf8), name: path))
            } catch let refusal as Refusal {
                refused(refusal)
            } catch {
                refused(Refusal(description: "\(path): cannot read it (\(SystemErrorText.of(error)))"))
            }
        }
        return grants
    }

    private static func ownershipProblem(_ info: stat) -> String? {
        if info.st_uid != 0 { return "owned by uid \(info.st_uid), not root" }
        if info.st_mode & 0o022 != 0 { return "writable by its group or others" }
        return nil
    }
}
