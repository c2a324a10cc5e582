import Crypto
import Foundation
import Testing
@testable import KeychainStore

/// The blind index is part of the file format: computing it with less copying (issue 11) must
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
}
