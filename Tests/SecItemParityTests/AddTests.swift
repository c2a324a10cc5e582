// SecItemAdd: uniqueness, defaults, dates and the result of each kSecReturn* key. Test names
// start with the number of the conformance checklist item they check (or the section of Apple's
// semantics for behaviour the checklist does not number).

import Foundation
import KeychainServices
import Testing

extension SecItemParity {
    @Suite("SecItemAdd")
    struct Add {
        @Test("1 adding the same generic password twice is errSecDuplicateItem; another account or service is another item")
        func duplicateGenericPassword() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a", [kSecValueData: bytes("1")])).status == errSecSuccess)
            #expect(keychain.add(keychain.password("a", [kSecValueData: bytes("2")])).status == errSecDuplicateItem)
            #expect(keychain.add(keychain.password("b", [kSecValueData: bytes("3")])).status == errSecSuccess)
            #expect(keychain.add([kSecClass: kSecClassGenericPassword, kSecAttrService: keychain.service + ".other",
                                  kSecAttrAccount: "a"]).status == errSecSuccess)
            #expect(keychain.data(keychain.password("a")) == bytes("1"))
            #expect(keychain.delete([kSecClass: kSecClassGenericPassword, kSecAttrService: keychain.service + ".other"]) == errSecSuccess)
        }

        @Test("1 internet passwords: the same twice is errSecDuplicateItem; another port, path or protocol is another item")
        func duplicateInternetPassword() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.internetPassword()).status == errSecSuccess)
            #expect(keychain.add(keychain.internetPassword()).status == errSecDuplicateItem)
            #expect(keychain.add(keychain.internetPassword("alice", [kSecAttrPort: 8443])).status == errSecSuccess)
            #expect(keychain.add(keychain.internetPassword("alice", [kSecAttrPath: "/login"])).status == errSecSuccess)
            #expect(keychain.add(keychain.internetPassword("alice", [kSecAttrProtocol: kSecAttrProtocolFTP])).status == errSecSuccess)
            #expect(keychain.count([kSecClass: kSecClassInternetPassword, kSecAttrServer: keychain.server]) == 4)
        }

        @Test("1.6 non-key attributes (data, label, comment, generic, accessibility) never make two items distinct")
        func nonKeyAttributesDoNotDistinguish() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", [kSecValueData: bytes("one"), kSecAttrLabel: "first"]))
            let second = keychain.password("a", [kSecValueData: bytes("two"), kSecAttrLabel: "second", kSecAttrComment: "different",
                                                 kSecAttrGeneric: bytes("g"), kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock])
            #expect(keychain.add(second).status == errSecDuplicateItem)
            #expect(keychain.data(keychain.password("a")) == bytes("one"))
            #expect(text(keychain.attributes(keychain.password("a")), kSecAttrLabel) == "first")
        }

        @Test("6 an attribute of another class (kSecAttrServer in a generic password, kSecAttrService in an internet password) is errSecNoSuchAttr")
        func foreignAttribute() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a", [kSecAttrServer: "example.com"])).status == errSecNoSuchAttr)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
            #expect(keychain.add(keychain.internetPassword("alice", [kSecAttrService: "x"])).status == errSecNoSuchAttr)
            #expect(keychain.status(keychain.internetPassword()) == errSecItemNotFound)
        }

        @Test("7 kSecUseDataProtectionKeychain = true is accepted in add, query and delete")
        func dataProtectionKeychainKey() throws {
            let keychain = try ParityKeychain()
            let flag: [CFString: Any] = [kSecUseDataProtectionKeychain: true]
            #expect(keychain.add(keychain.password("a", flag.merging([kSecValueData: bytes("x")]) { $1 })).status == errSecSuccess)
            #expect(keychain.data(keychain.password("a", flag)) == bytes("x"))
            #expect(keychain.delete(keychain.password("a", flag)) == errSecSuccess)
        }

        @Test("20 add with kSecReturnData returns the stored data")
        func returnData() throws {
            let keychain = try ParityKeychain()
            let added = keychain.add(keychain.password("a", [kSecValueData: bytes("s3cr3t"), kSecReturnData: true]))
            #expect(added.status == errSecSuccess)
            #expect(added.result as? Data == bytes("s3cr3t"))
        }

        @Test("21 add with kSecReturnAttributes: attributes without kSecValueData, kSecValueRef, kSecValuePersistentRef or kSecClass; numbers as numbers")
        func returnAttributes() throws {
            let keychain = try ParityKeychain()
            let added = keychain.add(keychain.password("a", [kSecValueData: bytes("x"), kSecReturnAttributes: true,
                                                             kSecAttrIsInvisible: true, kSecAttrCreator: 0x6162_6364, kSecAttrLabel: "label"]))
            #expect(added.status == errSecSuccess)
            let attributes = try #require(added.result as? [String: Any])
            for key in [kSecValueData, kSecValueRef, kSecValuePersistentRef, kSecClass] {
                #expect(attributes[key as String] == nil, "unexpected \(key)")
            }
            #expect(text(attributes, kSecAttrAccount) == "a")
            #expect(text(attributes, kSecAttrService) == keychain.service)
            #expect(text(attributes, kSecAttrLabel) == "label")
            #expect(text(attributes, kSecAttrAccessGroup)?.isEmpty == false)
            #expect(number(attributes, kSecAttrIsInvisible) == 1)
            #expect(number(attributes, kSecAttrCreator) == 0x6162_6364)
            #expect(number(attributes, kSecAttrSynchronizable) == 0)
        }

        @Test("22 add with all four kSecReturn* keys: one dictionary with the data, a persistent reference and the class (no object for a password)")
        func returnEverything() throws {
            let keychain = try ParityKeychain()
            let added = keychain.add(keychain.password("a", [kSecValueData: bytes("secret"), kSecReturnData: true,
                                                             kSecReturnAttributes: true, kSecReturnRef: true, kSecReturnPersistentRef: true]))
            #expect(added.status == errSecSuccess)
            let dictionary = try #require(added.result as? [String: Any])
            #expect(dictionary[kSecValueData as String] as? Data == bytes("secret"))
            let reference = try #require(dictionary[kSecValuePersistentRef as String] as? Data)
            #expect(dictionary[kSecClass as String] as? String == kSecClassGenericPassword as String)
            #expect(dictionary[kSecValueRef as String] == nil)
            #expect(text(dictionary, kSecAttrAccount) == "a")
            #expect(keychain.data([kSecValuePersistentRef: reference]) == bytes("secret"))
        }

        @Test("23 add without kSecReturn* keys (or with them false) succeeds and leaves the result nil")
        func noReturnKeys() throws {
            let keychain = try ParityKeychain()
            let plain = keychain.add(keychain.password("a"))
            #expect(plain.status == errSecSuccess)
            #expect(plain.result == nil)
            let falseKeys = keychain.add(keychain.password("b", [kSecReturnData: false, kSecReturnAttributes: false]))
            #expect(falseKeys.status == errSecSuccess)
            #expect(falseKeys.result == nil)
        }

        @Test("24 add of a generic password with only kSecReturnRef succeeds with no result")
        func returnRefOfPassword() throws {
            let keychain = try ParityKeychain()
            let added = keychain.add(keychain.password("a", [kSecReturnRef: true]))
            #expect(added.status == errSecSuccess)
            #expect(added.result == nil)
            #expect(keychain.status(keychain.password("a")) == errSecSuccess)
        }

        @Test("33 an internet password's kSecAttrServer given as Data is stored and returned as equal Data; the same bytes as a String find it")
        func serverAsData() throws {
            let keychain = try ParityKeychain()
            let server = bytes(keychain.server)
            #expect(keychain.add(keychain.internetPassword("alice", [kSecAttrServer: server])).status == errSecSuccess)
            let attributes = try #require(keychain.attributes([kSecClass: kSecClassInternetPassword, kSecAttrServer: server]))
            #expect(attributes[kSecAttrServer as String] as? Data == server)
            #expect(attributes[kSecAttrServer as String] as? String == nil)
            #expect(keychain.status([kSecClass: kSecClassInternetPassword, kSecAttrServer: keychain.server]) == errSecSuccess)
        }

        @Test("36 an internet password with kSecAttrPort = \"\": success on iOS, errSecParam on macOS")
        func emptyStringPort() throws {
            let keychain = try ParityKeychain()
            let expected = ParityKeychain.status(iOS: errSecSuccess, macOS: errSecParam)
            #expect(keychain.add(keychain.internetPassword("alice", [kSecAttrPort: ""])).status == expected)
            #expect(keychain.status(keychain.internetPassword()) == (expected == errSecSuccess ? errSecSuccess : errSecItemNotFound))
        }

        @Test("59 add sets creation and modification date to now, equal, ignoring dates the caller gives")
        func creationDate() throws {
            let keychain = try ParityKeychain()
            let before = Date()
            let past = Date(timeIntervalSinceReferenceDate: 1_000)
            let added = keychain.add(keychain.password("a", [kSecReturnAttributes: true, kSecAttrCreationDate: past,
                                                             kSecAttrModificationDate: past]))
            #expect(added.status == errSecSuccess)
            let attributes = added.result as? [String: Any]
            let created = try #require(date(attributes, kSecAttrCreationDate))
            #expect(date(attributes, kSecAttrModificationDate) == created)
            #expect(created != past)
            #expect(created.timeIntervalSince(before) > -1)
            let stored = keychain.attributes(keychain.password("a"))
            #expect(date(stored, kSecAttrCreationDate) == created)
            #expect(date(stored, kSecAttrModificationDate) == created)
        }

        @Test("1.2 a date attribute given as a string is errSecParam")
        func dateAsString() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a", [kSecAttrCreationDate: "yesterday"])).status == errSecParam)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
        }

        @Test("68 an absent key attribute equals an empty one: {service} then {service, account \"\"} is errSecDuplicateItem")
        func absentKeyEqualsEmpty() throws {
            let keychain = try ParityKeychain()
            let serviceOnly: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: keychain.service]
            #expect(keychain.add(serviceOnly).status == errSecSuccess)
            #expect(keychain.add(serviceOnly.merging([kSecAttrAccount: ""]) { $1 }).status == errSecDuplicateItem)
            #expect(keychain.add(serviceOnly.merging([kSecAttrAccount: Data()]) { $1 }).status == errSecDuplicateItem)
            #expect(keychain.status(serviceOnly.merging([kSecAttrAccount: ""]) { $1 }) == errSecSuccess)
            // Internet passwords: an absent port is 0 and an absent path is empty.
            keychain.mustAdd(keychain.internetPassword())
            #expect(keychain.add(keychain.internetPassword("alice", [kSecAttrPort: 0, kSecAttrPath: ""])).status == errSecDuplicateItem)
        }

        @Test("69 account \"x\" as a String then as Data is errSecDuplicateItem; each item keeps the type it was given")
        func stringAndDataCollide() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("x"))
            #expect(keychain.add(keychain.password("x", [kSecAttrAccount: bytes("x")])).status == errSecDuplicateItem)
            let found = try #require(keychain.attributes(keychain.password("x", [kSecAttrAccount: bytes("x")])))
            #expect(found[kSecAttrAccount as String] as? String == "x")
            keychain.mustAdd(keychain.password("y", [kSecAttrAccount: bytes("y")]))
            #expect(try #require(keychain.attributes(keychain.password("y")))[kSecAttrAccount as String] as? Data == bytes("y"))
        }

        @Test("3.3 an item without kSecValueData is legal; its data reads back empty")
        func withoutData() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a")).status == errSecSuccess)
            #expect(keychain.data(keychain.password("a")) == Data())
        }

        @Test("1.2 kSecValueData given as a String is errSecParam and stores nothing")
        func dataAsString() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.add(keychain.password("a", [kSecValueData: "secret"])).status == errSecParam)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
        }
    }
}
