import Foundation
import KeychainEngine
import KeychainServices
import Testing

/// Malformed dictionaries: how the parser classifies keys (§3.1). Items 3–5, 30, 31, 34, 35, 43
/// and 53 are checked through SecItem* in Tests/SecItemParityTests.
@Suite("Conformance: malformed input")
struct MalformedInputTests {

    @Test("3.1 unknown keys by prefix: c…/r…/u…/v…/other → errSecParam; unknown m… keys ignored; f… ignored")
    func unknownKeysByShape() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        for key in ["r_Bogus", "u_Bogus", "v_Bogus", "xyz", "x", "class2", "persistref", "UUID"] {
            #expect(engine.copyMatching(genpQuery([key: yes])).status == errSecParam, "\(key)")
        }
        #expect(engine.copyMatching(genpQuery(["m_Bogus": "whatever"])).status == errSecSuccess)
        #expect(engine.copyMatching(genpQuery(["f_Callback": "ignored"])).status == errSecSuccess)
        // kSecValueRef: this keychain stores no SecKey/SecCertificate objects.
        #expect(engine.add(genp([kSecValueRef as String: bytes("not a ref")])).status == errSecParam)
    }

    @Test("3.1 too many keys in one dictionary → errSecParam")
    func tooManyKeys() throws {
        let engine = try makeEngine()
        var query = genpQuery()
        for index in 0..<200 { query["m_Extra\(index)"] = 1 }
        #expect(engine.copyMatching(query).status == errSecParam)
    }

    @Test("3.1 two bad keys: the first in key order decides the status, whatever the dictionary's order")
    func firstBadKeyInKeyOrderDecides() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        // "abcd" (no such attribute) sorts before "r_Bogus" (a parameter error), and "pdmn" with a
        // bad value (a parameter error) before "zzzz" (no such attribute). Dictionaries of many
        // sizes put the pairs in many storage orders; the status must not follow them.
        for padding in 0..<24 {
            var first = genpQuery(["abcd": "x", "r_Bogus": yes])
            var second = genpQuery([kSecAttrAccessible as String: "bogus", "zzzz": "x"])
            for index in 0..<padding {
                first["m_Ignored\(index)"] = "x"
                second["m_Ignored\(index)"] = "x"
            }
            #expect(engine.copyMatching(first).status == errSecNoSuchAttr, "padding \(padding)")
            #expect(engine.copyMatching(second).status == errSecParam, "padding \(padding)")
        }
    }

    @Test("3.1 keys are classified by characters, not bytes: four non-ASCII characters are an attribute's shape")
    func nonASCIIKeys() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        // Four characters in more than four bytes: an attribute name the class does not have.
        #expect(engine.copyMatching(genpQuery(["äöüß": "x"])).status == errSecNoSuchAttr)
        // Four bytes, fewer characters (one "\r\n" cluster): not an attribute's shape.
        #expect(engine.copyMatching(genpQuery(["a\r\nb": "x"])).status == errSecParam)
        // A first character made of "m" and a combining accent is not the match prefix "m".
        #expect(engine.copyMatching(genpQuery(["m\u{301}_Limit": "x"])).status == errSecParam)
        #expect(engine.copyMatching(genpQuery(["m_Bogus\u{301}": "x"])).status == errSecSuccess)
    }
}
