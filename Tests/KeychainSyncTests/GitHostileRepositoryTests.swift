import Foundation
import KeychainSync
import RequiredToolSupport
import Testing

/// A bare repository whose owner is not the syncing user's to trust (it sits on a synced or
/// shared folder that others write to): every hook git knows and every configuration setting
/// that names a command tries to write a marker file. The git transport pushes and fetches
/// through it over file://, a plain path, git daemon and ssh; no marker may appear from a
/// process this machine's sync started.
@Suite("git transport against a repository that tries to run its own code", .serialized, .integration, .tags(.external, .git))
struct GitHostileRepositoryTests: TransportTestCase {
    /// Hooks receive-pack, upload-pack and their helpers could run.
    static let hooks = ["pre-receive", "update", "post-receive", "post-update", "reference-transaction", "push-to-checkout",
                        "proc-receive", "pre-auto-gc", "post-checkout", "post-merge", "pre-push", "fsmonitor-watchman"]

    /// A bare repository at `scratch/remote.git` armed with hooks and commands that each touch
    /// `scratch/markers/<name>`.
    static func armedRepository(in scratch: ScratchFolder) throws -> GitRemote {
        let remote = try GitRemote()
        let markers = scratch.path + "/markers"
        try FileManager.default.createDirectory(atPath: markers, withIntermediateDirectories: true)
        let repository = remote.repository
        for hook in hooks {
            let path = repository + "/hooks/" + hook
            try "#!/bin/sh\ntouch '\(markers)/hook-\(hook)'\nenv > '\(markers)/env-\(hook)'\ncat >/dev/null\nexit 0\n"
                .write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
        // An alternate object store, so that receive-pack asks core.alternateRefsCommand for its refs.
        let alternate = scratch.path + "/alternate.git"
        try Shell.run(["git", "init", "--quiet", "--bare", alternate])
        try (alternate + "/objects\n").write(toFile: repository + "/objects/info/alternates", atomically: true, encoding: .utf8)
        let commands: [(String, String)] = [
            ("core.alternateRefsCommand", "touch '\(markers)/alternateRefsCommand'; true"),
            ("core.fsmonitor", "touch '\(markers)/fsmonitor'; true"),
            ("core.sshCommand", "touch '\(markers)/sshCommand'; ssh"),
            ("core.gitProxy", "touch '\(markers)/gitProxy'; true"),
            ("core.pager", "touch '\(markers)/pager'; cat"),
            ("uploadpack.packObjectsHook", "touch '\(markers)/packObjectsHook'; git"),
            ("receive.autogc", "true"),
            ("gc.auto", "1"),
            ("gc.autoDetach", "false"),
            ("filter.armed.clean", "touch '\(markers)/filter-clean'; cat"),
            ("filter.armed.smudge", "touch '\(markers)/filter-smudge'; cat"),
            ("filter.armed.process", "touch '\(markers)/filter-process'"),
            ("diff.armed.textconv", "touch '\(markers)/textconv'; cat"),
        ]
        for (key, value) in commands { try Shell.git(repository, ["config", key, value]) }
        try "* filter=armed diff=armed\n".write(toFile: repository + "/info/attributes", atomically: true, encoding: .utf8)
        return remote
    }

    static func markers(in scratch: ScratchFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/markers").sorted()
    }

    /// Two devices create, push to and fetch from `url`, with enough pushes for receive-pack's gc.
    static func exercise(_ url: String, scratch: ScratchFolder, environment: [String: String] = [:]) throws {
        let a = try GitTransport(remote: url, repositoryPath: scratch.path + "/device-a/sync.git", networkTimeout: .seconds(60),
                                 environment: environment)
        let b = try GitTransport(remote: url, repositoryPath: scratch.path + "/device-b/sync.git", networkTimeout: .seconds(60),
                                 environment: environment)
        try a.refresh()
        for round in 0..<3 {
            try a.publish([Self.write("items/a\(round)", "from a \(round)")])
            try b.refresh()
            try b.publish([Self.write("items/b\(round)", "from b \(round)")])
            try a.refresh()
        }
        #expect(try a.list(prefix: "items/").count == 6)
        #expect(try b.list(prefix: "items/").count == 6)
    }

    @Test("over file:// and a plain path the repository's hooks and commands never run, and get none of our settings",
          arguments: ["file", "path"])
    func localRemote(_ form: String) throws {
        let scratch = try ScratchFolder("git-armed")
        let remote = try Self.armedRepository(in: scratch)
        try Self.exercise(form == "file" ? remote.fileURL : remote.repository, scratch: scratch)
        #expect(try Self.markers(in: scratch) == [])
    }

    @Test("over git daemon nothing runs on this side, and the served repository's hooks are off when the daemon's git is ours")
    func gitDaemon() throws {
        let scratch = try ScratchFolder("git-armed-daemon")
        let remote = try Self.armedRepository(in: scratch)
        let daemon = try GitDaemon(serving: remote.scratch.path, log: scratch.path + "/daemon.log")
        try Self.exercise(daemon.url("remote.git"), scratch: scratch)
        // git daemon starts receive-pack itself, under its own account and configuration: what
        // runs there is the daemon's owner's choice. On this side nothing of the repository ran.
        let onThisSide = try Self.markers(in: scratch).filter { !$0.hasPrefix("hook-") && !$0.hasPrefix("env-") && $0 != "alternateRefsCommand" }
        #expect(onThisSide == [])
        withExtendedLifetime(daemon) {}
    }

    @Test("over ssh nothing of the repository runs on this side")
    func ssh() throws {
        let scratch = try ScratchFolder("git-armed-ssh")
        let remote = try Self.armedRepository(in: scratch)
        let server = try SSHServer(in: remote.scratch.path)
        try Self.exercise(server.url(remote.repository), scratch: scratch, environment: server.environment())
        let onThisSide = try Self.markers(in: scratch).filter { !$0.hasPrefix("hook-") && !$0.hasPrefix("env-") && $0 != "alternateRefsCommand" }
        #expect(onThisSide == [])
        withExtendedLifetime(server) {}
    }
}
