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

/// What `keychainctl service install` puts on a system, and what `uninstall` takes away again:
/// the unit files, a `sysusers.d` entry, the grants directory, the system user and the state
/// directory (the last two only on the live system, not into a staging root). Each file made is
/// listed in a manifest (`etc/keychainkit/installed`), so uninstall removes exactly those, and the
/// user only when install made it. The state directory — everyone's keychains — stays unless purged.
package struct ServiceInstallation: Sendable {
    /// Why a step failed; what was done before it is in the manifest.
    package struct Failure: Error, CustomStringConvertible {
        /// What failed and how to fix it.
        package let description: String
    }

    /// The staging root ("/" for the live system).
    package var root: String
    /// The units to write.
    package var units: ServiceUnits

    /// An installation of `units` under `root`.
    package init(root: String, units: ServiceUnits) {
        self.root = root
        self.units = units
    }

    private var isLiveSystem: Bool { root == "/" }
    private func staged(_ path: String) -> String { isLiveSystem ? path : root + path }
    private var manifestPath: String { staged("/etc/keychainkit/installed") }
    /// The unit directory of the system administrator (packages use /usr/lib/systemd/system).
    package var unitDirectory: String { staged("/etc/systemd/system") }

    /// Writes everything; returns what it did, one line each, for the command's output.
    package func install() throws(Failure) -> [String] {
        var done: [String] = []
        var manifest: [String] = []
        try makeDirectory(staged("/etc/keychainkit"), mode: 0o755)
        try makeDirectory(staged(units.grantsDirectory), mode: 0o755)
        try makeDirectory(unitDirectory, mode: 0o755)
        try makeDirectory(staged("/usr/lib/sysusers.d"), mode: 0o755)
        for (path, text) in [(unitDirectory + "/\(units.name).socket", units.socketUnit),
                             (unitDirectory + "/\(units.name).service", units.serviceUnit),
                             (staged("/usr/lib/sysusers.d/\(units.name).conf"), units.sysusers)] {
            try write(text, to: path)
            manifest.append("file " + path)
            done.append("wrote \(path)")
        }
        if isLiveSystem {
            if getpwnam(units.user) == nil {
                try run(["/usr/sbin/useradd", "--system", "--no-create-home", "--home-dir", units.stateDirectory,
                         "--shell", "/usr/sbin/nologin", units.user])
                manifest.append("user " + units.user)
                done.append("created the system user \(units.user)")
            }
            guard let account = getpwnam(units.user) else { throw Failure(description: "the user \(units.user) does not exist after useradd") }
            do {
                try ServicePrivileges.prepareStateDirectory(units.stateDirectory, uid: account.pointee.pw_uid, gid: account.pointee.pw_gid)
            } catch {
                throw Failure(description: error.description)
            }
            done.append("state directory \(units.stateDirectory) (mode 0700, \(units.user))")
        }
        try write(manifest.joined(separator: "\n") + "\n", to: manifestPath)
        return done
    }

    /// Removes what ``install()`` made (from its manifest); the state directory too when `purge`.
    package func uninstall(purge: Bool) throws(Failure) -> [String] {
        let manifest: String
        do { manifest = try String(contentsOfFile: manifestPath, encoding: .utf8) } catch {
            throw Failure(description: "\(manifestPath) is missing: nothing installed by keychainctl service install here")
        }
        var done: [String] = []
        for line in manifest.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "file":
                guard parts[1].hasPrefix(isLiveSystem ? "/" : root + "/") else { continue }  // only inside the root it was made in
                if unlink(parts[1]) == 0 { done.append("removed \(parts[1])") }
                else if errno != ENOENT { throw Failure(description: "cannot remove \(parts[1]): \(String(cString: strerror(errno)))") }
            case "user" where isLiveSystem:
                try run(["/usr/sbin/userdel", parts[1]])
                done.append("removed the system user \(parts[1])")
            default:
                continue
            }
        }
        unlink(manifestPath)
        for directory in [staged(units.grantsDirectory), staged("/etc/keychainkit")] where rmdir(directory) == 0 {
            done.append("removed \(directory)")
        }
        if purge {
            let state = staged(units.stateDirectory)
            if FileManager.default.fileExists(atPath: state) {
                do { try FileManager.default.removeItem(atPath: state) } catch {
                    throw Failure(description: "cannot remove \(state): \(SystemErrorText.of(error))")
                }
                done.append("removed \(state) and every keychain in it")
            }
        } else if FileManager.default.fileExists(atPath: staged(units.stateDirectory)) {
            done.append("kept \(staged(units.stateDirectory)) (the users' keychains; --purge removes it)")
        }
        return done
    }

    private func makeDirectory(_ path: String, mode: Int) throws(Failure) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
        } catch {
            throw Failure(description: "cannot create \(path): \(SystemErrorText.of(error))")
        }
    }

    private func write(_ text: String, to path: String) throws(Failure) {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644]) else {
            throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    private func run(_ arguments: [String]) throws(Failure) {
        let child: pid_t
        do {
            child = try Subprocess.spawn(executable: arguments[0], arguments: arguments, environment: nil,
                                         stdin: STDIN_FILENO, stdout: STDOUT_FILENO, stderr: STDERR_FILENO)
        } catch { throw Failure(description: "\(error)") }  // "cannot start <program>: <reason>"
        let status = Subprocess.waitForExit(child)
        guard status == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) failed with status \(status)")
        }
    }
}
