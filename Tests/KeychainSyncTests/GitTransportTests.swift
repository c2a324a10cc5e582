import Foundation
import KeychainSync
import LoopbackPortSupport
import RequiredToolSupport
import Testing

/// GitTransport against real bare repositories through the real git: over file://, over git://
/// (`git daemon` on loopback) and over ssh (the test's own sshd), two devices each with a
/// private clone, and a remote an attacker can write to.
@Suite("git transport (real git, git daemon and sshd)", .integration, .tags(.external, .git))
struct GitTransportTests: TransportTestCase {
    // MARK: Helpers

    static func device(_ remote: String, in scratch: ScratchFolder, _ name: String,
                       environment: [String: String] = [:]) throws -> GitTransport {
        try GitTransport(remote: remote, repositoryPath: scratch.path + "/device-\(name)/sync.git", networkTimeout: .seconds(60),
                         pollInterval: .milliseconds(200), environment: environment)
    }

    /// Two devices on `remote`: records in common, versions as git blob ids, a clean rebase when
    /// both publish different names, a conflict when both change the same one.
    static func exerciseTwoDevices(remote: String, bare: GitRemote, environment: [String: String] = [:]) throws {
        let scratch = try ScratchFolder("git-devices")
        let a = try device(remote, in: scratch, "a", environment: environment)
        let b = try device(remote, in: scratch, "b", environment: environment)

        // An empty remote: no records, and no branch yet.
        try a.refresh()
        #expect(try a.list(prefix: "").isEmpty)
        try a.publish([write("keys", "bundle-1", expected: .some(nil)), write("items/aa", "secret-aa", expected: .some(nil))])
        #expect(try bare.head() != nil)

        try b.refresh()
        let listed = try b.list(prefix: "")
        #expect(listed.map(\.name) == ["items/aa", "keys"])
        #expect(text(try b.read("items/aa")) == "secret-aa")
        #expect(try b.read("items/none") == nil)
        #expect(try b.list(prefix: "items/").map(\.name) == ["items/aa"])
        // The version is the blob id git gives those bytes.
        let blob = try Shell.run(["git", "hash-object", "--stdin"], input: "secret-aa")
        #expect(try b.read("items/aa")?.version == blob)

        // Different names at once: B has not seen A's push; its push is rejected, it fetches,
        // finds nothing it depends on moved, and makes its commit again on top.
        try a.publish([write("items/bb", "secret-bb", expected: .some(nil))])
        let afterA = try bare.head()
        try b.publish([write("items/cc", "secret-cc", expected: .some(nil))])
        let afterB = try bare.head()
        #expect(afterB != afterA)
        #expect(try Shell.git(bare.repository, ["rev-parse", "refs/heads/keychainkit^"]) == afterA)
        #expect(try Shell.git(bare.repository, ["ls-tree", "-r", "--name-only", "refs/heads/keychainkit"])
            .split(separator: "\n") == ["items/aa", "items/bb", "items/cc", "keys"])
        // B's own view already holds all of it.
        #expect(try b.list(prefix: "items/").map(\.name) == ["items/aa", "items/bb", "items/cc"])

        // The same name at once, both conditional on the version they read: the second loses.
        try a.refresh()
        let version = try #require(try a.read("items/aa")).version
        try a.publish([write("items/aa", "from-a", expected: .some(version))])
        #expect(error { () throws(SyncTransportError) in try b.publish([write("items/aa", "from-b", expected: .some(version))]) }
            == .conflict(["items/aa"]))
        #expect(text(try bare.show("items/aa")) == "from-a")
        // The caller lists again, merges and retries.
        try b.refresh()
        let current = try #require(try b.read("items/aa"))
        #expect(text(current) == "from-a")
        try b.publish([write("items/aa", "merged", expected: .some(current.version)), .init(name: "items/bb", operation: .remove)])
        try a.refresh()
        #expect(text(try a.read("items/aa")) == "merged")
        #expect(try a.read("items/bb") == nil)
    }

    // MARK: Transports

    @Test func twoDevicesOverFile() throws {
        let bare = try GitRemote()
        try Self.exerciseTwoDevices(remote: bare.fileURL, bare: bare)
    }

    @Test func twoDevicesOverGitDaemon() throws {
        let bare = try GitRemote()
        let daemon = try GitDaemon(serving: bare.scratch.path, log: bare.scratch.path + "/daemon.log")
        try Self.exerciseTwoDevices(remote: daemon.url("remote.git"), bare: bare)
        withExtendedLifetime(daemon) {}
    }

    @Test func twoDevicesOverSSH() throws {
        let bare = try GitRemote()
        let server = try SSHServer(in: bare.scratch.path)
        try Self.exerciseTwoDevices(remote: server.url(bare.repository), bare: bare, environment: server.environment())
        withExtendedLifetime(server) {}
    }

    @Test func sshWithAKeyTheServerDoesNotKnowIsRefused() throws {
        let bare = try GitRemote()
        let server = try SSHServer(in: bare.scratch.path)
        let scratch = try ScratchFolder("git-ssh-stranger")
        let stranger = try Self.device(server.url(bare.repository), in: scratch, "stranger", environment: server.environment(key: "stranger_key"))
        let failure = Self.error { () throws(SyncTransportError) in try stranger.refresh() }
        guard case .refused(let reason) = failure else {
            Issue.record("a key sshd does not accept must be refused, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("Permission denied"))
        withExtendedLifetime(server) {}
    }

    // MARK: Offline

    @Test func offlineThenBack() throws {
        let bare = try GitRemote()
        let scratch = try ScratchFolder("git-offline")
        let a = try Self.device(bare.fileURL, in: scratch, "a")
        try a.publish([Self.write("items/aa", "one")])
        let head = try bare.head()

        // The remote goes away (a laptop off the network; here its path moved).
        let away = bare.repository + "-away"
        try FileManager.default.moveItem(atPath: bare.repository, toPath: away)
        guard case .unreachable = Self.error({ () throws(SyncTransportError) in try a.refresh() }) else {
            Issue.record("a missing remote must be unreachable")
            return
        }
        // The last fetch still answers.
        #expect(Self.text(try a.read("items/aa")) == "one")
        guard case .unreachable = Self.error({ () throws(SyncTransportError) in try a.publish([Self.write("items/bb", "two")]) }) else {
            Issue.record("a publish while offline must fail as unreachable")
            return
        }

        // Back: nothing of the failed publish reached the remote or the device's view; it goes through now.
        try FileManager.default.moveItem(atPath: away, toPath: bare.repository)
        #expect(try bare.head() == head)
        #expect(try a.read("items/bb") == nil)
        try a.refresh()
        try a.publish([Self.write("items/bb", "two")])
        #expect(Self.text(try bare.show("items/bb")) == "two")
    }

    // MARK: A hostile remote

    @Test func forcePushRewindIsDetectedAndNothingApplied() throws {
        let bare = try GitRemote()
        let scratch = try ScratchFolder("git-rewind")
        let a = try Self.device(bare.fileURL, in: scratch, "a")
        let b = try Self.device(bare.fileURL, in: scratch, "b")
        try a.publish([Self.write("items/aa", "one")])
        let first = try #require(try bare.head())
        try a.publish([Self.write("items/bb", "two")])
        try b.refresh()
        #expect(try b.list(prefix: "items/").count == 2)

        // The attacker rewinds the branch to the first commit (what `git push --force` does).
        try Shell.git(bare.repository, ["update-ref", "refs/heads/keychainkit", first])
        guard case .rewound(let reason) = Self.error({ () throws(SyncTransportError) in try b.refresh() }) else {
            Issue.record("a rewound branch must be reported")
            return
        }
        #expect(reason.contains(String(first.prefix(12))))
        // Nothing applied: items/bb is still there for B, and a publish does not build on the rewound head.
        #expect(try b.list(prefix: "items/").map(\.name) == ["items/aa", "items/bb"])
        guard case .rewound = Self.error({ () throws(SyncTransportError) in try b.publish([Self.write("items/cc", "three")]) }) else {
            Issue.record("a publish onto a rewound remote must be refused as rewound")
            return
        }
        #expect(try bare.head() == first)
        // Still reported on the next refresh (the last accepted head is kept on disk, in the clone).
        let bAgain = try Self.device(bare.fileURL, in: scratch, "b")
        guard case .rewound = Self.error({ () throws(SyncTransportError) in try bAgain.refresh() }) else {
            Issue.record("a new transport on the same clone must still see the rewind")
            return
        }

        // An unrelated history (a new root commit) is a rewind too; so is a deleted branch.
        let unrelated = try bare.commit(tree: try bare.tree(["keys": "forged"]), parent: nil)
        try Shell.git(bare.repository, ["update-ref", "refs/heads/keychainkit", unrelated])
        guard case .rewound = Self.error({ () throws(SyncTransportError) in try b.refresh() }) else {
            Issue.record("an unrelated history must be reported as rewound")
            return
        }
        try Shell.git(bare.repository, ["update-ref", "-d", "refs/heads/keychainkit"])
        guard case .rewound = Self.error({ () throws(SyncTransportError) in try b.refresh() }) else {
            Issue.record("a deleted branch must be reported as rewound")
            return
        }
        #expect(try b.list(prefix: "").map(\.name) == ["items/aa", "items/bb"])

        // Adopting the remote's history is a deliberate act; afterwards B follows it again.
        try Shell.git(bare.repository, ["update-ref", "refs/heads/keychainkit", first])
        try b.adoptRemoteHistory()
        try b.refresh()
        #expect(try b.list(prefix: "items/").map(\.name) == ["items/aa"])
        try b.publish([Self.write("items/cc", "three")])
        #expect(Self.text(try bare.show("items/cc")) == "three")
    }

    @Test func hostileEntriesAreSkippedReportedAndNeverFollowed() throws {
        let bare = try GitRemote()
        let scratch = try ScratchFolder("git-hostile")
        let a = try Self.device(bare.fileURL, in: scratch, "a")
        try a.publish([Self.write("keys", "bundle")])
        let head = try #require(try bare.head())

        // The attacker commits a tree with `../x`, a symbolic link to /etc/passwd, a link named like
        // a record, a submodule, upper-case and hidden names, and one oversized file.
        let evil = try bare.blob("evil")
        let inner = try bare.mktree("100644 blob \(evil)\tx\n")
        let link = try bare.blob("/etc/passwd")
        let big = try bare.blob(String(repeating: "z", count: (1 << 20) + 1))
        let good = try bare.blob("bundle")
        let items = try bare.mktree("""
            120000 blob \(link)\tab
            100644 blob \(evil)\tUPPER
            100644 blob \(good)\tok

            """)
        let top = try bare.mktree("""
            040000 tree \(inner)\t..
            100644 blob \(evil)\t.gitmodules
            100644 blob \(big)\tbig
            040000 tree \(items)\titems
            100644 blob \(good)\tkeys
            120000 blob \(link)\tlink
            160000 commit \(head)\tsub

            """)
        let hostile = try bare.commit(tree: top, parent: head)
        try Shell.git(bare.repository, ["update-ref", "refs/heads/keychainkit", hostile])

        let b = try Self.device(bare.fileURL, in: scratch, "b")
        try b.refresh()
        #expect(try b.list(prefix: "").map(\.name) == ["items/ok", "keys"])
        #expect(try b.read("items/ab") == nil)
        let skipped = Set(b.skippedEntries.map(\.path))
        #expect(skipped == ["../x", ".gitmodules", "big", "items/ab", "items/UPPER", "link", "sub"])
        #expect(b.skippedEntries.first { $0.path == "link" }?.reason.contains("symbolic link") == true)
        // Nothing was written beside the clone: the tree is read, never checked out.
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/device-b/x"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/x"))
        // And the device still publishes on top of it.
        try b.publish([Self.write("items/cc", "fine")])
        #expect(Self.text(try bare.show("items/cc")) == "fine")
    }

    @Test("a listing reads at most its limits, chosen by the sizes the tree lists, smallest first, and names what it left unread")
    func listingWithinLimitsReadsSmallestFirstAndReportsTheRest() throws {
        let bare = try GitRemote()
        let scratch = try ScratchFolder("git-limits")
        let a = try Self.device(bare.fileURL, in: scratch, "a")
        let b = try Self.device(bare.fileURL, in: scratch, "b")
        try a.publish([Self.write("items/aa", "a"), Self.write("items/bb", "bb"), Self.write("items/cc", "cccccc"),
                       Self.write("items/dd", "dddddddd"), Self.write("keys", "k")])
        try b.refresh()
        let byCount = try b.list(prefix: "items/", within: SyncListingLimits(maximumRecords: 2, maximumBytes: 1_000))
        #expect(byCount.records.map { Self.text($0) } == ["a", "bb"])
        #expect(byCount.unread == ["items/cc", "items/dd"])
        let byBytes = try b.list(prefix: "items/", within: SyncListingLimits(maximumRecords: 100, maximumBytes: 9))
        #expect(byBytes.records.map(\.name) == ["items/aa", "items/bb", "items/cc"])
        #expect(byBytes.unread == ["items/dd"])
        let all = try b.list(prefix: "items/", within: .standard)
        let unbounded = try b.list(prefix: "items/")
        #expect(all.unread.isEmpty && all.records == unbounded)
    }

    @Test func badNamesAreRefusedOnTheWayIn() throws {
        let bare = try GitRemote()
        let scratch = try ScratchFolder("git-names")
        let a = try Self.device(bare.fileURL, in: scratch, "a")
        Self.expectNamesRefused(["../x", "/etc/passwd", "items/../keys", "Items/AB", ".git/config", "items//a", "items/", "", "a b",
                                 "items/.hidden", String(repeating: "a", count: 256)], by: a)
        guard case .invalidName = Self.error({ () throws(SyncTransportError) in _ = try a.list(prefix: "../") }) else {
            Issue.record("a prefix outside the rules must be refused")
            return
        }
        #expect(try bare.head() == nil)
    }

    // MARK: What a commit reveals

    @Test func commitsCarryNoIdentityTimeOrNames() throws {
        let bare = try GitRemote()
        let scratch = try ScratchFolder("git-metadata")
        // The user's own identity and signing settings, everywhere git could pick them up.
        let config = scratch.path + "/gitconfig"
        try "[user]\n\tname = Ada Lovelace\n\temail = ada@example.org\n[commit]\n\tgpgSign = true\n".write(toFile: config, atomically: true, encoding: .utf8)
        let environment = ["GIT_CONFIG_GLOBAL": config, "GIT_AUTHOR_NAME": "Ada Lovelace", "GIT_AUTHOR_EMAIL": "ada@example.org",
                           "GIT_COMMITTER_NAME": "Ada Lovelace", "GIT_AUTHOR_DATE": "2026-11-25T15:00:00Z"]
        let a = try Self.device(bare.fileURL, in: scratch, "a", environment: environment)
        try a.publish([Self.write("items/3fa2", "x"), Self.write("keys", "k")])
        try a.publish([Self.write("items/3fa2", "y")])
        try a.publish([.init(name: "items/3fa2", operation: .remove)])

        let commits = try Shell.git(bare.repository, ["rev-list", "refs/heads/keychainkit"]).split(separator: "\n")
        #expect(commits.count == 3)
        for commit in commits {
            let raw = try Shell.git(bare.repository, ["cat-file", "commit", String(commit)])
            let lines = raw.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.contains("author keychainkit <keychainkit@invalid> 0 +0000"))
            #expect(lines.contains("committer keychainkit <keychainkit@invalid> 0 +0000"))
            #expect(lines.last == "keychainkit sync")
            #expect(!raw.contains("gpgsig"))
            #expect(!raw.contains("Ada") && !raw.contains("ada@") && !raw.contains("3fa2"))
        }
    }

    @Test func credentialsInTheURLNeverReachMessages() throws {
        let scratch = try ScratchFolder("git-credentials")
        let port = try LoopbackPort.next()  // nothing listens there
        let a = try GitTransport(remote: "https://ada:s3cr3t-token@127.0.0.1:\(port)/keys.git",
                                 repositoryPath: scratch.path + "/sync.git", networkTimeout: .seconds(30))
        #expect(!a.location.contains("s3cr3t"))
        #expect(a.location.contains("127.0.0.1:\(port)/keys.git"))
        guard let failure = Self.error({ () throws(SyncTransportError) in try a.refresh() }) else { return }
        #expect(!failure.description.contains("s3cr3t"))
        guard case .unreachable = failure else {
            Issue.record("a closed port must be unreachable, got \(failure)")
            return
        }
        // Nor on disk: the URL goes to git through its environment, not the clone's config.
        let onDisk = try String(contentsOfFile: scratch.path + "/sync.git/config", encoding: .utf8)
        #expect(!onDisk.contains("s3cr3t"))
    }

    @Test func remotesThatRunCommandsAreRefused() throws {
        let scratch = try ScratchFolder("git-ext")
        let marker = scratch.path + "/ran"
        for remote in ["ext::sh -c touch% \(marker)", "EXT::sh -c touch% \(marker)", "fd::3", "file:///x\nfile:///y", ""] {
            do {
                let transport = try GitTransport(remote: remote, repositoryPath: scratch.path + "/sync.git")
                try transport.refresh()
                Issue.record("\(remote) must be refused")
            } catch {
                guard case .refused = error else { Issue.record("\(remote): \(error)"); continue }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    // MARK: Waiting

    @Test func waitForChangeSeesAnotherDevicesPush() throws {
        let bare = try GitRemote()
        let scratch = try ScratchFolder("git-wait")
        let a = try Self.device(bare.fileURL, in: scratch, "a")
        let b = try Self.device(bare.fileURL, in: scratch, "b")
        try a.publish([Self.write("keys", "k")])
        try b.refresh()
        try Self.expectWaitSeesChange(writer: a, reader: b, quiet: .milliseconds(700), writeAfter: 0.5)
    }
}

extension GitRemote {
    /// The bytes of `name` on the remote's branch, or nil.
    func show(_ name: String) throws -> SyncTransportRecord? {
        let text = try Shell.git(repository, ["cat-file", "-p", "refs/heads/keychainkit:\(name)"], allowFailure: true)
        return text.isEmpty ? nil : SyncTransportRecord(name: name, bytes: Data(text.utf8), version: "")
    }

    func blob(_ text: String) throws -> String {
        try Shell.git(repository, ["hash-object", "-w", "--stdin"], input: text)
    }

    func mktree(_ listing: String) throws -> String {
        try Shell.git(repository, ["mktree", "--missing"], input: listing)
    }

    /// A flat tree of `files`.
    func tree(_ files: [String: String]) throws -> String {
        var listing = ""
        for (name, text) in files.sorted(by: { $0.key < $1.key }) { listing += "100644 blob \(try blob(text))\t\(name)\n" }
        return try mktree(listing)
    }

    func commit(tree: String, parent: String?) throws -> String {
        try Shell.run(["git", "--git-dir=\(repository)", "-c", "user.name=attacker", "-c", "user.email=attacker@invalid", "commit-tree", tree]
                      + (parent.map { ["-p", $0] } ?? []), input: "attack")
    }
}
