import Foundation
import KeychainTestSupport
import KeychainVocabulary
import RequiredToolSupport
import Testing
@testable import KeychainStore
import KeychainItemCodec

@Suite("Limits: item size, 100k items")
struct LimitsTests {
    static func item(_ account: String, data: Data, service: String = "limits") -> NewItem {
        NewItem(itemClass: .genericPassword,
                attributes: ["acct": .string(account), "svce": .string(service), "agrp": .string("app"), "sync": .number(0)],
                data: data, protection: .whenUnlocked)
    }

    static func query(_ account: String, service: String = "limits") -> ItemQuery {
        var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["app"]))
        query.filters = ["acct": .string(account), "svce": .string(service)]
        return query
    }

    /// The encoded size of `item` without its data, as the store will encode it (defaults and dates added).
    static func overhead(of item: NewItem) -> Int {
        var attributes = ItemRecord.withPrimaryKeyDefaults(item.attributes, for: item.itemClass)
        attributes["cdat"] = .date(Date())
        attributes["mdat"] = .date(Date())
        return ItemPayload(attributes: attributes, data: Data(), accessControlFlags: nil).encoded().count
    }

    @Test("an item of exactly 16 MiB encoded is stored and read back; one byte more is errSecParam (-50) with a clear message, on add and on update")
    func maximumItemSize() throws {
        let scratch = try TemporaryKeychain("limits-size")
        defer { scratch.remove() }
        let database = try scratch.open(generation: 0)
        let probe = Self.item("big", data: Data())
        let largest = ItemRecord.maximumPayloadSize - Self.overhead(of: probe)
        #expect(ItemRecord.maximumPayloadSize == 16 << 20)
        var fits = Data(repeating: 0x5A, count: largest)
        fits[0] = 1
        fits[fits.count - 1] = 2
        _ = try database.insert(Self.item("big", data: fits))
        #expect(try database.find(Self.query("big"), decrypt: true).first?.data == fits)

        let error = storeError { _ = try database.insert(Self.item("too-big", data: Data(count: largest + 1))) }
        #expect(error?.osStatus == -50)
        #expect(error.map { "\($0)" }?.contains("16 MiB") == true, "\(String(describing: error))")
        #expect(try database.find(Self.query("too-big"), decrypt: false).isEmpty)

        var grow = ItemChanges()
        grow.data = Data(count: largest + 1)
        #expect(storeError { try database.update(Self.query("big"), with: grow) }?.osStatus == -50)
        #expect(try database.find(Self.query("big"), decrypt: true).first?.data == fits, "a refused update changed nothing")
        Reliability.figure("max-item-size", ["limit_bytes": ItemRecord.maximumPayloadSize, "largest_secret_bytes": largest])
    }

    @Test("with 100k items, a primary-key query decrypts exactly the one matching row", .reliability, .tags(.reliability))
    func hundredThousandItems() throws {
        let count = Reliability.count("LIMIT_ITEMS", ci: 100_000, long: 100_000)
        let scratch = try TemporaryKeychain("limits-100k")
        defer { scratch.remove() }
        // CI fills an in-memory keychain (same engine, schema, indexes and encryption; no fsync per
        // add, which would make 100k adds take minutes); the long mode fills a keychain file.
        let onDisk = Reliability.isLong || ProcessInfo.processInfo.environment["KEYCHAINKIT_LIMIT_ON_DISK"] == "1"
        let database = onDisk ? try scratch.open(generation: 0) : try KeychainDatabase.inMemory()
        let start = ContinuousClock.now
        for index in 0..<count {
            _ = try database.insert(Self.item("account-\(index)", data: Data("secret-\(index)".utf8), service: "service-\(index % 97)"))
        }
        let filled = Reliability.seconds(since: start)
        #expect(try database.itemCount() == count)
        var decryptions = 0
        let observer = IOSeam.Observer { call, _ in
            if call == .itemDecryption { decryptions += 1 }
            return nil
        }
        let probes = [0, count / 2, count - 1]
        try IOSeam.withObserver(observer) {
            for index in probes {
                decryptions = 0
                let found = try database.find(Self.query("account-\(index)", service: "service-\(index % 97)"), decrypt: true)
                #expect(found.count == 1)
                #expect(found.first?.data == Data("secret-\(index)".utf8))
                #expect(decryptions == 1, "query for item \(index) decrypted \(decryptions) rows")
            }
            // Existence-only lookups decrypt nothing; an attribute that has no blind index must decrypt (the control).
            decryptions = 0
            #expect(try database.find(Self.query("account-7", service: "service-7"), decrypt: false).count == 1)
            #expect(decryptions == 0)
            var byLabel = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["app"]))
            byLabel.filters = ["svce": .string("service-3"), "labl": .string("none")]
            _ = try? database.find(byLabel, decrypt: true)
            #expect(decryptions > 1, "the control query must decrypt every row of its service")
        }
        Reliability.figure("100k-items", ["items": count, "storage": onDisk ? "file" : "memory",
                                          "decryptions_per_primary_key_query": 1, "fill_seconds": filled])
    }
}
