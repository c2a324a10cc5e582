import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing
@testable import KeychainSync

/// The cap on what one git fetch may bring into a device's private clone, against a real bare
/// repository an attacker pushed a file far larger than any record to. The cap is made small here
/// (256 KiB, through the transport's `maximumFetchBytes`) so that the test's data stays small; the
/// product's is ``GitTransport/standardFetchLimit``.
@Suite("git fetch cap (real git)", .serialized, .integration, .tags(.external, .git))
struct GitFetchLimitTests {
    static let cap = 256 << 10

    static func opener(_ directory: URL) -> SyncTransportOpener {
        let clone = directory.appendingPathComponent("login.keychain-db.sync/git").path
        return { (location: String, _: String) throws(SyncError) -> any SyncTransport in
            do throws(SyncTransportError) {
                return try GitTransport(remote: location, repositoryPath: clone, networkTimeout: .seconds(60), maximumFetchBytes: cap)
            } catch {
                throw .transport(error)
            }
        }
    }

    /// Bytes of every file under `path`, and the names of any partial packs (`tmp_*`) left there.
    static func footprint(_ path: String) -> (bytes: Int, partial: [String]) {
        var bytes = 0
        var partial: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            let attributes = (try? FileManager.default.attributesOfItem(atPath: path + "/" + name)) ?? [:]
            if attributes[.type] as? FileAttributeType == .typeRegular { bytes += (attributes[.size] as? Int) ?? 0 }
            if (name as NSString).lastPathComponent.hasPrefix("tmp_") { partial.append(name) }
        }
        return (bytes, partial)
    }

    /// Pushes a commit holding `size` random bytes at `path` on top of the remote's branch, as
    /// anyone with push access can.
    static func pushLargeFile(to remote: GitRemote, path: String, size: Int) throws {
        let scratch = try ScratchFolder("fetch-attacker")
        let work = scratch.path + "/work"
        try Shell.run(["git", "clone", "--quiet", "--branch", "keychainkit", remote.fileURL, work])
        let file = URL(fileURLWithPath: work + "/" + path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        var random = SystemRandomNumberGenerator()
        try Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: file)
        _ = try Shell.git(work + "/.git", ["-c", "user.name=x", "-c", "user.email=x@invalid", "-C", work, "add", "--all"])
        _ = try Shell.git(work + "/.git", ["-c", "user.name=x", "-c", "user.email=x@invalid", "-C", work, "commit", "--quiet", "-m", "x"])
        _ = try Shell.git(work + "/.git", ["-C", work, "push", "--quiet", "origin", "HEAD:refs/heads/keychainkit"])
    }

    @Test("a file over the fetch cap pushed to the remote is refused at fetch: nothing written, nothing lost, the clone still usable")
    func oversizedPushRefusedAtFetch() throws {
        let remote = try GitRemote()
        let circle = try DeviceCircle(["fetch-a", "fetch-b"], location: remote.fileURL, opener: Self.opener)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "m-1")
        try circle.syncAll()
        #expect(try b.contents() == ["mail": "m-1"])
        let honestHead = try #require(try remote.head())
        let clone = b.directory.appendingPathComponent("login.keychain-db.sync/git").path
        let before = Self.footprint(clone).bytes

        // Four times the cap of incompressible bytes, under a name no record has.
        try Self.pushLargeFile(to: remote, path: "items/" + String(repeating: "ab", count: 32), size: 4 * Self.cap)
        let error = PersonalSyncTests.syncError { _ = try b.sync() }
        guard case .transport(.malformed(let reason))? = error else {
            Issue.record("expected the fetch to be refused as over the cap, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("256 KiB, the cap on one fetch"))
        #expect(reason.contains("adopt-remote-history"), "the message names the fix")
        // Git stopped at the cap and the partial pack is gone: the clone grew by nothing.
        let after = Self.footprint(clone)
        #expect(after.partial.isEmpty, "partial packs left behind: \(after.partial)")
        #expect(after.bytes < before + Self.cap, "the clone grew from \(before) to \(after.bytes) bytes")
        #expect(try b.contents() == ["mail": "m-1"], "nothing synchronized before is lost")

        // The owner rewrites the branch without the file: the same device syncs again on the
        // same clone, and a change made meanwhile travels.
        _ = try Shell.git(remote.repository, ["update-ref", "refs/heads/keychainkit", honestHead])
        try b.update("mail", "m-2")
        circle.tick()
        #expect(try b.sync().pushed == 1)
        #expect(try a.sync().pulled == 1)
        #expect(try a.contents() == ["mail": "m-2"])
    }

    @Test("a fetch within the cap is not affected by it: an honest first fetch of many records")
    func honestFetchWithinCap() throws {
        let remote = try GitRemote()
        let scratch = try ScratchFolder("fetch-honest")
        let a = try GitTransport(remote: remote.fileURL, repositoryPath: scratch.path + "/a.git", maximumFetchBytes: Self.cap)
        let b = try GitTransport(remote: remote.fileURL, repositoryPath: scratch.path + "/b.git", maximumFetchBytes: Self.cap)
        try a.refresh()
        try a.publish((0..<100).map { SyncTransportChange(name: "items/\($0)", operation: .write(Data(repeating: UInt8($0), count: 1024))) })
        try b.refresh()
        #expect(try b.list(prefix: "items/").count == 100)
        #expect(Self.footprint(scratch.path + "/b.git").partial.isEmpty)
    }
}
