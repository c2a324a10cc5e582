import Foundation
import KeychainSync
import Testing

/// What every transport's tests write, read and check, whatever the transport (a folder, a git
/// remote): a suite adopting this calls them as `Self.write`, `Self.text`, `Self.error`.
protocol TransportTestCase {}

extension TransportTestCase {
    /// A change writing `text` at `name`, conditional on `expected` if given.
    static func write(_ name: String, _ text: String, expected: String?? = nil) -> SyncTransportChange {
        SyncTransportChange(name: name, operation: .write(Data(text.utf8)), expected: expected)
    }

    /// The record's bytes as text, or nil for no record.
    static func text(_ record: SyncTransportRecord?) -> String? {
        record.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// The error `body` throws, or nil (with an issue recorded) when it does not throw.
    static func error(_ body: () throws(SyncTransportError) -> Void) -> SyncTransportError? {
        do {
            try body()
            Issue.record("expected a SyncTransportError, got success")
            return nil
        } catch {
            return error
        }
    }

    /// Publishing a record at any of `names` is refused as `.invalidName`.
    static func expectNamesRefused(_ names: [String], by transport: any SyncTransport) {
        for name in names {
            guard case .invalidName = error({ () throws(SyncTransportError) in try transport.publish([write(name, "x")]) }) else {
                Issue.record("\(name) must be refused")
                continue
            }
        }
    }

    /// `reader` waiting for a change under `items/`: false at the deadline while nothing changes
    /// (`quiet` long); true once `writer` changes a record under it, after changing one outside
    /// it first (which does not count); then `reader` reads the new record.
    ///
    /// The writer starts `writeAfter` into the wait, so that the changes land while `reader`
    /// waits: the wait takes its starting point when called and reports only what changes after.
    static func expectWaitSeesChange(writer: any SyncTransport, reader: any SyncTransport, quiet: Duration,
                                     writeAfter: TimeInterval) throws {
        #expect(try reader.waitForChange(prefix: "items/", until: .now + quiet) == false)
        let outside = write("keys", "k2"), inside = write("items/aa", "new")
        let publisher = Thread {
            Thread.sleep(forTimeInterval: writeAfter)
            do {
                try writer.publish([outside])
                try writer.publish([inside])
            } catch {
                Issue.record("publish failed: \(error)")
            }
        }
        publisher.start()
        #expect(try reader.waitForChange(prefix: "items/", until: .now + .seconds(60)) == true)
        #expect(text(try reader.read("items/aa")) == "new")
    }
}
