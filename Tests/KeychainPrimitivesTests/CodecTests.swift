import Foundation
import KeychainPrimitives
import Testing

@Suite("HexEncoding and PercentEncoding")
struct CodecTests {
    @Test("hex round-trips every byte value, in either case")
    func hexRoundTrip() {
        let all = Data(0...255)
        let lower = HexEncoding.string(all)
        #expect(lower.hasPrefix("000102"))
        #expect(lower.hasSuffix("fdfeff"))
        #expect(HexEncoding.bytes(lower) == all)
        let upper = HexEncoding.string(all, uppercase: true)
        #expect(upper.hasSuffix("FDFEFF"))
        #expect(HexEncoding.bytes(upper) == all)
        #expect(HexEncoding.bytes("") == Data())
    }

    @Test("hex refuses anything but pairs of digits", arguments: ["0", "abc", "0x00", " 00", "00 ", "+1", "-1", "g0", "0G", "é0", "0\u{0}"])
    func hexRejects(_ text: String) {
        #expect(HexEncoding.bytes(text) == nil)
    }

    @Test("%XX decoding: escapes in either case, plain bytes kept, UTF-8 checked")
    func percentDecode() {
        #expect(PercentEncoding.decodeUTF8("a%20b%2fc%2F") == "a b/c/")
        #expect(PercentEncoding.decodeUTF8("caf%C3%A9") == "café")
        #expect(PercentEncoding.decodeUTF8("no escapes") == "no escapes")
        #expect(PercentEncoding.decodeUTF8("%FF") == nil, "not UTF-8")
        #expect(PercentEncoding.decode(Array("%00%ff".utf8)) == Data([0x00, 0xFF]))
    }

    @Test("a malformed escape refuses the whole text", arguments: ["%", "%2", "a%", "%zz", "%2g", "%+1", "%-1", "% 20"])
    func percentRejects(_ text: String) {
        #expect(PercentEncoding.decode(Array(text.utf8)) == nil)
        #expect(PercentEncoding.decodeUTF8(text) == nil)
    }

    @Test("keeping malformed escapes (Assuan): a lone % stays, good escapes are decoded")
    func percentKeepingMalformed() {
        #expect(PercentEncoding.decodeKeepingMalformed(Array("100%".utf8)) == Data("100%".utf8))
        #expect(PercentEncoding.decodeKeepingMalformed(Array("%zz%41%4".utf8)) == Data("%zzA%4".utf8))
    }

    @Test("encoding escapes exactly the chosen characters and decodes back")
    func percentEncode() {
        let text = "50% done\r\nnext line é"
        let escaped = PercentEncoding.encode(text, escaping: ["%", "\r", "\n"])
        #expect(escaped == "50%25 done%0D%0Anext line é")
        #expect(PercentEncoding.decodeUTF8(escaped) == text)
    }
}
