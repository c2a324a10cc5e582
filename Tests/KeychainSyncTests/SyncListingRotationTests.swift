import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing
@testable import KeychainSync

/// More records on the transport than one pass reads: which ones a pass reads rotates, so that a
/// writer who floods the transport with records of an honest record's size, under names that sort
/// first, cannot keep the same honest records unread forever; and `sync status` shows what the
/// last pass left unread.
@Suite("listing rotation over the per-pass limits")
struct SyncListingRotationTests {
    @Test("records of one size are read from where the last listing stopped, wrapping round; smaller ones still first")
    func selectionResumesWhereTheLastStopped() {
        let limits = SyncListingLimits(maximumRecords: 3, maximumBytes: 1_000)
        let candidates: [(name: String, size: Int)] = ["a", "b", "c", "d", "e"].map { ($0, 10) } + [("z", 5)]
        let first = limits.select(candidates)
        #expect(Set(first.read.map { candidates[$0].name }) == ["z", "a", "b"])
        #expect(first.unread == ["c", "d", "e"] && first.resumeAfter == "b")
        var next = limits
        next.resumingAfter = first.resumeAfter
        let second = next.select(candidates)
        #expect(Set(second.read.map { candidates[$0].name }) == ["z", "c", "d"], "the smaller record first, then those after the cursor")
        next.resumingAfter = second.resumeAfter
        let third = next.select(candidates)
        #expect(Set(third.read.map { candidates[$0].name }) == ["z", "e", "a"], "wrapping round to the start")
        #expect(SyncListingLimits(maximumRecords: 10, maximumBytes: 1_000).select(candidates).resumeAfter == nil,
                "nothing left unread: no cursor")
    }

    @Test("a folder flooded with more than 4,096 records of an honest record's size, named to sort first: the honest record is still read within two passes", .reliability, .tags(.reliability))
    func floodWithHonestSizedRecordsDoesNotStarve() throws {
        let scratch = try ScratchFolder("sync-rotation")
        let folder = scratch.path + "/keychain"
        _ = try FolderTransport(folder: folder, create: true)
        let circle = try DeviceCircle(["rotation-a", "rotation-b"], location: folder, opener: { _ in
            { (location: String, _: String) throws(SyncError) -> any SyncTransport in
                do throws(SyncTransportError) { return try FolderTransport(folder: location) } catch { throw .transport(error) }
            }
        })
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.add("mail", "m-1")
        #expect(try a.sync().pushed == 1)
        let transport = try FolderTransport(folder: folder)
        let honest = try #require(try transport.items().first)
        // Garbage of exactly the honest record's size, under names that sort before every real one.
        let limit = SyncListingLimits.standard.maximumRecords
        let itemsFolder = URL(fileURLWithPath: folder + "/" + CircleLayout.itemsPrefix)
        for index in 0..<(limit + 100) {
            let name = String(repeating: "0", count: 56) + String(format: "%08x", index)
            #expect(name < String(honest.name.dropFirst(CircleLayout.itemsPrefix.count)))
            try Data(repeating: UInt8(index & 0xff), count: honest.bytes.count).write(to: itemsFolder.appendingPathComponent(name))
        }

        let first = try b.sync()
        let second = first.pulled == 1 ? first : try b.sync()
        #expect(first.unread > 0 && first.pulled + second.pulled == 1, "first \(first), second \(second)")
        #expect(try b.contents() == ["mail": "m-1"], "the honest record is read within two passes")
        // `sync status` shows what the last pass left unread.
        let status = try b.synchronizer.status()
        #expect((status.lastPass?.unread ?? 0) > 0, "\(String(describing: status.lastPass))")
    }
}
