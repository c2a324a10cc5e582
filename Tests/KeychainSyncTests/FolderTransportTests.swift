import Crypto
import Foundation
import KeychainPrimitives
import KeychainSync
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// FolderTransport on a real folder, as two devices see one folder a sync tool keeps in step (here
/// both look at the same directory), with the files a sync tool and an attacker leave there.
@Suite struct FolderTransportTests: TransportTestCase {
    static func digest(_ text: String) -> String {
        "sha256:" + HexEncoding.string(SHA256.hash(data: Data(text.utf8)))
    }

    static func put(_ text: String, at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func twoDevicesShareRecords() throws {
        let scratch = try ScratchFolder("folder-devices")
        let folder = scratch.path + "/Sync/keychain"
        let a = try FolderTransport(folder: folder, create: true)
        let b = try FolderTransport(folder: folder)
        #expect(!a.supportsConditionalPublish)

        try a.publish([Self.write("keys", "bundle"), Self.write("items/aa", "secret-aa"), Self.write("members/0a1b", "member")])
        try b.refresh()
        #expect(try b.list(prefix: "").map(\.name) == ["items/aa", "keys", "members/0a1b"])
        #expect(try b.list(prefix: "items/").map(\.name) == ["items/aa"])
        let record = try #require(try b.read("items/aa"))
        #expect(Self.text(record) == "secret-aa")
        #expect(record.version == Self.digest("secret-aa"))

        // Unconditional by design: a stale expected token does not stop the write.
        try b.publish([SyncTransportChange(name: "items/aa", operation: .write(Data("from-b".utf8)), expected: .some("sha256:stale"))])
        #expect(Self.text(try a.read("items/aa")) == "from-b")
        try a.publish([.init(name: "items/aa", operation: .remove)])
        #expect(try b.read("items/aa") == nil)
        // No temporary file is left behind, and files are private to the user.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/items")
        #expect(names.isEmpty)
        var status = stat()
        #expect(lstat(folder + "/keys", &status) == 0 && status.st_mode & 0o077 == 0)
    }

    @Test("a sync folder that cannot be created: the refusal names the path and the cause, not a dump")
    func anUncreatableFolderIsRefusedReadably() throws {
        let scratch = try ScratchFolder("folder-uncreatable")
        try Self.put("not a directory", at: scratch.path + "/plain")
        let folder = scratch.path + "/plain/keychain"
        let refusal: String
        do {
            _ = try FolderTransport(folder: folder, create: true)
            Issue.record("a sync folder below a plain file cannot be created")
            return
        } catch {
            guard case .refused(let reason) = error else {
                Issue.record("expected a refusal, got \(error)")
                return
            }
            refusal = reason
        }
        #expect(refusal == "cannot create the sync folder \(folder): \(folder): Not a directory", "\(refusal)")
    }

    @Test func anUnmountedOrUnmarkedFolderIsUnreachableNotEmpty() throws {
        let scratch = try ScratchFolder("folder-unmarked")
        let missing = try FolderTransport(folder: scratch.path + "/not-mounted")
        guard case .unreachable = Self.error({ () throws(SyncTransportError) in try missing.refresh() }) else {
            Issue.record("a missing folder must be unreachable")
            return
        }
        // An empty mount point (the share is not mounted): no marker, so not "no records".
        try FileManager.default.createDirectory(atPath: scratch.path + "/empty", withIntermediateDirectories: true)
        let empty = try FolderTransport(folder: scratch.path + "/empty")
        guard case .unreachable(let reason) = Self.error({ () throws(SyncTransportError) in _ = try empty.list(prefix: "") }) else {
            Issue.record("an unmarked folder must be unreachable")
            return
        }
        #expect(reason.contains(FolderTransport.markerName))
        guard case .unreachable = Self.error({ () throws(SyncTransportError) in try empty.publish([Self.write("keys", "x")]) }) else {
            Issue.record("publishing into an unmarked folder must fail")
            return
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/empty").isEmpty)
    }

    @Test("a listing reads at most its limits, smallest first, and names what it left unread (a name with any copy unread is unread whole)")
    func listingWithinLimitsReadsSmallestFirstAndReportsTheRest() throws {
        let scratch = try ScratchFolder("folder-limits")
        let folder = scratch.path + "/shared"
        let device = try FolderTransport(folder: folder, create: true)
        try device.publish([Self.write("items/aa", "a"), Self.write("items/bb", "bb"), Self.write("items/cc", "cccccc"),
                            Self.write("items/dd", "dddddddd")])
        // A conflict copy of aa larger than the limit leaves: aa is unread as a whole.
        try Self.put(String(repeating: "x", count: 50), at: folder + "/items/aa.sync-conflict-20261125-153000-ABCDEFG")

        let byCount = try device.list(prefix: "items/", within: SyncListingLimits(maximumRecords: 3, maximumBytes: 1_000))
        #expect(byCount.records.map(\.name) == ["items/bb", "items/cc"], "the three smallest files are a, bb, cccccc; aa's copy is not")
        #expect(byCount.unread == ["items/aa", "items/dd"])

        let byBytes = try device.list(prefix: "items/", within: SyncListingLimits(maximumRecords: 100, maximumBytes: 9))
        #expect(byBytes.records.map(\.name) == ["items/bb", "items/cc"], "1 + 2 + 6 bytes fit; the 8-byte file does not")
        #expect(byBytes.unread == ["items/aa", "items/dd"])

        let all = try device.list(prefix: "items/", within: .standard)
        #expect(all.unread.isEmpty && all.records.count == 5)
        #expect(try device.list(prefix: "items/") == all.records)
    }

    @Test func syncToolConflictCopiesAreCandidatesForTheSameRecord() throws {
        let scratch = try ScratchFolder("folder-conflicts")
        let folder = scratch.path + "/shared"
        let device = try FolderTransport(folder: folder, create: true)
        try device.publish([Self.write("items/aa", "mine"), Self.write("keys", "bundle")])
        // What Syncthing, Dropbox and Nextcloud leave when two devices changed one file.
        try Self.put("syncthing's", at: folder + "/items/aa.sync-conflict-20261125-153000-ABCDEFG")
        try Self.put("dropbox's", at: folder + "/items/aa (Ada's conflicted copy 2026-11-25)")
        try Self.put("nextcloud's", at: folder + "/keys (conflicted copy 2026-11-25 153000)")
        try Self.put("mine", at: folder + "/items/aa_conflict-20261125-153000")  // same bytes as the file: nothing new
        // Sync tools' temporary files are ignored, not reported.
        try Self.put("partial", at: folder + "/items/.syncthing.aa.tmp")
        try Self.put("partial", at: folder + "/items/.~keychainkit-12ab.tmp")
        try FileManager.default.createDirectory(atPath: folder + "/.stfolder", withIntermediateDirectories: true)

        let records = try device.list(prefix: "")
        #expect(records.map(\.name) == ["items/aa", "items/aa", "items/aa", "keys", "keys"])
        #expect(Set(records.filter { $0.name == "items/aa" }.map { Self.text($0) ?? "" }) == ["mine", "syncthing's", "dropbox's"])
        #expect(Set(records.filter { $0.name == "items/aa" }.map(\.version)).count == 3)
        #expect(Set(records.filter { $0.name == "keys" }.map { Self.text($0) ?? "" }) == ["bundle", "nextcloud's"])
        #expect(device.skippedEntries.isEmpty)
        // read is the file itself.
        #expect(Self.text(try device.read("items/aa")) == "mine")

        // The caller merges Syncthing's copy and publishes conditional on it: that copy goes. The
        // Dropbox copy it did not merge stays, and so does a copy that arrived after the listing;
        // the copy that duplicated the old file is a candidate of its own again now.
        try Self.put("late", at: folder + "/items/aa.sync-conflict-20261125-160000-HIJKLMN")
        try device.publish([SyncTransportChange(name: "items/aa", operation: .write(Data("merged".utf8)),
                                                expected: .some(Self.digest("syncthing's")))])
        let after = try device.list(prefix: "items/")
        #expect(Set(after.map { Self.text($0) ?? "" }) == ["merged", "dropbox's", "late", "mine"])
        let left = try FileManager.default.contentsOfDirectory(atPath: folder + "/items").sorted()
        #expect(left == [".syncthing.aa.tmp", ".~keychainkit-12ab.tmp", "aa", "aa (Ada's conflicted copy 2026-11-25)",
                         "aa.sync-conflict-20261125-160000-HIJKLMN", "aa_conflict-20261125-153000"])
        // An unconditional publish removes no copy; one conditional on the file's own version
        // removes the copies that held the same bytes as the file.
        try device.publish([Self.write("items/aa", "again")])
        #expect(try device.list(prefix: "items/").count == 4)
        try Self.put("again", at: folder + "/items/aa (conflicted copy 2026-11-25 170000)")
        #expect(try device.list(prefix: "items/").count == 4)  // same bytes as the file: not a new candidate
        try device.publish([SyncTransportChange(name: "items/aa", operation: .write(Data("final".utf8)), expected: .some(Self.digest("again")))])
        #expect(!FileManager.default.fileExists(atPath: folder + "/items/aa (conflicted copy 2026-11-25 170000)"))
        #expect(try device.list(prefix: "items/").count == 4)
    }

    @Test func hostileEntriesAreSkippedReportedAndNeverFollowed() throws {
        let scratch = try ScratchFolder("folder-hostile")
        let folder = scratch.path + "/shared"
        let outside = scratch.path + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Self.put("outside secret", at: outside + "/target")
        let device = try FolderTransport(folder: folder, create: true)
        try device.publish([Self.write("keys", "bundle")])

        // Links to outside the folder, as a file and as a directory; a FIFO (opening it would
        // block); names outside the rules; an oversized file.
        try FileManager.default.createDirectory(atPath: folder + "/items", withIntermediateDirectories: true)
        #expect(symlink(outside + "/target", folder + "/items/ab") == 0)
        #expect(symlink(outside, folder + "/members") == 0)
        #expect(mkfifo(folder + "/items/fifo", 0o600) == 0)
        try Self.put("x", at: folder + "/items/UPPER")
        try Self.put("x", at: folder + "/items/new\nline")
        try Self.put(String(repeating: "z", count: (1 << 20) + 1), at: folder + "/items/big")
        try Self.put("ok", at: folder + "/items/ok")

        #expect(try device.list(prefix: "").map(\.name) == ["items/ok", "keys"])
        #expect(try device.read("items/ab") == nil)
        #expect(try device.read("members/target") == nil)
        let skipped = Dictionary(uniqueKeysWithValues: device.skippedEntries.map { ($0.path, $0.reason) })
        #expect(Set(skipped.keys) == ["items/ab", "members", "items/fifo", "items/UPPER", "items/new\\x0aline", "items/big"])
        #expect(skipped["members"]?.contains("symbolic link") == true)

        // A write never goes through the planted directory link.
        guard case .malformed = Self.error({ () throws(SyncTransportError) in try device.publish([Self.write("members/planted", "x")]) }) else {
            Issue.record("writing through a linked directory must be refused")
            return
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside) == ["target"])
        // Writing over a linked file replaces the link; the target is untouched.
        try device.publish([Self.write("items/ab", "replaced")])
        #expect(try String(contentsOfFile: outside + "/target", encoding: .utf8) == "outside secret")
        #expect(Self.text(try device.read("items/ab")) == "replaced")
    }

    @Test func waitForChangePollsTheFolder() throws {
        let scratch = try ScratchFolder("folder-wait")
        let folder = scratch.path + "/shared"
        let a = try FolderTransport(folder: folder, create: true, pollInterval: .milliseconds(100))
        let b = try FolderTransport(folder: folder, pollInterval: .milliseconds(100))
        try a.publish([Self.write("keys", "k")])
        try Self.expectWaitSeesChange(writer: a, reader: b, quiet: .milliseconds(500), writeAfter: 0.3)
    }

    @Test func badNamesAreRefusedOnTheWayIn() throws {
        let scratch = try ScratchFolder("folder-names")
        let device = try FolderTransport(folder: scratch.path + "/shared", create: true)
        Self.expectNamesRefused(["../x", "/etc/passwd", "items/../../x", "Items/AB", ".stfolder/x", "items//a", "", "items/.~keychainkit-1"],
                                by: device)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/x"))
    }
}
