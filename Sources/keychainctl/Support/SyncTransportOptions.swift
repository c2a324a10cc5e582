#if KEYCHAINKIT_REIMPLEMENTED
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainSync

/// Which kind of place holds a circle's records.
enum SyncTransportKind: String, ExpressibleByArgument, CaseIterable, Codable, Sendable {
    case etcd, git, folder
}

/// Where a circle's records live: what `sync create` and `sync join` are told, what the circle
/// keeps, and what `sync run` and `sync status` use (or are told again, to move a circle).
enum SyncTransportLocation: Equatable, Codable, Sendable, CustomStringConvertible {
    /// An etcd cluster: its client URLs and how to reach them (TLS, client certificate, user).
    case etcd(SyncEtcdSettings)
    /// A branch of a git remote (any URL git accepts).
    case git(remote: String, branch: String)
    /// A shared folder (absolute path).
    case folder(path: String)

    /// The default branch of a git remote.
    static let defaultBranch = "keychainkit"

    /// For `sync status`: the kind and where, without credentials in a git URL.
    var description: String {
        switch self {
        case .etcd(let settings): return settings.description
        case .git(let remote, let branch):
            return "git \(GitTransport.redacted(remote: remote)) branch \(branch)"
        case .folder(let path): return "folder \(path)"
        }
    }

    /// The text a circle keeps for its location: `git <branch> <url>`, `folder <path>`, or
    /// `etcd {json}` (``SyncEtcdSettings/stored``; circles made before TLS keep a bare endpoint list).
    var stored: String {
        switch self {
        case .etcd(let settings): return settings.stored
        case .git(let remote, let branch): return "git \(branch) \(remote)"
        case .folder(let path): return "folder \(path)"
        }
    }

    /// The location a circle kept (see ``stored``).
    init(stored: String) throws {
        let parts = stored.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        if parts.count == 3, parts[0] == "git" {
            self = .git(remote: parts[2], branch: parts[1])
        } else if parts.count >= 2, parts[0] == "folder" {
            self = .folder(path: String(stored.dropFirst("folder ".count)))
        } else {
            self = .etcd(try SyncEtcdSettings(stored: stored))
        }
    }

    /// The folder beside a keychain file where its sync state lives (`login.keychain-db.sync`):
    /// the git transport's private clone goes in `git/` there.
    static func sideDirectory(forKeychain keychainPath: String) -> String {
        keychainPath + ".sync"
    }

    /// The transport for this location. `creating` is true for `sync create` (a shared folder and
    /// its marker are made); `etcd` builds the etcd transport (with the TLS and authentication
    /// options the etcd commands take).
    func makeTransport(keychainPath: String, creating: Bool,
                       etcd: (SyncEtcdSettings) throws -> any SyncTransport) throws -> any SyncTransport {
        switch self {
        case .etcd(let settings):
            return try etcd(settings)
        case .git(let remote, let branch):
            return try GitTransport(remote: remote, repositoryPath: Self.sideDirectory(forKeychain: keychainPath) + "/git",
                                    branch: branch)
        case .folder(let path):
            return try FolderTransport(folder: path, create: creating)
        }
    }
}

/// `--transport etcd|git|folder` and its location (`--endpoints`, `--remote [--branch]`,
/// `--folder`), for `sync create`, `join`, `run` and `status`. On `run` and `status` they are
/// optional: the circle's own location is used unless they are given.
struct SyncTransportOptions: ParsableArguments {
    @Option(help: "Where the circle's records live: etcd (a cluster you run), git (a remote you can push to) or folder (a folder Syncthing, a cloud drive or NFS shares). Default: etcd with --endpoints, git with --remote, folder with --folder.")
    var transport: SyncTransportKind?

    @Option(help: "etcd: client URLs, comma-separated (https://host:2379,…).")
    var endpoints: String?

    @Option(help: ArgumentHelp("git: the remote's URL, any form git accepts (ssh://host/path.git, host:path.git, https://…, file:///…). Your ssh keys, known_hosts and credential helpers apply; prefer them to a token in the URL.", valueName: "url"))
    var remote: String?

    @Option(help: "git: the branch that holds the records.")
    var branch: String = SyncTransportLocation.defaultBranch

    @Option(help: ArgumentHelp("folder: the shared folder's path (a folder of its own, inside the synced one).", valueName: "path"))
    var folder: String?

    @OptionGroup var connection: SyncConnectionOptions

    /// The location given, or nil when none was (run and status then use the circle's own).
    func location() throws -> SyncTransportLocation? {
        let given = [endpoints != nil ? SyncTransportKind.etcd : nil, remote != nil ? .git : nil, folder != nil ? .folder : nil].compactMap { $0 }
        guard given.count <= 1 else {
            throw ValidationError("give one location: --endpoints (etcd), --remote (git) or --folder (folder), not several")
        }
        guard let kind = transport ?? given.first else {
            if connection.namesSettings {
                throw ValidationError("--cacert, --cert, --key, --user and --insecure go with --endpoints (the circle keeps them from create or join; give --endpoints to change them)")
            }
            return nil
        }
        if let other = given.first, other != kind {
            throw ValidationError("--transport \(kind.rawValue) takes \(Self.locationOption(kind)), not \(Self.locationOption(other))")
        }
        switch kind {
        case .etcd:
            guard let endpoints, !endpoints.isEmpty else { throw ValidationError("--transport etcd needs --endpoints https://host:2379,…") }
            return .etcd(connection.settings(endpoints: endpoints.split(separator: ",").map(String.init)))
        case .git:
            guard let remote, !remote.isEmpty else { throw ValidationError("--transport git needs --remote URL (for example ssh://host/~/keychain.git)") }
            return .git(remote: remote, branch: branch)
        case .folder:
            guard let folder, !folder.isEmpty else { throw ValidationError("--transport folder needs --folder PATH (for example ~/Sync/keychain)") }
            let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
            return .folder(path: KeychainLocationPath.standardized(absolute))
        }
    }

    /// The location `create` and `join` must be given.
    func requiredLocation() throws -> SyncTransportLocation {
        guard let location = try location() else {
            throw ValidationError("say where the circle's records live: --endpoints URL,… (etcd), --remote URL (git) or --folder PATH (a shared folder)")
        }
        return location
    }

    private static func locationOption(_ kind: SyncTransportKind) -> String {
        switch kind {
        case .etcd: return "--endpoints"
        case .git: return "--remote"
        case .folder: return "--folder"
        }
    }
}
#endif
