import Foundation
import Testing
@testable import KeychainStore
import KeychainItemCodec

/// The payload decoder reads borrowed bytes instead of copying each field (for speed); it must
/// decode what the encoder writes and refuse what it refused before, with the same errors.
@Suite("Payload: decoding from borrowed bytes")
struct ItemPayloadDecoderTests {
    private func undecodable(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ItemPayload(decoding: Data(bytes))
            return nil
        } catch {
            if case .undecodable(let what) = error.reason { return what }
            return "another error: \(error)"
        }
    }

    @Test("every kind of attribute, data and flags round-trip, from a Data that is a slice of a larger one")
    func roundTrip() throws {
        let payload = ItemPayload(
            attributes: ["acct": .string("ünïcødé ✓"), "svce": .string(""), "gena": .data(Data((0..<300).map { UInt8($0 & 0xFF) })),
                         "type": .number(-42), "cdat": .date(Date(timeIntervalSinceReferenceDate: 123_456.75)),
                         "labl": .string("label"), "desc": .data(Data())],
            data: Data("secret".utf8), accessControlFlags: 3)
        let encoded = payload.encoded()
        #expect(try ItemPayload(decoding: encoded) == payload)
        let framed = Data([9, 9, 9]) + encoded + Data([7])
        #expect(try ItemPayload(decoding: framed.dropFirst(3).dropLast()) == payload)
    }

    @Test("malformed payloads are refused with the same reasons as before")
    func refused() {
        let version = ItemPayload.version
        #expect(undecodable([]) == "a truncated record")
        #expect(undecodable([version + 1]) == "an item payload of an unknown version")
        #expect(undecodable([version, UInt8(ascii: "Z")]) == "an item payload (unknown record)")
        #expect(undecodable([version, UInt8(ascii: "A"), 4, 0x61, 0x63]) == "a truncated record")
        #expect(undecodable([version, UInt8(ascii: "A"), 2, 0xC3, 0x28, UInt8(ascii: "s"), 0, 0, 0, 0])
            == "an item payload (attribute name)")  // not UTF-8
        #expect(undecodable([version, UInt8(ascii: "A"), 0, UInt8(ascii: "s"), 0, 0, 0, 0]) == "an item payload (attribute name)")
        let name: [UInt8] = [UInt8(ascii: "A"), 4] + Array("acct".utf8)
        #expect(undecodable([version] + name + [UInt8(ascii: "s"), 0, 0, 0, 1, 0xFF]) == "an item payload (text)")
        #expect(undecodable([version] + name + [UInt8(ascii: "n"), 0, 0, 0, 9] + Array(repeating: 0, count: 9))
            == "an item payload (number)")
        #expect(undecodable([version] + name + [UInt8(ascii: "n"), 0, 0, 0, 7] + Array(repeating: 0, count: 7)) == "a truncated record")
        #expect(undecodable([version] + name + [UInt8(ascii: "t"), 0, 0, 0, 9] + Array(repeating: 0, count: 9))
            == "an item payload (date)")
        #expect(undecodable([version] + name + [UInt8(ascii: "x"), 0, 0, 0, 0]) == "an item payload (value kind)")
        let text: [UInt8] = [UInt8(ascii: "s"), 0, 0, 0, 1, 0x61]
        #expect(undecodable([version] + name + text + name + text) == "an item payload (attribute name)")  // twice
        let data: [UInt8] = [UInt8(ascii: "D"), 0, 0, 0, 1, 0x61]
        #expect(undecodable([version] + data + data) == "an item payload (two data records)")
        #expect(undecodable([version, UInt8(ascii: "D"), 0, 0, 0, 5, 1]) == "a truncated record")
        let flags: [UInt8] = [UInt8(ascii: "C")] + Array(repeating: 0, count: 8)
        #expect(undecodable([version] + flags + flags) == "an item payload (two access controls)")
    }

    @Test("a tampered length never reads past the payload: each is a truncated record, or refused padding")
    func hostileLengths() {
        let version = ItemPayload.version
        let name: [UInt8] = [UInt8(ascii: "A"), 4] + Array("acct".utf8)
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        #expect(undecodable([version] + name + [UInt8(ascii: "s")] + huge + [0x61]) == "a truncated record")
        #expect(undecodable([version] + name + [UInt8(ascii: "d"), 0, 0, 0, 2, 0x61]) == "a truncated record")
        #expect(undecodable([version] + name + [UInt8(ascii: "s"), 0, 0]) == "a truncated record")  // length cut short
        #expect(undecodable([version, UInt8(ascii: "A"), 200] + Array("acct".utf8)) == "a truncated record")
        #expect(undecodable([version, UInt8(ascii: "D")] + huge + [1, 2, 3]) == "a truncated record")
        #expect(undecodable([version, UInt8(ascii: "C"), 0, 0, 0]) == "a truncated record")
        #expect(undecodable([version, UInt8(ascii: "B"), 255, 1, 2]) == "a truncated record")
        #expect(undecodable([version, UInt8(ascii: "P")] + huge + [0, 0]) == "a truncated record")
        #expect(undecodable([version, UInt8(ascii: "P"), 0, 0, 0, 2, 0, 1]) == "an item payload (padding)")  // not zeros
        let data: [UInt8] = [UInt8(ascii: "D"), 0, 0, 0, 1, 0x61]
        #expect(undecodable([version, UInt8(ascii: "P"), 0, 0, 0, 1, 0] + data) == "an item payload (padding)")  // not last
    }

    @Test("a text that begins with a byte order mark decodes as Foundation's UTF-8 decoding gives it")
    func byteOrderMark() throws {
        let bytes = Array("\u{FEFF}x".utf8)
        let payload: [UInt8] = [ItemPayload.version, UInt8(ascii: "A"), 4] + Array("labl".utf8)
            + [UInt8(ascii: "s"), 0, 0, 0, UInt8(bytes.count)] + bytes
        let expected = try #require(String(data: Data(bytes), encoding: .utf8))
        #expect(try ItemPayload(decoding: Data(payload)).attributes["labl"] == .string(expected))
    }
}
