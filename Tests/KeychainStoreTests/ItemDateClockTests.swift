import Foundation
import KeychainTestSupport
import KeychainVocabulary
import Testing
@testable import KeychainStore

/// The dates the store stamps (creation, modification, deletion) come from
/// `Options.currentDate`: what sync orders edits by, and what its tests set with a ManualClock.
@Suite("Item dates read the keychain's clock")
struct ItemDateClockTests {
    private static func date(_ item: KeychainItem?, _ name: String) -> Date? {
        guard case .date(let date)? = item?.attributes[name] else { return nil }
        return date
    }

    private static func isClose(_ date: Date?, to expected: Date) -> Bool {
        guard let date else { return false }
        return abs(date.timeIntervalSince(expected)) < 0.000_5  // the store keeps dates to well under a millisecond
    }

    @Test("creation, modification and deletion times are the clock's; two edits within one tick still move the modification date forward")
    func datesFollowTheClock() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let clock = ManualClock()
        var options = keychain.options
        options.currentDate = { clock.date() }
        let database = try keychain.open(password: nil, options: options)
        var synchronizable = query(account: "a")
        synchronizable.synchronizable = true
        let start = clock.date()

        var item = genericPassword(account: "a", secret: "1")
        item.attributes["sync"] = .number(1)
        _ = try database.insert(item)
        let added = try database.find(synchronizable, decrypt: true).first
        #expect(Self.isClose(Self.date(added, "cdat"), to: start) && Self.isClose(Self.date(added, "mdat"), to: start))

        clock.advance(by: .seconds(3600))  // an hour later, by this keychain's clock only
        var changes = ItemChanges()
        changes.data = Data("2".utf8)
        try database.update(synchronizable, with: changes)
        let edited = try database.find(synchronizable, decrypt: true).first
        #expect(Self.isClose(Self.date(edited, "mdat"), to: start.addingTimeInterval(3600)))
        #expect(Self.isClose(Self.date(edited, "cdat"), to: start), "the creation date stays")
        try database.update(synchronizable, with: changes)  // the clock has not moved
        #expect(Self.isClose(Self.date(try database.find(synchronizable, decrypt: true).first, "mdat"), to: start.addingTimeInterval(3600.001)))

        clock.advance(by: .seconds(60))
        try database.delete(synchronizable)
        let tombstone = try database.portableEntries(of: [.genericPassword]).entries.first { $0.item == nil }
        #expect(Self.isClose(tombstone?.deletedAt, to: start.addingTimeInterval(3660)))
    }
}
