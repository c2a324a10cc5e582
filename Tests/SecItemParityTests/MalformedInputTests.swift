// Malformed dictionaries: missing or unknown classes, keys of the wrong shape, values of the wrong
// type. Keys spelt as strings here are deliberately not Apple constants (unknown or internal keys).

import Foundation
import KeychainServices
import Testing

extension SecItemParity {
    @Suite("Malformed dictionaries")
    struct MalformedInput {
        @Test("3 no class (and no persistent reference) is errSecParam in all four calls")
        func noClass() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add([kSecAttrService: keychain.service, kSecValueData: bytes("x")]).status == errSecParam)
            #expect(keychain.status([kSecAttrService: keychain.service]) == errSecParam)
            #expect(keychain.update([kSecAttrService: keychain.service], [kSecAttrLabel: "x"]) == errSecParam)
            #expect(keychain.delete([kSecAttrService: keychain.service]) == errSecParam)
            #expect(keychain.status([:]) == errSecParam)
        }

        @Test("4 an unknown class string is errSecNoSuchClass in all four calls; a class that is not a string is errSecParam")
        func unknownClass() throws {
            let keychain = try ParityKeychain()
            let bogus: [CFString: Any] = [kSecClass: "zzzz", kSecAttrService: keychain.service]
            #expect(keychain.status(bogus) == errSecNoSuchClass)
            #expect(keychain.add(bogus).status == errSecNoSuchClass)
            #expect(keychain.update(bogus, [kSecAttrLabel: "x"]) == errSecNoSuchClass)
            #expect(keychain.delete(bogus) == errSecNoSuchClass)
            #expect(keychain.status([kSecClass: 42]) == errSecParam)
            // The macOS file keychain's AppleShare class is unknown to the data-protection keychain.
            #expect(keychain.status([kSecClass: "apls"]) == errSecNoSuchClass)
        }

        @Test("5 an attribute the class does not have is errSecNoSuchAttr in add, delete and CopyMatching")
        func foreignAttribute() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let withTag = keychain.password("a", [kSecAttrApplicationTag: bytes("tag")])
            #expect(keychain.add(withTag).status == errSecNoSuchAttr)
            #expect(keychain.delete(withTag) == errSecNoSuchAttr)
            #expect(keychain.status(keychain.password("a", [kSecAttrCertificateType: 1])) == errSecNoSuchAttr)
            #expect(keychain.status(keychain.password("a")) == errSecSuccess)
        }

        @Test("3.1 an unknown four-character key is errSecNoSuchAttr in every call")
        func unknownFourCharacterKey() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a", ["zzzz" as CFString: "x"])).status == errSecNoSuchAttr)
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.status(keychain.password("a", ["abcd" as CFString: 1])) == errSecNoSuchAttr)
            #expect(keychain.delete(keychain.password("a", ["wxyz" as CFString: "x"])) == errSecNoSuchAttr)
            #expect(keychain.update(keychain.password("a", ["wxyz" as CFString: "x"]), [kSecAttrLabel: "x"]) == errSecNoSuchAttr)
        }

        @Test("3.1 unknown return, use and value keys are errSecParam; unknown match keys are ignored")
        func unknownKeysByShape() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            for key in ["r_Bogus", "u_Bogus", "v_Bogus"] {
                #expect(keychain.status(keychain.password("a", [key as CFString: true])) == errSecParam, "\(key)")
            }
            #expect(keychain.status(keychain.password("a", ["m_Bogus" as CFString: "whatever"])) == errSecSuccess)
        }

        @Test("30 kSecMatchLimit that is neither a limit constant nor an integer is errSecParam")
        func bogusMatchLimit() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            for limit: Any in ["bogus", bytes("1"), true, 1.5] {
                #expect(keychain.status(keychain.password("a", [kSecMatchLimit: limit])) == errSecParam, "\(limit)")
            }
        }

        @Test("31 a kSecReturn* value that is not a boolean (the number 1, a string) is errSecParam")
        func returnKeyNotBoolean() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", [kSecValueData: bytes("secret")]))
            #expect(keychain.status(keychain.password("a", [kSecReturnData: NSNumber(value: 1)])) == errSecParam)
            #expect(keychain.status(keychain.password("a", [kSecReturnData: "true"])) == errSecParam)
            #expect(keychain.status(keychain.password("a", [kSecReturnAttributes: NSNumber(value: 0)])) == errSecParam)
            #expect(keychain.add(keychain.password("b", [kSecReturnData: NSNumber(value: 1)])).status == errSecParam)
            #expect(keychain.status(keychain.password("b")) == errSecItemNotFound)
            // A Swift Bool and kCFBooleanTrue are booleans.
            #expect(keychain.copy(keychain.password("a", [kSecReturnData: kCFBooleanTrue!])).result as? Data == bytes("secret"))
        }

        @Test("34 kSecAttrAccessControl given as a string is errSecParam in add and delete")
        func accessControlAsString() throws {
            let keychain = try ParityKeychain()
            let bad = keychain.password("a", [kSecAttrAccessControl: kSecAttrAccessibleWhenUnlocked])
            #expect(keychain.add(bad).status == errSecParam)
            #expect(keychain.delete(bad) == errSecParam)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
        }

        @Test("35 the internal attribute clip is errSecParam in all four calls")
        func internalAttributeClip() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let clip: [CFString: Any] = ["clip" as CFString: 1]
            #expect(keychain.add(keychain.password("b", clip)).status == errSecParam)
            #expect(keychain.status(keychain.password("a", clip)) == errSecParam)
            #expect(keychain.update(keychain.password("a", clip), [kSecAttrLabel: "x"]) == errSecParam)
            #expect(keychain.update(keychain.password("a"), clip) == errSecParam)
            #expect(keychain.delete(keychain.password("a", clip)) == errSecParam)
            #expect(keychain.status(keychain.password("b")) == errSecItemNotFound)
            #expect(keychain.status(keychain.password("a")) == errSecSuccess)
        }

        @Test("53 kSecAttrAccessible that is no accessibility value is errSecParam")
        func bogusAccessibility() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a", [kSecAttrAccessible: "bogus"])).status == errSecParam)
            #expect(keychain.add(keychain.password("a", [kSecAttrAccessible: 1])).status == errSecParam)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
        }

        @Test("1.2 value types: null values and attributes of the wrong kind are errSecParam")
        func wrongValueTypes() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a", [kSecAttrAccount: kCFNull!])).status == errSecParam)
            #expect(keychain.add(keychain.password("a", [kSecAttrLabel: Date()])).status == errSecParam)
            #expect(keychain.add(keychain.password("a", [kSecAttrCreator: bytes("abcd")])).status == errSecParam)
            #expect(keychain.add(keychain.password("a", [kSecAttrAccessGroup: 7])).status == errSecParam)
            #expect(keychain.add(keychain.password("a", [kSecAttrAccessGroup: Data([0xFF, 0xFE])])).status == errSecParam)
            #expect(keychain.count(keychain.everyPassword()) == 0)
        }

        @Test("1.2 number attributes: a numeric string is stored as a number, another string stays a string")
        func numberCoercion() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("n", [kSecAttrType: "42"]))
            #expect(number(keychain.attributes(keychain.password("n")), kSecAttrType) == 42)
            #expect(keychain.count(keychain.everyPassword([kSecAttrType: 42])) == 1)
            keychain.mustAdd(keychain.password("t", [kSecAttrType: "text"]))
            #expect(text(keychain.attributes(keychain.password("t")), kSecAttrType) == "text")
        }

        @Test("43 kSecUseAuthenticationUI = Skip in add, update or delete is errSecParam; in CopyMatching it is allowed")
        func authenticationUISkipOutsideCopyMatching() throws {
            let keychain = try ParityKeychain()
            let skip: [CFString: Any] = [kSecUseAuthenticationUI: kSecUseAuthenticationUISkip]
            #expect(keychain.add(keychain.password("a", skip)).status == errSecParam)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.delete(keychain.password("a", skip)) == errSecParam)
            #expect(keychain.update(keychain.password("a", skip), [kSecAttrLabel: "x"]) == errSecParam)
            #expect(keychain.status(keychain.password("a", skip)) == errSecSuccess)
            #expect(keychain.status(keychain.password("a", [kSecUseAuthenticationUI: "bogus"])) == errSecParam)
            #expect(keychain.status(keychain.password("a", [kSecUseAuthenticationUI: 1])) == errSecParam)
        }

        @Test("3.8 kSecUseItemList in CopyMatching or Update is errSecParam")
        func itemList() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let list: [CFString: Any] = [kSecUseItemList: [bytes("x")]]
            #expect(keychain.status(keychain.password("a", list)) == errSecParam)
            #expect(keychain.update(keychain.password("a", list), [kSecAttrLabel: "x"]) == errSecParam)
        }
    }
}
