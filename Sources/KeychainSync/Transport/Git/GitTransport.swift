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
import Synchronization

/// Records as files in a git repository, on one branch of a remote the user already has (any URL
/// git accepts), driven through the real `git` binary so that the user's ssh keys and agent,
/// `known_hosts`, credential helpers, proxies and `insteadOf` rewrites apply.
///
/// The device keeps a private bare clone (``repositoryPath``, under the keychain's side
/// directory). ``refresh()`` fetches the branch; ``list(prefix:)`` and ``read(_:)`` answer from
/// the last accepted fetch, also while offline; ``publish(_:)`` makes one commit of all changes on
/// top of it and pushes with a lease on the head it was made on, so that a push never overwrites
/// a commit this device has not seen. When another device pushed first, the branch is fetched
/// again: if a record this publish is conditional on changed there, the call fails with
/// ``SyncTransportError/conflict(_:)`` (the caller merges and retries), otherwise the commit is
/// made again on the new head and pushed (a bounded number of times).
///
/// What a hostile remote can do, and what it gets:
/// - Rewind the branch (a force-push): the new head must descend from the last one this device
///   accepted (kept as a ref in the private clone, so across restarts); otherwise every call fails
///   with ``SyncTransportError/rewound(_:)`` and nothing of the new history is used, until
///   ``adoptRemoteHistory()`` is called on purpose.
/// - Plant entries with bad names (`../x`, upper case), symbolic links, submodules or oversized
///   files: the tree is read with `git ls-tree`/`git cat-file`, never checked out, so nothing is
///   written to or followed on this machine's file system; such entries are skipped and listed in
///   ``skippedEntries``.
/// - Send malformed objects: `transfer.fsckObjects` makes git refuse the fetch.
/// - Push huge files: a fetch may bring in at most ``standardFetchLimit`` bytes. Every fetch keeps
///   what it receives as one pack file (`fetch.unpackLimit=1`, never loose objects) and runs
///   under a file-size limit of that many bytes (``GitProcess``), so git stops writing at the cap,
///   whatever the remote sends; the partial pack is removed, the fetch reported as
///   ``SyncTransportError/malformed(_:)`` with the cause and the fix, and the clone stays at
///   the last accepted head. Enforced here, by the kernel, not by the remote or a git feature
///   (`--filter=blob:limit` needs a server that honours it and a git newer than Debian 12's).
///
/// Commits reveal nothing about items: author and committer are `keychainkit <keychainkit@invalid>`,
/// the message is `keychainkit sync`, both dates are the Unix epoch (`0 +0000`) — a constant, not
/// a coarse time, since even a day would tell when someone used which account — commits are never
/// signed (a signature names its key), and file names are the record names, which the protocol
/// makes opaque. What remains visible is what git needs: which files changed in which commit, in
/// what order, and their sizes (the protocol pads records).
package final class GitTransport: SyncTransport, @unchecked Sendable {
    /// The remote without credentials and the branch, for messages.
    package let location: String
    /// The private bare clone.
    package let repositoryPath: String
    /// The branch on the remote that holds the records.
    package let branch: String

    /// Always: publishing pushes with a lease and checks each change's expected blob.
    package var supportsConditionalPublish: Bool { true }

    private let remote: GitRemoteURL
    private let git: GitProcess
    private let networkTimeout: Duration
    private let pollInterval: Duration
    private let maximumRecordBytes: Int
    private let maximumFetchBytes: Int
    private let maximumPushAttempts: Int
    /// What the transport keeps between calls.
    private struct HeldState {
        var cache: Snapshot?
        /// Record bytes by blob id: content-addressed, so valid across commits; after a fetch only
        /// the blobs that changed are read. Holds only the blobs of the last listed head.
        var contents: [String: Data] = [:]
        var lastSkipped: [SyncTransportSkippedEntry] = []
    }
    private let state = Mutex(HeldState())

    /// The fixed identity and message of every commit (see the type's documentation).
    static let identity = "keychainkit <keychainkit@invalid>"
    static let message = "keychainkit sync"
    static let date = "0 +0000"

    /// The most one fetch may bring into the private clone: 128 MiB. Twice what one pass reads
    /// (``SyncListingLimits/standard``), so the first fetch of an honest circle at the record limit
    /// with its history (4,096 items × 11 versions × about 1.2 KiB, about 54 MiB) fits with room,
    /// while a remote cannot fill the disk in one fetch (docs/SYNC.md states it).
    package static let standardFetchLimit = 128 << 20

    private static let seenRef = "refs/keychainkit/seen"
    private static let fetchedRef = "refs/keychainkit/fetched"

    /// The records of one commit: name → blob id.
    private struct Snapshot {
        var commit: String?
        var blobs: [String: String]
        /// Each record's size as `git ls-tree -l` gave it: what a bounded listing chooses by.
        var sizes: [String: Int] = [:]
    }

    /// A transport for `remote` (ssh://, user@host:path, https://, git://, file://, a path) on
    /// `branch`, with its private clone at `repositoryPath` (created, mode 0700, if missing).
    ///
    /// - Parameters:
    ///   - networkTimeout: how long a fetch or push may take before the remote counts as unreachable.
    ///   - pollInterval: how often ``waitForChange(prefix:until:)`` fetches.
    ///   - maximumRecordBytes: a file larger than this on the remote is skipped, not read.
    ///   - maximumFetchBytes: the most one fetch may write into the private clone
    ///     (``standardFetchLimit``; smaller in tests); a fetch that would bring in more is refused.
    ///   - maximumPushAttempts: how many times a publish is made again on a newer head before
    ///     giving up with ``SyncTransportError/unreachable(_:)``.
    ///   - gitExecutable: the git to run (default: `git` on `PATH`).
    ///   - environment: variables added to git's environment (for example `GIT_SSH_COMMAND`);
    ///     git otherwise gets this process's environment, less variables that would point it at
    ///     another repository.
    package init(remote: String, repositoryPath: String, branch: String = "keychainkit",
                networkTimeout: Duration = .seconds(60), pollInterval: Duration = .seconds(30),
                maximumRecordBytes: Int = 1 << 20, maximumFetchBytes: Int = GitTransport.standardFetchLimit, maximumPushAttempts: Int = 5,
                gitExecutable: String? = nil, environment: [String: String] = [:]) throws(SyncTransportError) {
        self.remote = try GitRemoteURL(remote)
        guard TransportRecordName.isValid(branch) else {
            throw .refused("not a usable branch name: \(TransportRecordName.printable(branch)) (use lower-case letters, digits, - _ . /)")
        }
        guard repositoryPath.hasPrefix("/") else { throw .refused("the private clone's path must be absolute: \(repositoryPath)") }
        guard let executable = gitExecutable ?? GitProcess.findGit() else {
            throw .refused("git is not installed or not on PATH: install it (Debian: apt install git)")
        }
        self.branch = branch
        self.repositoryPath = repositoryPath
        self.location = "\(self.remote.redacted) (branch \(branch))"
        self.networkTimeout = networkTimeout
        self.pollInterval = pollInterval
        self.maximumRecordBytes = maximumRecordBytes
        self.maximumFetchBytes = maximumFetchBytes
        self.maximumPushAttempts = max(1, maximumPushAttempts)
        self.git = GitProcess(executable: executable,
                              environment: Self.environment(repository: repositoryPath, remote: self.remote, git: executable,
                                                            adding: environment))
        try createRepositoryIfMissing()
    }

    /// `remote` as ``location`` shows it: without the user-info part (where a password or token
    /// rides) of a `scheme://user:password@host/…` URL.
    package static func redacted(remote: String) -> String {
        GitRemoteURL.redact(remote)
    }

    /// Entries of the last listed tree that were not records (bad names, links, submodules,
    /// oversized files), with why.
    package var skippedEntries: [SyncTransportSkippedEntry] {
        state.withLock { $0.lastSkipped }
    }

    // MARK: SyncTransport

    /// Fetches the branch. Fails with ``SyncTransportError/rewound(_:)`` if its new head does not
    /// descend from the last accepted one (nothing is accepted then), and with
    /// ``SyncTransportError/unreachable(_:)`` when the remote cannot be reached (the last fetch
    /// still answers ``list(prefix:)`` and ``read(_:)``).
    package func refresh() throws(SyncTransportError) {
        try withRepositoryLock { () throws(SyncTransportError) in
            _ = try fetchAndAccept(deadline: .now + networkTimeout)
        }
    }

    /// Records under `prefix` in the last accepted head, each with its blob id as version
    /// (unbounded: for tests and tools; a sync pass lists within limits).
    package func list(prefix: String) throws(SyncTransportError) -> [SyncTransportRecord] {
        let prefix = try TransportRecordName.validatedPrefix(prefix)
        let snapshot = try currentSnapshot()
        return try records(snapshot.blobs.filter { $0.key.hasPrefix(prefix) }, keepingOnly: Set(snapshot.blobs.values))
    }

    /// The records under `prefix` that fit `limits`, chosen by the sizes the tree lists before any
    /// blob is read; only those are read (and held afterwards), the rest reported unread.
    package func list(prefix: String, within limits: SyncListingLimits) throws(SyncTransportError) -> SyncTransportListing {
        let prefix = try TransportRecordName.validatedPrefix(prefix)
        let snapshot = try currentSnapshot()
        let matching = snapshot.blobs.filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }
        let selection = limits.select(matching.map { ($0.key, snapshot.sizes[$0.key] ?? maximumRecordBytes) })
        let blobs = Dictionary(selection.read.map { matching[$0] }, uniquingKeysWith: { first, _ in first })
        return SyncTransportListing(records: try records(blobs, keepingOnly: Set(blobs.values)), unread: selection.unread,
                                    resumeAfter: selection.resumeAfter)
    }

    /// The record `name` in the last accepted head, or nil.
    package func read(_ name: String) throws(SyncTransportError) -> SyncTransportRecord? {
        let name = try TransportRecordName.validated(name)
        guard let blob = try currentSnapshot().blobs[name] else { return nil }
        return try records([name: blob], keepingOnly: nil).first
    }

    /// One commit of every change on top of the last accepted head, pushed with a lease on that
    /// head; retried on a newer head when another device pushed first and no conditional change
    /// is affected (see the type's documentation).
    package func publish(_ changes: [SyncTransportChange]) throws(SyncTransportError) {
        var seen = Set<String>()
        for change in changes {
            let name = try TransportRecordName.validated(change.name)
            guard seen.insert(name).inserted else { throw .invalidName("\(name) (named twice in one publish)") }
        }
        guard !changes.isEmpty else { return }
        try withRepositoryLock { () throws(SyncTransportError) in
            var base = try snapshot(at: try resolve(Self.seenRef))
            for _ in 0..<maximumPushAttempts {
                let moved = changes.filter { change in
                    guard let expected = change.expected else { return false }
                    return base.blobs[change.name] != expected
                }
                guard moved.isEmpty else { throw .conflict(moved.map(\.name)) }
                guard let commit = try makeCommit(on: base.commit, changes) else { return }  // nothing changes
                switch try push(commit, over: base.commit) {
                case .pushed:
                    try updateRef(Self.seenRef, to: commit, from: base.commit)
                    state.withLock { $0.cache = nil }
                    return
                case .behind:
                    guard let head = try fetchAndAccept(deadline: .now + networkTimeout) else {
                        throw .rewound("the branch \(branch) disappeared from \(remote.redacted) while publishing")
                    }
                    base = try snapshot(at: head)
                }
            }
            throw .unreachable("\(location) kept changing during \(maximumPushAttempts) attempts to publish; try again")
        }
    }

    /// Fetches every `pollInterval` until a record under `prefix` differs from the last accepted
    /// head (true) or `deadline` (false).
    package func waitForChange(prefix: String, until deadline: ContinuousClock.Instant) throws(SyncTransportError) -> Bool {
        let prefix = try TransportRecordName.validatedPrefix(prefix)
        let before = try fingerprint(prefix: prefix)
        while ContinuousClock.now < deadline {
            let fetchDeadline = min(ContinuousClock.now + networkTimeout, deadline)
            do {
                try withRepositoryLock { () throws(SyncTransportError) in _ = try fetchAndAccept(deadline: fetchDeadline) }
            } catch .unreachable(let reason) {
                if ContinuousClock.now >= deadline { return false }  // our deadline cut the fetch short
                throw .unreachable(reason)
            }
            if try fingerprint(prefix: prefix) != before { return true }
            let pause = min(pollInterval, ContinuousClock.now.duration(to: deadline))
            BlockingSleep.sleep(for: pause)
        }
        return false
    }

    /// Accepts the remote's current history as it is, after ``SyncTransportError/rewound(_:)``
    /// was reported and the user decided that the rewind was intended (a restored backup, a
    /// repository moved): the next ``refresh()`` takes the remote's head as the new base. Records
    /// missing from it are not deletions to the protocol; it publishes them again.
    package func adoptRemoteHistory() throws(SyncTransportError) {
        try withRepositoryLock { () throws(SyncTransportError) in
            if let fetched = try fetch(deadline: .now + networkTimeout) {
                try updateRef(Self.seenRef, to: fetched, from: nil, unconditionally: true)
            } else {
                try deleteRef(Self.seenRef)
            }
            state.withLock { $0.cache = nil }
        }
    }

    // MARK: Fetching

    /// Fetches the branch and accepts its head if it descends from the last accepted one;
    /// returns the accepted head (nil: the remote has no such branch and never had).
    private func fetchAndAccept(deadline: ContinuousClock.Instant) throws(SyncTransportError) -> String? {
        let fetched = try fetch(deadline: deadline)
        let accepted = try resolve(Self.seenRef)
        guard let accepted else {
            if let fetched { try updateRef(Self.seenRef, to: fetched, from: nil) }
            return fetched
        }
        guard let fetched else {
            throw .rewound("the branch \(branch) is gone from \(remote.redacted); this device last saw \(accepted.prefix(12)) (nothing was applied)")
        }
        if fetched == accepted { return accepted }
        guard try isAncestor(accepted, of: fetched) else {
            throw .rewound("\(remote.redacted) branch \(branch) moved to \(fetched.prefix(12)), which does not contain \(accepted.prefix(12)) that this device last saw: a force-push rewrote its history (nothing was applied; if that was intended, adopt the remote's history)")
        }
        try updateRef(Self.seenRef, to: fetched, from: accepted)
        return fetched
    }

    /// Fetches the branch into the private clone; returns its head, or nil when the remote has none.
    /// What the fetch may write is capped (``maximumFetchBytes``); a fetch over the cap, cut short
    /// or failed leaves nothing behind: refs move only after a complete pack, and a partial pack
    /// is removed here.
    private func fetch(deadline: ContinuousClock.Instant) throws(SyncTransportError) -> String? {
        let outcome = try run(["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "origin",
                               "+refs/heads/\(branch):\(Self.fetchedRef)"], deadline: deadline, fileSizeLimit: maximumFetchBytes)
        if outcome.succeeded { return try resolve(Self.fetchedRef) }
        try removePartialPacks()
        if outcome.status == 128, outcome.errorText.contains("couldn't find remote ref") { return nil }
        if outcome.errorText.contains(GitProcess.fileTooLarge) {
            throw .malformed("git fetch from \(remote.redacted) would bring in more than \(Self.byteCount(maximumFetchBytes)), the cap on one fetch: "
                + "someone pushed files far larger than records to branch \(branch) (nothing was fetched or applied; this device keeps what it has). "
                + "Remove them from the branch's history on the remote (rewrite it without them and force-push, then run "
                + "`keychainctl sync run --adopt-remote-history` on each device), or move the circle to a new branch")
        }
        throw failure(outcome, doing: "fetch from")
    }

    /// Removes the temporary pack and index files a fetch that did not finish left in the private
    /// clone (`objects/pack/tmp_*`): git moves a pack into place only once it is complete.
    private func removePartialPacks() throws(SyncTransportError) {
        let directory = repositoryPath + "/objects/pack"
        guard FileManager.default.fileExists(atPath: directory) else { return }  // nothing was ever written
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .refused("cannot list \(directory) to remove a partial fetch: \(SystemErrorText.of(error))")
        }
        for name in names where name.hasPrefix("tmp_") {
            guard unlink(directory + "/" + name) == 0 || errno == ENOENT else {
                throw .refused("cannot remove the partial fetch \(directory)/\(name): \(String(cString: strerror(errno))) (remove it by hand)")
            }
        }
    }

    /// `bytes` for messages: whole MiB or KiB.
    static func byteCount(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : bytes % 1024 == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }

    // MARK: Publishing

    private enum PushResult { case pushed, behind }

    /// One commit on `base` with `changes` (fast-import: one process for every blob and tree),
    /// or nil when it would not change the tree.
    private func makeCommit(on base: String?, _ changes: [SyncTransportChange]) throws(SyncTransportError) -> String? {
        let pending = "refs/keychainkit/pending/\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        var stream = Data()
        func line(_ text: String) { stream.append(contentsOf: Array((text + "\n").utf8)) }
        let messageBytes = Array((Self.message + "\n").utf8)
        line("reset \(pending)")
        line("commit \(pending)")
        line("author \(Self.identity) \(Self.date)")
        line("committer \(Self.identity) \(Self.date)")
        line("data \(messageBytes.count)")
        stream.append(contentsOf: messageBytes)
        if let base { line("from \(base)") }
        for change in changes {
            switch change.operation {
            case .write(let bytes):
                line("M 100644 inline \(change.name)")
                line("data \(bytes.count)")
                stream.append(bytes)
                line("")
            case .remove:
                line("D \(change.name)")
            }
        }
        line("")
        defer { stream.resetBytes(in: 0..<stream.count) }
        let outcome = try run(["fast-import", "--quiet", "--force", "--date-format=raw"], input: stream, deadline: .now + networkTimeout)
        guard outcome.succeeded else { throw .malformed("git fast-import failed in \(repositoryPath): \(Self.lastLines(outcome.errorText))") }
        guard let commit = try resolve(pending) else { throw .malformed("git fast-import made no commit in \(repositoryPath)") }
        try deleteRef(pending)  // the commit stays reachable through the caller until pushed
        if let base, try treeID(of: commit) == treeID(of: base) { return nil }
        return commit
    }

    /// Pushes `commit` to the branch if the remote's head is still `base` (nil: absent).
    private func push(_ commit: String, over base: String?) throws(SyncTransportError) -> PushResult {
        let target = "refs/heads/\(branch)"
        let outcome = try run(["push", "--porcelain", "--no-verify", "--force-with-lease=\(target):\(base ?? "")",
                               "origin", "\(commit):\(target)"], deadline: .now + networkTimeout)
        if outcome.succeeded { return .pushed }
        let report = String(decoding: outcome.output, as: UTF8.self)
        // Another push updated the branch between the lease check and the ref update on the
        // server ("cannot lock ref … is at X but expected Y"): a race lost, not a refusal.
        if !outcome.timedOut, report.contains("[remote rejected]"),
           (report + outcome.errorText).contains("cannot lock ref") || report.contains("failed to update ref") {
            return .behind
        }
        if !outcome.timedOut, report.contains("[remote rejected]") {
            throw .refused("\(remote.redacted) refused the push: \(Self.lastLines(report + outcome.errorText)) (a server-side hook or a protected branch: allow pushes to \(branch))")
        }
        if !outcome.timedOut, report.contains("[rejected]") { return .behind }
        throw failure(outcome, doing: "push to")
    }

    // MARK: Reading the accepted head

    private func currentSnapshot() throws(SyncTransportError) -> Snapshot {
        let head = try resolve(Self.seenRef)
        return try snapshot(at: head)
    }

    /// The records of `commit` (cached per commit), skipping what is not a record.
    private func snapshot(at commit: String?) throws(SyncTransportError) -> Snapshot {
        if let cached = state.withLock({ $0.cache }), cached.commit == commit { return cached }
        guard let commit else { return Snapshot(commit: nil, blobs: [:]) }
        let listing = try run(["ls-tree", "-r", "-l", "-z", "--full-tree", commit], deadline: .now + networkTimeout)
        guard listing.succeeded else { throw .malformed("git ls-tree \(commit.prefix(12)) failed: \(Self.lastLines(listing.errorText))") }
        var skipped: [SyncTransportSkippedEntry] = []
        var wanted: [(name: String, blob: String, size: Int)] = []
        for entry in listing.output.split(separator: 0, omittingEmptySubsequences: true) {
            guard let tab = entry.firstIndex(of: UInt8(ascii: "\t")) else { continue }
            let fields = String(decoding: entry[entry.startIndex..<tab], as: UTF8.self).split(separator: " ", omittingEmptySubsequences: true)
            let path = String(decoding: entry[(tab + 1)...], as: UTF8.self)
            guard fields.count == 4 else { skipped.append(.init(rawPath: path, reason: "an entry git did not describe")); continue }
            let (mode, type, blob, size) = (fields[0], fields[1], String(fields[2]), Int(fields[3]))
            if mode == "120000" { skipped.append(.init(rawPath: path, reason: "a symbolic link (not followed)")); continue }
            if type == "commit" { skipped.append(.init(rawPath: path, reason: "a submodule (not followed)")); continue }
            guard type == "blob", mode == "100644" || mode == "100755", let size else {
                skipped.append(.init(rawPath: path, reason: "not a regular file (mode \(mode))")); continue
            }
            guard TransportRecordName.isValid(path) else {
                skipped.append(.init(rawPath: path, reason: "not a record name (lower-case letters, digits, / . _ - only, no leading dot or ..)")); continue
            }
            guard size <= maximumRecordBytes else {
                skipped.append(.init(rawPath: path, reason: "\(size) bytes, over the \(maximumRecordBytes)-byte limit")); continue
            }
            wanted.append((path, blob, size))
        }
        let snapshot = Snapshot(commit: commit, blobs: Dictionary(wanted.map { ($0.name, $0.blob) }, uniquingKeysWith: { first, _ in first }),
                                sizes: Dictionary(wanted.map { ($0.name, $0.size) }, uniquingKeysWith: { first, _ in first }))
        state.withLock { state in
            state.cache = snapshot
            state.lastSkipped = skipped
        }
        return snapshot
    }

    /// The records `blobs` names (name → blob id), in name order, reading only blobs not already
    /// held; with `keepingOnly`, the held contents are then trimmed to those blobs.
    private func records(_ blobs: [String: String], keepingOnly kept: Set<String>?) throws(SyncTransportError) -> [SyncTransportRecord] {
        let held = state.withLock { $0.contents }
        let missing = Set(blobs.values).subtracting(held.keys)
        let loaded = try self.blobs(Array(missing))
        var all = held.merging(loaded) { old, _ in old }
        var result: [SyncTransportRecord] = []
        for (name, blob) in blobs.sorted(by: { $0.key < $1.key }) {
            guard let bytes = all[blob] else { throw .malformed("blob \(blob.prefix(12)) of \(name) is missing from \(repositoryPath)") }
            result.append(SyncTransportRecord(name: name, bytes: bytes, version: blob))
        }
        if let kept { all = all.filter { kept.contains($0.key) } }
        state.withLock { $0.contents = all }
        return result
    }

    /// The contents of `ids` through one `git cat-file --batch`.
    private func blobs(_ ids: [String]) throws(SyncTransportError) -> [String: Data] {
        guard !ids.isEmpty else { return [:] }
        let unique = Array(Set(ids))
        let input = Data(unique.map { $0 + "\n" }.joined().utf8)
        let limit = unique.count * (maximumRecordBytes + 128)
        let outcome = try run(["cat-file", "--batch"], input: input, deadline: .now + networkTimeout, outputLimit: limit)
        guard outcome.succeeded else { throw .malformed("git cat-file failed in \(repositoryPath): \(Self.lastLines(outcome.errorText))") }
        var result: [String: Data] = [:]
        let output = outcome.output
        var index = output.startIndex
        while index < output.endIndex {
            guard let newline = output[index...].firstIndex(of: UInt8(ascii: "\n")) else { break }
            let header = String(decoding: output[index..<newline], as: UTF8.self).split(separator: " ")
            index = newline + 1
            guard header.count == 3, header[1] == "blob", let size = Int(header[2]), size >= 0, index + size <= output.endIndex else {
                throw .malformed("git cat-file answered \(header.joined(separator: " ").prefix(80))")
            }
            result[String(header[0])] = Data(output[index..<(index + size)])
            index += size + 1  // the content's trailing newline
        }
        return result
    }

    /// Names and blobs under `prefix` in the accepted head: what a change is compared on.
    private func fingerprint(prefix: String) throws(SyncTransportError) -> [String: String] {
        var result: [String: String] = [:]
        for (name, blob) in try currentSnapshot().blobs where name.hasPrefix(prefix) { result[name] = blob }
        return result
    }

    // MARK: Plumbing

    private func resolve(_ ref: String) throws(SyncTransportError) -> String? {
        let outcome = try run(["rev-parse", "--verify", "--quiet", "\(ref)^{commit}"], deadline: .now + networkTimeout)
        guard outcome.succeeded else { return nil }
        return String(decoding: outcome.output, as: UTF8.self).trimmingWhitespaceAndNewlines()
    }

    private func treeID(of commit: String) throws(SyncTransportError) -> String {
        let outcome = try run(["rev-parse", "--verify", "\(commit)^{tree}"], deadline: .now + networkTimeout)
        guard outcome.succeeded else { throw .malformed("commit \(commit.prefix(12)) has no tree in \(repositoryPath)") }
        return String(decoding: outcome.output, as: UTF8.self).trimmingWhitespaceAndNewlines()
    }

    private func isAncestor(_ ancestor: String, of descendant: String) throws(SyncTransportError) -> Bool {
        let outcome = try run(["merge-base", "--is-ancestor", ancestor, descendant], deadline: .now + networkTimeout)
        if outcome.status == 0 { return true }
        if outcome.status == 1 { return false }
        throw .malformed("git merge-base failed in \(repositoryPath): \(Self.lastLines(outcome.errorText))")
    }

    /// Moves `ref` to `commit` only if it still points at `old` (nil: absent), so that two
    /// processes on one clone cannot lose each other's update.
    private func updateRef(_ ref: String, to commit: String, from old: String?, unconditionally: Bool = false) throws(SyncTransportError) {
        var arguments = ["update-ref", ref, commit]
        if !unconditionally { arguments.append(old ?? String(repeating: "0", count: commit.count)) }
        let outcome = try run(arguments, deadline: .now + networkTimeout)
        guard outcome.succeeded else { throw .malformed("git update-ref \(ref) failed in \(repositoryPath): \(Self.lastLines(outcome.errorText))") }
    }

    private func deleteRef(_ ref: String) throws(SyncTransportError) {
        let outcome = try run(["update-ref", "-d", ref], deadline: .now + networkTimeout)
        guard outcome.succeeded else { throw .malformed("git update-ref -d \(ref) failed in \(repositoryPath): \(Self.lastLines(outcome.errorText))") }
    }

    private func run(_ arguments: [String], input: Data = Data(), deadline: ContinuousClock.Instant,
                     outputLimit: Int = 64 << 20, fileSizeLimit: Int? = nil) throws(SyncTransportError) -> GitProcess.Outcome {
        do {
            return try git.run(arguments, input: input, deadline: deadline, outputLimit: outputLimit, fileSizeLimit: fileSizeLimit)
        } catch {
            throw .refused("\(error.description) (is git installed? Debian: apt install git)")
        }
    }

    /// A failed fetch or push as an error: refused when git says the remote turned us away
    /// (authentication, host key, permissions), unreachable otherwise.
    private func failure(_ outcome: GitProcess.Outcome, doing action: String) -> SyncTransportError {
        if outcome.timedOut { return .unreachable("git \(action) \(remote.redacted) did not finish in time") }
        if outcome.outputOverLimit { return .malformed("git \(action) \(remote.redacted) wrote more than expected") }
        let text = Self.lastLines(outcome.errorText)
        let refusals = ["Permission denied", "Host key verification failed", "Authentication failed", "could not read Username",
                        "terminal prompts disabled", "The requested URL returned error: 403", "The requested URL returned error: 401",
                        "REMOTE HOST IDENTIFICATION HAS CHANGED", "certificate"]
        if refusals.contains(where: { outcome.errorText.contains($0) }) {
            return .refused("git \(action) \(remote.redacted): \(text) (check the ssh key or credential helper, known_hosts, and access to the repository)")
        }
        return .unreachable("git \(action) \(remote.redacted): \(text)")
    }

    /// The last three lines of git's messages that say something (not its generic advice),
    /// without credentials.
    private static func lastLines(_ text: String) -> String {
        let advice = ["Please make sure you have the correct access rights", "and the repository exists."]
        let lines = GitRemoteURL.redact(text).split(whereSeparator: \.isNewline)
            .map { $0.trimmingWhitespace() }
            .filter { line in !line.isEmpty && !advice.contains(line) }
        return lines.suffix(3).joined(separator: " / ")
    }

    /// Serialises fetches and publishes between threads and processes on one clone.
    private func withRepositoryLock<T>(_ body: () throws(SyncTransportError) -> T) throws(SyncTransportError) -> T {
        let descriptor = open(repositoryPath + "/keychainkit.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .refused("cannot open \(repositoryPath)/keychainkit.lock: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .refused("cannot lock \(repositoryPath)/keychainkit.lock: \(String(cString: strerror(errno)))") }
        }
        return try body()
    }

    private func createRepositoryIfMissing() throws(SyncTransportError) {
        var status = stat()
        if lstat(repositoryPath + "/HEAD", &status) == 0 { return }
        do {
            try FileManager.default.createDirectory(atPath: repositoryPath, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .refused("cannot create the private clone \(repositoryPath): \(SystemErrorText.of(error))")
        }
        let outcome = try run(["init", "--quiet", "--bare", "--template=", repositoryPath], deadline: .now + networkTimeout)
        guard outcome.succeeded else { throw .refused("git init \(repositoryPath) failed: \(Self.lastLines(outcome.errorText))") }
    }

    /// Settings that keep a repository from running code in a git process: no hooks (of the
    /// user's `core.hooksPath`, or of the repository itself), no command for an alternate's refs,
    /// no file-system monitor, no automatic gc or maintenance (which would run more git in that
    /// repository), and a checked-out branch is never updated in place (which would run the
    /// repository's filters). Given on the command line of the remote side's git too, where they
    /// take precedence over the repository's own configuration.
    static let hardening: [(String, String)] = [
        ("core.hooksPath", "/dev/null"),
        ("core.alternateRefsCommand", "true"),
        ("core.fsmonitor", "false"),
        ("receive.autogc", "false"),
        ("receive.denyCurrentBranch", "refuse"),
        ("gc.auto", "0"),
        ("maintenance.auto", "false"),
    ]

    /// The command git's local transport runs in the remote repository instead of plain
    /// `git-upload-pack`/`git-receive-pack` (`remote.origin.uploadpack`/`receivepack`): our git
    /// with ``hardening`` as `-c` options, which git keeps for the remote side as it starts it
    /// (it clears the settings this process passes through the environment, `GIT_CONFIG_COUNT`
    /// and `GIT_CONFIG_PARAMETERS`, before starting it), and without the leftover
    /// `GIT_CONFIG_KEY_n`/`VALUE_n` variables (the remote URL among them). git runs it through
    /// `sh -c` with the repository's path appended.
    static func remoteSideCommand(git: String, program: String, leftover: [String]) -> String {
        var words = ["env"] + leftover.flatMap { ["-u", $0] } + [shellQuoted(git)]
        for (key, value) in hardening { words += ["-c", shellQuoted("\(key)=\(value)")] }
        return (words + [program]).joined(separator: " ")
    }

    /// `text` in single quotes for `sh`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// The variables the credential helper below reads a URL's user name and password from.
    static let usernameVariable = "KEYCHAINKIT_GIT_USERNAME"
    static let passwordVariable = "KEYCHAINKIT_GIT_PASSWORD"
    /// A credential helper of our own that answers `get` with the user name and password the
    /// remote URL carried, read from the environment (readable by this user only, unlike argv).
    static let credentialHelper = "!f() { test \"$1\" = get || exit 0; printf 'username=%s\\npassword=%s\\n' "
        + "\"$\(usernameVariable)\" \"$\(passwordVariable)\"; }; f"

    /// The user's environment (ssh agent, `GIT_SSH_COMMAND`, proxies, HOME for their git config)
    /// without anything that would point git at another repository or identity, plus ours: the
    /// private clone, no prompts (a sync in the background cannot answer one: credentials come
    /// from a helper or an agent), the C locale (messages are matched), and settings passed as
    /// configuration through the environment — the remote URL among them, kept out of argv; a
    /// password or token the URL carried goes to git through a credential helper of our own
    /// instead of the URL, which git would pass to `git-remote-https` in its argv. For a local
    /// remote, git runs the remote side through ``remoteSideCommand(git:program:leftover:)``.
    static func environment(repository: String, remote: GitRemoteURL, git: String, adding extra: [String: String]) -> [String: String] {
        let kept = ["GIT_SSH", "GIT_SSL_", "GIT_HTTP_", "GIT_PROXY_", "GIT_ASKPASS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
                    "GIT_CONFIG_NOSYSTEM", "GIT_EXEC_PATH", "GIT_CURL_"]
        var environment = ProcessEnvironment.all().filter { key, _ in
            !key.hasPrefix("GIT_") || kept.contains(where: { key.hasPrefix($0) })
        }
        environment.merge(extra) { _, added in added }
        environment.removeValue(forKey: "LANGUAGE")
        environment.removeValue(forKey: usernameVariable)
        environment.removeValue(forKey: passwordVariable)
        environment["LC_ALL"] = "C"
        environment["GIT_DIR"] = repository
        environment["GIT_TERMINAL_PROMPT"] = "0"
        var settings: [(String, String)] = [
            ("remote.origin.url", remote.forGit),
            ("core.logAllRefUpdates", "false"),
            // Never sign: a signature names the user's key.
            ("commit.gpgSign", "false"),
            ("push.gpgSign", "false"),
            // Refuse malformed objects from the remote, but let entries with odd names through to
            // our own name check, which skips and reports them rather than failing every fetch.
            ("transfer.fsckObjects", "true"),
            ("fetch.fsck.hasDot", "ignore"),
            ("fetch.fsck.hasDotdot", "ignore"),
            ("fetch.fsck.hasDotgit", "ignore"),
            ("fetch.fsck.fullPathname", "ignore"),
            ("fetch.fsck.emptyName", "ignore"),
            ("fetch.recurseSubmodules", "false"),
            // Every fetch keeps what it receives as one pack (never loose objects, one file each),
            // so the file-size limit a fetch runs under caps all it brings in.
            ("fetch.unpackLimit", "1"),
            ("transfer.unpackLimit", "1"),
            // Transports that run commands, whatever a URL rewrite (`insteadOf`) makes of the URL.
            ("protocol.ext.allow", "never"),
            ("protocol.fd.allow", "never"),
        ] + hardening
        if let credential = remote.credential {
            environment[usernameVariable] = credential.username
            environment[passwordVariable] = credential.password
            // An empty value first clears the helpers of the user's configuration for this run.
            settings += [("credential.helper", ""), ("credential.helper", credentialHelper)]
        }
        let remoteSideSlots = remote.isLocal ? 2 : 0
        let count = settings.count + remoteSideSlots
        let leftover = (0..<count).flatMap { ["GIT_CONFIG_KEY_\($0)", "GIT_CONFIG_VALUE_\($0)"] }
        if remote.isLocal {
            settings.append(("remote.origin.uploadpack", remoteSideCommand(git: git, program: "upload-pack", leftover: leftover)))
            settings.append(("remote.origin.receivepack", remoteSideCommand(git: git, program: "receive-pack", leftover: leftover)))
        }
        environment["GIT_CONFIG_COUNT"] = String(settings.count)
        for (index, (key, value)) in settings.enumerated() {
            environment["GIT_CONFIG_KEY_\(index)"] = key
            environment["GIT_CONFIG_VALUE_\(index)"] = value
        }
        return environment
    }
}
