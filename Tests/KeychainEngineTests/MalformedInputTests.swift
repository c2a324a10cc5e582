import Foundation
import KeychainEngine
import KeychainServices
import Testing

/// Malformed dictionaries: key classification (§3.1), value types (§1.2), classes (§1.1)
/// (items 3–5, 30, 31, 34, 35, 53).
@Suite("Conformance: malformed input")
struct MalformedInputTests {
    @Test("3 {} (no class, no persistent reference) → errSecParam in all four calls")
    func emptyDictionary() throws {
        let engine = try makeEngine()
        #expect(engine.add([:]).status == errSecParam)
        #expect(engine.copyMatching([:]).status == errSecParam)
        #expect(engine.update([:], [kSecAttrLabel as String: "x"]) == errSecParam)
        #expect(engine.delete([:]) == errSecParam)
        // Attributes without a class are no better.
        #expect(engine.add([kSecAttrAccount as String: "a", kSecValueData as String: bytes("x")]).status == errSecParam)
        #expect(engine.copyMatching([kSecAttrAccount as String: "a"]).status == errSecParam)
    }

    @Test("4 {class: \"zzzz\"} → errSecNoSuchClass in all four calls")
    func unknownClass() throws {
        let engine = try makeEngine()
        let bogus: Query = [kSecClass as String: "zzzz"]
        #expect(engine.copyMatching(bogus).status == errSecNoSuchClass)
        #expect(engine.add(with(bogus, [kSecAttrAccount as String: "a"])).status == errSecNoSuchClass)
        #expect(engine.update(bogus, [kSecAttrLabel as String: "x"]) == errSecNoSuchClass)
        #expect(engine.delete(bogus) == errSecNoSuchClass)
        // kSecClassAppleSharePassword ("apls") is unknown on the data-protection keychain.
        #expect(engine.copyMatching([kSecClass as String: "apls"]).status == errSecNoSuchClass)
        // A class that is not a string is a parameter error.
        #expect(engine.copyMatching([kSecClass as String: 42]).status == errSecParam)
    }

    @Test("5 an attribute the class does not have → errSecNoSuchAttr in add and in delete")
    func foreignAttributeInAddAndDelete() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let withTag = genp([kSecAttrApplicationTag as String: bytes("tag")])
        #expect(engine.add(withTag).status == errSecNoSuchAttr)
        #expect(engine.delete(withTag) == errSecNoSuchAttr)
        #expect(engine.status(genpQuery([kSecAttrCertificateType as String: 1])) == errSecNoSuchAttr)
        #expect(engine.status(genpQuery()) == errSecSuccess)
    }

    @Test("3.1 an unknown 4-character key → errSecNoSuchAttr; nleg is the one exception")
    func unknownFourCharacterKey() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp(["zzzz": "x"])).status == errSecNoSuchAttr)
        #expect(engine.copyMatching(genpQuery(["abcd": 1])).status == errSecNoSuchAttr)
        #expect(engine.delete(genpQuery(["wxyz": "x"])) == errSecNoSuchAttr)
        #expect(engine.update(genpQuery(["wxyz": "x"]), [kSecAttrLabel as String: "x"]) == errSecNoSuchAttr)
        #expect(engine.add(genp(["nleg": yes])).status == errSecSuccess)
    }

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

    @Test("30 kSecMatchLimit = \"bogus\" (or another wrong type, or a fraction) → errSecParam")
    func bogusMatchLimit() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        #expect(engine.status(genpQuery([kSecMatchLimit as String: "bogus"])) == errSecParam)
        #expect(engine.status(genpQuery([kSecMatchLimit as String: bytes("1")])) == errSecParam)
        #expect(engine.status(genpQuery([kSecMatchLimit as String: yes])) == errSecParam)
        #expect(engine.status(genpQuery([kSecMatchLimit as String: 1.5])) == errSecParam)
    }

    @Test("31 kSecReturnData = NSNumber 1 (not a CFBoolean) → errSecParam; a string → errSecParam")
    func returnKeyNotBoolean() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        #expect(engine.status(genpQuery([kSecReturnData as String: NSNumber(value: 1)])) == errSecParam)
        #expect(engine.status(genpQuery([kSecReturnAttributes as String: NSNumber(value: 0)])) == errSecParam)
        #expect(engine.status(genpQuery([kSecReturnData as String: "true"])) == errSecParam)
        #expect(engine.add(genp(account: "b", [kSecReturnData as String: NSNumber(value: 1)])).status == errSecParam)
        #expect(engine.status(genpQuery(account: "b")) == errSecItemNotFound)
        // A Swift Bool and kCFBooleanTrue are booleans.
        #expect(engine.readData(genpQuery([kSecReturnData as String: true])) == bytes("secret"))
        #expect(engine.copyMatching(genpQuery([kSecReturnData as String: kCFBooleanTrue!])).value as? Data == bytes("secret"))
    }

    @Test("34 kSecAttrAccessControl given as a string → errSecParam in add and delete")
    func accessControlAsString() throws {
        let engine = try makeEngine()
        let bad = genp([kSecAttrAccessControl as String: "ak"])
        #expect(engine.add(bad).status == errSecParam)
        #expect(engine.delete(bad) == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }

    @Test("35 the internal attribute clip → errSecParam in all four calls (query and attributesToUpdate)")
    func internalAttributeClip() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let clip: Query = ["clip": 1]
        #expect(engine.add(genp(account: "b", clip)).status == errSecParam)
        #expect(engine.copyMatching(genpQuery(clip)).status == errSecParam)
        #expect(engine.update(genpQuery(clip), [kSecAttrLabel as String: "x"]) == errSecParam)
        #expect(engine.update(genpQuery(), clip) == errSecParam)
        #expect(engine.delete(genpQuery(clip)) == errSecParam)
        #expect(engine.status(genpQuery(account: "b")) == errSecItemNotFound)
        #expect(engine.status(genpQuery()) == errSecSuccess)
    }

    @Test("53 kSecAttrAccessible = \"bogus\" (or not a string) → errSecParam")
    func bogusAccessibility() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp([kSecAttrAccessible as String: "bogus"])).status == errSecParam)
        #expect(engine.add(genp([kSecAttrAccessible as String: 1])).status == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }

    @Test("1.2 value types: NULL values, data as a string, wrong attribute kinds → errSecParam")
    func wrongValueTypes() throws {
        let engine = try makeEngine()
        #expect(engine.add(with(genpQuery(), [kSecValueData as String: "secret"])).status == errSecParam)
        #expect(engine.add(genp([kSecAttrAccount as String: NSNull()])).status == errSecParam)
        #expect(engine.add(genp([kSecAttrLabel as String: Date()])).status == errSecParam)
        #expect(engine.add(genp([kSecAttrCreator as String: bytes("abcd")])).status == errSecParam)
        #expect(engine.add(genp([kSecAttrAccessGroup as String: 7])).status == errSecParam)
        #expect(engine.add(genp([kSecAttrAccessGroup as String: Data([0xFF, 0xFE])])).status == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }

    @Test("1.2 number attributes: a numeric string becomes a number, another string stays a string")
    func numberCoercion() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(account: "n", [kSecAttrType as String: "42"]))
        engine.mustAdd(genp(account: "t", [kSecAttrType as String: "text"]))
        #expect(number(engine.readAttributes(genpQuery(account: "n")), kSecAttrType) == 42)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword, kSecAttrType as String: 42]) == 1)
        #expect(text(engine.readAttributes(genpQuery(account: "t")), kSecAttrType) == "text")
    }

    @Test("3.1 too many keys in one dictionary → errSecParam")
    func tooManyKeys() throws {
        let engine = try makeEngine()
        var query = genpQuery()
        for index in 0..<200 { query["m_Extra\(index)"] = 1 }
        #expect(engine.copyMatching(query).status == errSecParam)
    }

    @Test("43 kSecUseAuthenticationUI = Skip in add, update or delete → errSecParam; bad UI values → errSecParam")
    func authenticationUISkipOutsideCopyMatching() throws {
        let engine = try makeEngine()
        let skip: Query = [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]
        #expect(engine.add(genp(skip)).status == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
        engine.mustAdd(genp())
        #expect(engine.delete(genpQuery(skip)) == errSecParam)
        #expect(engine.update(genpQuery(skip), [kSecAttrLabel as String: "x"]) == errSecParam)
        #expect(engine.status(genpQuery(skip)) == errSecSuccess)
        #expect(engine.status(genpQuery([kSecUseAuthenticationUI as String: "bogus"])) == errSecParam)
        #expect(engine.status(genpQuery([kSecUseAuthenticationUI as String: 1])) == errSecParam)
        #expect(engine.status(genpQuery([kSecUseAuthenticationUI as String: authenticationUIFail])) == errSecSuccess)
    }

    @Test("3.8 kSecUseItemList in CopyMatching or Update → errSecParam")
    func itemList() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let list: Query = [kSecUseItemList as String: [bytes("x")]]
        #expect(engine.status(genpQuery(list)) == errSecParam)
        #expect(engine.update(genpQuery(list), [kSecAttrLabel as String: "x"]) == errSecParam)
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
