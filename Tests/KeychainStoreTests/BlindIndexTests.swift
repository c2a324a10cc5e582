import KeychainPrimitives
import Crypto
import Foundation
import Testing
@testable import KeychainStore
import KeychainVocabulary

/// The blind index is part of the file format: computing it with less copying (for speed) must
/// give exactly the bytes the format defines, HMAC-SHA256("ix" ‖ field(name) ‖ field(value))
/// truncated to 16 bytes, or existing keychains would stop finding their items.
@Suite("Blind index format")
struct BlindIndexTests {
    /// The index as the file format defines it, built the straightforward way.
    private func reference(_ name: String, _ value: AttributeValue, _ kind: AttributeKind, _ key: SymmetricKey) -> Data {
        var message = Data("ix".utf8)
        message.appendField(Data(name.utf8))
        message.appendField(kind.canonicalBytes(of: value))
        return Data(Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).prefix(16))
    }

    @Test("streamed blind indexes equal the format's definition, for every kind of value")
    func matchesDefinition() {
        let key = SymmetricKey(size: .bits256)
        let indexKey = BlindIndexKey(key)
        let cases: [(String, AttributeValue, AttributeKind)] = [
            ("acct", .string("alice"), .blob), ("svce", .string(String(repeating: "long service ", count: 20)), .blob),
            ("acct", .string(""), .blob), ("agrp", .string("com.example.app"), .string), ("sync", .number(1), .number),
            ("port", .number(-443), .number), ("acct", .data(Data([0, 1, 2, 255])), .blob), ("ptcl", .string("htps"), .number),
            ("svce", .string("ünïcødé ✓"), .blob),
        ]
        for (name, value, kind) in cases {
            let streamed = ItemRecord.blindIndex(name: name, value: value, kind: kind, key: indexKey)
            #expect(streamed == reference(name, value, kind, key), "\(name)")
            #expect(streamed.count == 16)
        }
        #expect(indexKey.synchronizableIndex(true) == reference("sync", .number(1), .number, key))
        #expect(indexKey.synchronizableIndex(false) == reference("sync", .number(0), .number, key))
    }

    @Test("the cache of access-group and service indexes gives the computed index, per attribute and kind, and stays bounded")
    func cacheGivesComputedIndexes() {
        let key = SymmetricKey(size: .bits256)
        let indexKey = BlindIndexKey(key)
        var cache = BlindIndexCache()
        let cases: [(String, AttributeValue, AttributeKind)] = [
            ("agrp", .string("com.example.app"), .string), ("svce", .string("com.example.app"), .blob),
            ("svce", .string("com.example.app"), .string), ("acct", .string("com.example.app"), .blob),
            ("svce", .data(Data([1, 2, 3])), .blob), ("svce", .number(7), .number),
        ]
        for _ in 0..<2 {  // computed, then (for text values of agrp and svce) from the cache
            for (name, value, kind) in cases {
                #expect(cache.index(name: name, value: value, kind: kind, key: indexKey) == reference(name, value, kind, key), "\(name) \(kind)")
            }
        }
        for number in 0..<(BlindIndexCache.limit * 3) {
            let value = AttributeValue.string("service-\(number)")
            #expect(cache.index(name: "svce", value: value, kind: .blob, key: indexKey) == reference("svce", value, .blob, key))
        }
        #expect(cache.count <= BlindIndexCache.limit)
    }
}
