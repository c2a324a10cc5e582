import KeychainPrimitives
import Foundation
import KeychainStore
import KeychainTestSupport
import RequiredToolSupport
import Testing
@testable import KeychainSync

/// The sync protocol over the transports personal machines use: a bare git repository over
/// file:// and a shared folder, with two and three devices, an attacker who can write to the
/// repository or folder, a force-push that rewinds the remote, and devices working offline.
@Suite("Sync over git and a shared folder", .serialized, .integration, .tags(.external, .git))
struct PersonalSyncTests {
    // MARK: Set-up

    /// Opens a git transport on the remote the circle state names, with this device's private
    /// clone beside its keychain (as keychainctl does).
    static func gitOpener(_ directory: URL) -> SyncTransportOpener {
        let clone = directory.appendingPathComponent("login.keychain-db.sync/git").path
        return { (location: String, _: String) throws(SyncError) -> any SyncTransport in
            do throws(SyncTransportError) {
                return try GitTransport(remote: location, repositoryPath: clone, networkTimeout: .seconds(60), pollInterval: .milliseconds(200))
            } catch {
                throw .transport(error)
            }
        }
    }

    static func folderOpener(_: URL) -> SyncTransportOpener {
        { (location: String, _: String) throws(SyncError) -> any SyncTransport in
            do throws(SyncTransportError) {
                return try FolderTransport(folder: location, pollInterval: .milliseconds(200))
            } catch {
                throw .transport(error)
            }
        }
    }

    /// Devices in one circle over `location`, reached through `opener`.
    /// Devices in one circle over `location`, reached through `opener`; those whose index is in
    /// `ownClocks` keep time by a clock of their own.
    static func circle(count: Int, location: String, ownClocks: Set<Int> = [],
                       opener: @escaping (URL) -> SyncTransportOpener) throws -> DeviceCircle {
        try DeviceCircle((0..<count).map { "personal-\($0)" }, location: location, ownClocks: Set(ownClocks.map { "personal-\($0)" }),
                         opener: opener)
    }

    static func gitCircle(count: Int = 2) throws -> (DeviceCircle, GitRemote) {
        let remote = try GitRemote()
        return (try circle(count: count, location: remote.fileURL, opener: gitOpener), remote)
    }

    static func folderCircle(count: Int = 2, ownClocks: Set<Int> = []) throws -> (DeviceCircle, ScratchFolder) {
        let scratch = try ScratchFolder("sync-folder")
        let folder = scratch.path + "/keychain"
        _ = try FolderTransport(folder: folder, create: true)  // what `sync create --transport folder` makes
        return (try circle(count: count, location: folder, ownClocks: ownClocks, opener: folderOpener), scratch)
    }

    /// The error `body` throws, or nil (with an issue recorded) when it succeeds.
    static func syncError(_ body: () throws -> Void) -> SyncError? {
        do {
            try body()
            Issue.record("expected a SyncError, got success")
            return nil
        } catch let error as SyncError {
            return error
        } catch {
            Issue.record("expected a SyncError, got \(error)")
            return nil
        }
    }

    // MARK: Create, join, sponsor, sync

    static func exerciseTwoDevices(_ circle: DeviceCircle) throws {
        let (a, b) = (circle.devices[0], circle.devices[1])
        #expect(try a.synchronizer.members().count == 2)
        try a.add("mail", "m-1")
        try a.add("bank", "b-1")
        #expect(try a.sync().pushed == 2)
        #expect(try b.sync().pulled == 2)
        #expect(try b.contents() == ["mail": "m-1", "bank": "b-1"])
        try b.update("mail", "m-2")
        try b.delete("bank")
        #expect(try b.sync().pushed == 2)
        #expect(try a.sync().pulled == 2)
        #expect(try a.contents() == ["mail": "m-2"])
        #expect(try a.sync().pushed + a.sync().pulled == 0, "nothing left to do once both agree")
    }

    @Test("create, join, sponsor and sync between two devices over a bare git repository (file://)")
    func twoDevicesOverGit() throws {
        let (circle, remote) = try Self.gitCircle()
        try Self.exerciseTwoDevices(circle)
        // Each device's clone is beside its keychain; the remote's commits name nobody and no time.
        #expect(FileManager.default.fileExists(atPath: circle.devices[1].directory.appendingPathComponent("login.keychain-db.sync/git").path))
        let log = try Shell.git(remote.repository, ["log", "--format=%an <%ae> %at %cn %ct %s", "keychainkit"])
        #expect(Set(log.split(separator: "\n")) == ["keychainkit <keychainkit@invalid> 0 keychainkit 0 keychainkit sync"])
    }

    @Test("create, join, sponsor and sync between two devices over git:// (git daemon on loopback)")
    func twoDevicesOverGitDaemon() throws {
        let remote = try GitRemote()
        let daemon = try GitDaemon(serving: remote.scratch.path, log: remote.scratch.path + "/daemon.log")
        try Self.exerciseTwoDevices(try Self.circle(count: 2, location: daemon.url("remote.git"), opener: Self.gitOpener))
        withExtendedLifetime(daemon) {}
    }

    @Test("create, join, sponsor and sync between two devices over a shared folder")
    func twoDevicesOverFolder() throws {
        let (circle, scratch) = try Self.folderCircle()
        try Self.exerciseTwoDevices(circle)
        withExtendedLifetime(scratch) {}
    }

    // MARK: An attacker with write access to the repository

    @Test("an attacker who can push to the remote: a forged, a renamed and a replayed record are refused and nothing is lost")
    func attackerOverGit() throws {
        let (circle, remote) = try Self.gitCircle()
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "m-1")
        try a.add("bank", "b-1")
        try circle.syncAll()
        let scratch = try ScratchFolder("attacker")
        let attacker = try GitTransport(remote: remote.fileURL, repositoryPath: scratch.path + "/clone.git")
        try attacker.refresh()
        let items = try attacker.list(prefix: "items/").sorted { $0.name < $1.name }
        #expect(items.count == 2)
        let oldFirst = items[0]

        try a.update("mail", "m-2")
        try a.update("bank", "b-2")
        try a.sync()
        try attacker.refresh()
        let newItems = try attacker.list(prefix: "items/").sorted { $0.name < $1.name }
        // Replay: the first record's old (genuinely signed) version put back. Rename: the second
        // record's bytes under the first record's name's neighbour. Forgery: random bytes.
        var forged = newItems[1].bytes
        forged[forged.count / 2] ^= 0x01
        try attacker.publish([
            SyncTransportChange(name: oldFirst.name, operation: .write(oldFirst.bytes)),
            SyncTransportChange(name: "items/" + String(repeating: "ab", count: 32), operation: .write(newItems[0].bytes)),
            SyncTransportChange(name: newItems[1].name, operation: .write(forged)),
        ])
        let report = try b.sync()
        #expect(report.refused >= 2, "the forged and the renamed record do not open")
        // B (which had not seen A's updates) takes nothing from the attacker: the replay is the
        // version it has, the forgery and the renamed copy do not open.
        #expect(try b.contents() == ["mail": "m-1", "bank": "b-1"])
        try a.sync()  // A republishes its newer versions over the replay and the forgery
        try b.sync()
        #expect(try b.contents() == ["mail": "m-2", "bank": "b-2"])
        #expect(try a.contents() == ["mail": "m-2", "bank": "b-2"])
    }

    // MARK: A force-push that rewinds the remote

    @Test("a force-push of an old commit is reported as .rewound on both devices, never applied as deletions; adopting it republishes")
    func forcePushRewind() throws {
        let (circle, remote) = try Self.gitCircle()
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "m-1")
        try a.sync()
        let old = try #require(try remote.head())
        try a.add("bank", "b-1")
        try a.update("mail", "m-2")
        try a.sync()
        try b.sync()
        #expect(try b.contents() == ["mail": "m-2", "bank": "b-1"])

        // Someone with push access rewinds the branch to the old commit, as `git push --force` does.
        let work = try ScratchFolder("force-push")
        try Shell.run(["git", "clone", "--quiet", "--bare", remote.fileURL, work.path + "/clone.git"])
        try Shell.git(work.path + "/clone.git", ["push", "--quiet", "--force", remote.fileURL, "\(old):refs/heads/keychainkit"])
        #expect(try remote.head() == old)

        for device in [b, a] {
            guard case .transport(.rewound(let reason))? = Self.syncError({ try device.sync() }) else {
                Issue.record("a rewound remote must stop sync with .rewound")
                continue
            }
            #expect(reason.contains("force-push"), "\(reason)")
            #expect(try device.contents() == ["mail": "m-2", "bank": "b-1"], "nothing deleted or rolled back")
        }
        // Told on purpose that the rewind is accepted, A puts its records back; B follows.
        try a.synchronizer.adoptRemoteHistory()
        #expect(try a.sync().pushed == 2)
        try b.synchronizer.adoptRemoteHistory()
        try b.sync()
        #expect(try b.contents() == ["mail": "m-2", "bank": "b-1"])
        #expect(try remote.head() != old)
    }

    // MARK: Offline first

    @Test("offline over git: sync reports the remote unreachable, the keychain keeps working, and the changes are published at the next sync")
    func offlineOverGit() throws {
        let (circle, remote) = try Self.gitCircle()
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "m-1")
        try circle.syncAll()
        let away = remote.repository + ".away"
        try FileManager.default.moveItem(atPath: remote.repository, toPath: away)  // the remote cannot be reached
        try a.update("mail", "m-2")
        try a.add("bank", "b-1")
        guard case .transport(.unreachable)? = Self.syncError({ try a.sync() }) else {
            Issue.record("an unreachable remote is reported as such")
            return
        }
        #expect(try a.contents() == ["mail": "m-2", "bank": "b-1"], "local changes stay")
        try FileManager.default.moveItem(atPath: away, toPath: remote.repository)
        #expect(try a.sync().pushed == 2)
        try b.sync()
        #expect(try b.contents() == ["mail": "m-2", "bank": "b-1"])
    }

    /// Three devices edit the same and different items while the transport is unreachable
    /// (`goOffline`/`goOnline`), then sync in `order`; all must converge on the newest edit of
    /// each item.
    static func offlineEditsConverge(_ circle: DeviceCircle, order: [Int], round: Int, goOffline: () throws -> Void, goOnline: () throws -> Void) throws {
        let devices = circle.devices
        let shared = "shared-\(round)"
        try devices[0].add(shared, "base")
        try devices[0].add("doomed-\(round)", "x")
        try circle.syncAll()
        try goOffline()
        // Edits in time order: the last edit of `shared` is the newest and must win everywhere.
        circle.tick()
        try devices[order[0]].update(shared, "first")
        try devices[order[1]].add("own-\(round)-\(order[1])", "mine")
        try devices[order[2]].delete("doomed-\(round)")
        circle.tick()
        try devices[order[1]].update(shared, "second")
        circle.tick()
        try devices[order[2]].update(shared, "third")
        for device in devices {
            let error = Self.syncError { try device.sync() }
            if case .transport(.unreachable)? = error { continue }
            Issue.record("offline sync must report the transport unreachable, got \(String(describing: error))")
        }
        try goOnline()
        for index in order + order { try devices[index].sync() }
        let expected = try devices[0].contents()
        #expect(expected["shared-\(round)"] == "third", "order \(order)")
        #expect(expected["doomed-\(round)"] == nil, "order \(order)")
        #expect(expected["own-\(round)-\(order[1])"] == "mine", "order \(order)")
        for device in devices { #expect(try device.contents() == expected, "order \(order)") }
    }

    static let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]

    @Test("three devices edit offline over git, then sync in every order: they converge on each item's newest version")
    func threeDevicesOfflineOverGit() throws {
        let (circle, remote) = try Self.gitCircle(count: 3)
        let away = remote.repository + ".away"
        for (round, order) in Self.orders.enumerated() {
            try Self.offlineEditsConverge(circle, order: order, round: round,
                                          goOffline: { try FileManager.default.moveItem(atPath: remote.repository, toPath: away) },
                                          goOnline: { try FileManager.default.moveItem(atPath: away, toPath: remote.repository) })
        }
    }

    @Test("three devices edit offline over a shared folder (not mounted), then sync in every order: they converge")
    func threeDevicesOfflineOverFolder() throws {
        let (circle, scratch) = try Self.folderCircle(count: 3)
        let away = scratch.path + "/unmounted"
        for (round, order) in Self.orders.enumerated() {
            try Self.offlineEditsConverge(circle, order: order, round: round,
                                          goOffline: { try FileManager.default.moveItem(atPath: circle.location, toPath: away) },
                                          goOnline: { try FileManager.default.moveItem(atPath: away, toPath: circle.location) })
        }
    }

    @Test("concurrent pushes: two devices that both changed different items since their last fetch both land (fetch, merge, retry)")
    func concurrentPushes() throws {
        let (circle, remote) = try Self.gitCircle(count: 2)
        defer { withExtendedLifetime(remote) {} }
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("one", "1")
        try b.add("two", "2")
        let failure = NSLock()
        nonisolated(unsafe) var aFailure: (any Error)?
        let firstDone = DispatchSemaphore(value: 0)
        let first = Thread {
            do { try a.sync() } catch { failure.withLock { aFailure = error } }
            firstDone.signal()
        }
        first.start()
        try b.sync()
        firstDone.wait()
        #expect(failure.withLock { aFailure } == nil, "a publish that lost the race fetches, merges and retries")
        try circle.syncAll()
        #expect(try a.contents() == ["one": "1", "two": "2"])
        #expect(try b.contents() == ["one": "1", "two": "2"])
    }

    // MARK: Hybrid logical clock

    @Test("a device whose clock is behind edits an item after pulling a version stamped by a clock 5 minutes ahead: its later edit wins everywhere (hybrid logical clock), nothing is lost")
    func slowClockEditWins() throws {
        let (circle, scratch) = try Self.folderCircle(ownClocks: [0])
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "m-1")
        try circle.syncAll()
        // A's clock runs 5 minutes ahead (within what receivers accept): its next version of the
        // item is stamped then, by A's own keychain and synchronizer.
        a.clock.advance(by: .seconds(300))
        try a.update("mail", "m-ahead")
        #expect(try a.sync().pushed == 1)
        let stamped = try #require(try b.synchronizer.history(account: "mail").first)
        #expect(stamped.date.timeIntervalSince(b.clock.date()) >= 299, "the version carries A's clock, 5 minutes ahead of B's")
        #expect(try b.sync().pulled == 1)
        #expect(try b.secret("mail") == "m-ahead")
        // B edits after seeing that version, by a clock 5 minutes behind the stamp.
        try b.update("mail", "m-b")
        #expect(try b.sync().pushed == 1, "B's later edit is newer than the version it saw")
        try circle.syncAll()
        #expect(try a.secret("mail") == "m-b")
        #expect(try b.secret("mail") == "m-b")
        withExtendedLifetime(scratch) {}
    }

    @Test("a device whose clock runs an hour ahead: the others refuse its edit (never applied) and their own later edits stand")
    func fastClockEditRefused() throws {
        let (circle, scratch) = try Self.folderCircle(ownClocks: [0])
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "m-1")
        try circle.syncAll()
        a.clock.advance(by: .seconds(3600))  // beyond what receivers accept
        try a.update("mail", "m-ahead")
        try a.sync()
        let report = try b.sync()
        #expect(report.refused == 1 && report.pulled == 0)
        #expect(try b.secret("mail") == "m-1", "nothing dated an hour ahead is applied")
        try b.update("mail", "m-b")
        try circle.syncAll()
        #expect(try b.secret("mail") == "m-b", "B's own edit stands")
        withExtendedLifetime(scratch) {}
    }

    // MARK: History

    @Test("history keeps every version of an item, the deletion included; restoring one across the deletion brings it back on every device")
    func historyAndRestoreAcrossDeletion() throws {
        let (circle, remote) = try Self.gitCircle()
        defer { withExtendedLifetime(remote) {} }
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "m-1")
        try a.sync()
        try a.update("mail", "m-2")
        try a.sync()
        try b.sync()
        try b.delete("mail")
        try b.sync()
        try a.sync()
        #expect(try a.secret("mail") == nil)

        let history = try a.synchronizer.history(account: "mail")
        #expect(history.map(\.number) == [1, 2, 3])
        #expect(history.map(\.isDeletion) == [true, false, false])
        #expect(history[0].device == HexEncoding.string(try b.state().deviceID))
        #expect(try b.synchronizer.history(account: "mail", service: "svc") == history, "every device sees the same history")
        #expect(history[0].date >= history[1].date && history[1].date >= history[2].date)

        // Out of range, a deletion, an unknown account: clear refusals, nothing changed.
        #expect(Self.syncError { try a.synchronizer.restore(account: "mail", version: 4) } == .noSuchVersion(4, available: 3))
        #expect(Self.syncError { try a.synchronizer.restore(account: "mail", version: 1) } == .versionIsDeletion(1))
        #expect(Self.syncError { _ = try a.synchronizer.history(account: "nobody") } == .itemNotInHistory("nobody"))

        let restored = try a.synchronizer.restore(account: "mail", version: 3)
        #expect(restored.pushed == 1)
        #expect(try a.secret("mail") == "m-1")
        try b.sync()
        #expect(try b.secret("mail") == "m-1")
        #expect(try a.synchronizer.history(account: "mail").map(\.isDeletion) == [false, true, false, false])
    }

    @Test("a sync tool's conflict copy beside a record: the newest verified version wins, whichever file holds it")
    func conflictCopyCandidates() throws {
        for newestInCopy in [true, false] {
            let (circle, scratch) = try Self.folderCircle(count: 3)
            let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
            try a.add("mail", "base")
            try circle.syncAll()
            let name = "items/" + (try #require(try a.state().synced.first?.key))
            let file = URL(fileURLWithPath: circle.location + "/" + name)
            try a.update("mail", "older")
            try a.sync()
            let older = try Data(contentsOf: file)
            try b.sync()
            try b.update("mail", "newest")
            try b.sync()
            let newest = try Data(contentsOf: file)
            #expect(newest != older)
            // What Syncthing leaves after two devices wrote the file while apart: one version in
            // the file, the other in a conflict copy beside it.
            let copy = URL(fileURLWithPath: file.path + ".sync-conflict-20261125-153000-ABCDEFG")
            try (newestInCopy ? older : newest).write(to: file)
            try (newestInCopy ? newest : older).write(to: copy)
            try c.sync()
            #expect(try c.secret("mail") == "newest", "newest in the conflict copy: \(newestInCopy)")
            withExtendedLifetime(scratch) {}
        }
    }

    @Test("a local edit that loses to a concurrent newer one is kept in history, not dropped; history is trimmed to its depth")
    func losingEditKeptAndDepth() throws {
        let (circle, scratch) = try Self.folderCircle()
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "base")
        try circle.syncAll()
        try b.update("mail", "older-edit")
        circle.tick()
        try a.update("mail", "newer-edit")
        try a.sync()
        let report = try b.sync()
        #expect(report.kept == 1 && report.pulled == 1)
        #expect(try b.secret("mail") == "newer-edit")
        let history = try b.synchronizer.history(account: "mail")
        #expect(history.count == 3, "newer, the losing edit, base")
        let losing = try #require(history.dropFirst().first)
        #expect(losing.device == HexEncoding.string(try b.state().deviceID))
        try b.synchronizer.restore(account: "mail", version: 2)
        #expect(try b.secret("mail") == "older-edit", "the losing edit can be restored")
        try a.sync()
        #expect(try a.secret("mail") == "older-edit")

        a.synchronizer.historyDepth = 2
        for round in 0..<4 {
            try a.update("mail", "edit-\(round)")
            try a.sync()
        }
        let folder = try FolderTransport(folder: circle.location)
        let name = try #require(try a.state().synced.first?.key)
        #expect(try folder.list(prefix: "history/\(name)/").count == 2)
        #expect(try a.synchronizer.history(account: "mail").count == 3, "the current version and two earlier ones")
        withExtendedLifetime(scratch) {}
    }

    @Test("nothing in the remote's commits tells items apart: opaque file names, fixed identity and dates, record sizes in buckets")
    func commitsRevealNothing() throws {
        let (circle, remote) = try Self.gitCircle()
        let a = circle.devices[0]
        try a.add("x", "1")
        try a.add("a-much-longer-account-name@example.com", String(repeating: "long secret ", count: 20))
        try a.sync()
        try a.update("x", "2")
        try a.sync()
        let tree = try Shell.git(remote.repository, ["ls-tree", "-r", "-l", "keychainkit"])
        var sizes = Set<String>()
        for line in tree.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let (size, path) = (String(fields[3]), String(fields[4]))
            guard let prefix = ["items/", "history/"].first(where: { path.hasPrefix($0) }) else { continue }
            #expect(path.dropFirst(prefix.count).allSatisfy { "0123456789abcdef/".contains($0) }, "opaque names only: \(path)")
            sizes.insert(size)
        }
        #expect(sizes.count == 1, "a 1-byte and a 240-byte secret give records of one size: \(sizes)")
        let everything = try Shell.git(remote.repository, ["log", "-p", "--format=%an%ae%at%cn%ce%ct%B", "keychainkit"])
        #expect(!everything.contains("example.com") && !everything.contains("long secret"))
    }

    @Test("history entries are verified like records: one moved to another item's history, or forged, is neither listed nor restorable")
    func hostileHistoryEntries() throws {
        let (circle, scratch) = try Self.folderCircle()
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "m-1")
        try a.add("bank", "b-1")
        try a.sync()
        try a.update("mail", "m-2")
        try a.update("bank", "b-2")
        try a.sync()
        try b.sync()
        let before = (try b.synchronizer.history(account: "mail"), try b.synchronizer.history(account: "bank"))
        #expect(before.0.count == 2 && before.1.count == 2)

        // Someone with write access to the folder copies each item's history entries into the
        // other's history, and plants a forged entry (a genuine one with a flipped byte).
        let folder = try FolderTransport(folder: circle.location)
        let names = try a.state().synced.keys.sorted()
        var changes: [SyncTransportChange] = []
        for (from, to) in [(names[0], names[1]), (names[1], names[0])] {
            for (index, entry) in try folder.list(prefix: "history/\(from)/").enumerated() {
                changes.append(SyncTransportChange(name: "history/\(to)/" + String(repeating: "\(index)", count: 32), operation: .write(entry.bytes)))
                var forged = entry.bytes
                forged[forged.count - 100] ^= 0x01
                changes.append(SyncTransportChange(name: "history/\(from)/" + String(repeating: "f", count: 31) + "\(index)", operation: .write(forged)))
            }
        }
        #expect(changes.count == 4, "each item has one earlier version to move and forge")
        try folder.publish(changes)
        #expect(try b.synchronizer.history(account: "mail") == before.0)
        #expect(try b.synchronizer.history(account: "bank") == before.1)
        try b.synchronizer.restore(account: "bank", version: 2)
        #expect(try b.secret("bank") == "b-1")
        #expect(try b.secret("mail") == "m-2")
        withExtendedLifetime(scratch) {}
    }
}
