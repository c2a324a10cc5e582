#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The grants users made themselves (`keychainctl app grant`), kept by the service in each user's
/// directory of its state directory (`STATE/<uid>/grants.json`, mode 0600, owned by the service's
/// user), so the user can neither write nor replace them except through the service, which asks
/// for the keychain password first. They apply as the machine owner's grants do — to a verified
/// program only, at that path and with that digest when one is pinned — and only to that user's
/// own calls: another uid never sees them.
final class UserGrants: @unchecked Sendable {
    private let stateDirectory: String
    private let lock = ThreadLock()
    private var loaded: [UInt32: [ApplicationGrant]] = [:]

    /// Grants under `stateDirectory` (the service's, which it alone may write).
    init(stateDirectory: String) {
        self.stateDirectory = stateDirectory
    }

    /// Why a grant could not be read or stored.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The grants of user `uid`, in the order made. An unreadable file is an error (the caller
    /// then gets none of them and the log says why), never silently empty.
    func grants(of uid: UInt32) throws(Failure) -> [ApplicationGrant] {
        lock.lock()
        defer { lock.unlock() }
        return try loadedGrants(uid)
    }

    /// Records `grant` for `uid` (replacing the user's earlier grant to the same program) and
    /// writes the file before it returns: a grant reported made is on disk.
    func add(_ grant: ApplicationGrant, for uid: UInt32) throws(Failure) {
        lock.lock()
        defer { lock.unlock() }
        var grants = try loadedGrants(uid).filter { $0.executablePath != grant.executablePath || $0.sha256 != grant.sha256 }
        grants.append(grant)
        try store(grants, for: uid)
        loaded[uid] = grants
    }

    /// Removes every grant of `uid` to `executablePath`; how many there were.
    func revoke(executablePath: String, for uid: UInt32) throws(Failure) -> Int {
        lock.lock()
        defer { lock.unlock() }
        let grants = try loadedGrants(uid)
        let kept = grants.filter { $0.executablePath != executablePath }
        guard kept.count != grants.count else { return 0 }
        try store(kept, for: uid)
        loaded[uid] = kept
        return grants.count - kept.count
    }

    private func path(of uid: UInt32) -> String { stateDirectory + "/\(uid)/grants.json" }

    private func loadedGrants(_ uid: UInt32) throws(Failure) -> [ApplicationGrant] {
        if let known = loaded[uid] { return known }
        let file = path(of: uid)
        guard FileManager.default.fileExists(atPath: file) else {
            loaded[uid] = []
            return []
        }
        let stored: [StoredGrant]
        do { stored = try JSONDecoder().decode([StoredGrant].self, from: Data(contentsOf: URL(fileURLWithPath: file))) } catch {
            throw Failure(description: "cannot read \(file): \(SystemErrorText.of(error))")
        }
        let grants = stored.map(\.grant)
        loaded[uid] = grants
        return grants
    }

    /// Writes `grants` whole to a temporary file beside the real one, flushes it and renames it
    /// over the real one, so a crash leaves the old list or the new one, never half of either.
    private func store(_ grants: [ApplicationGrant], for uid: UInt32) throws(Failure) {
        let bytes: Data
        do { bytes = try JSONEncoder().encode(grants.map(StoredGrant.init)) } catch {
            throw Failure(description: "cannot encode the grants: \(SystemErrorText.of(error))")
        }
        do {
            try StateFileReplacement.replace(path(of: uid), in: stateDirectory + "/\(uid)", with: bytes)
        } catch {
            throw Failure(description: "the grants were not changed: \(error)")
        }
    }

    /// A grant as the file holds it.
    private struct StoredGrant: Codable {
        var executable: String
        var sha256: String?
        var applicationIdentifier: String?
        var accessGroups: [String]

        init(_ grant: ApplicationGrant) {
            executable = grant.executablePath
            sha256 = grant.sha256
            applicationIdentifier = grant.applicationIdentifier
            accessGroups = grant.accessGroups
        }

        var grant: ApplicationGrant {
            ApplicationGrant(executablePath: executable, sha256: sha256, applicationIdentifier: applicationIdentifier, accessGroups: accessGroups)
        }
    }
}
