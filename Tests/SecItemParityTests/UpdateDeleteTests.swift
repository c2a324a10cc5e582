// SecItemUpdate and SecItemDelete: what they change, what they refuse, and dates.

import Foundation
import KeychainServices
import Testing

/// `kSecMatchLimitAll` alone in an update or delete query: iOS refuses it as it refuses every match
/// key there; macOS strips it; Linux accepts it on purpose, since it asks for what update and
/// delete do anyway (docs/CONFORMANCE.md, "Deliberate differences").
private let matchLimitAllAloneStatus: OSStatus = {
    #if os(iOS)
    return errSecParam
    #else
    return errSecSuccess
    #endif
}()

extension SecItemParity {
    @Suite("SecItemUpdate and SecItemDelete")
    struct UpdateDelete {
        @Test("8 update replaces the data, and an attribute at the same time")
        func updateData() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", [kSecValueData: bytes("old")]))
            #expect(keychain.update(keychain.password("a"), [kSecValueData: bytes("new")]) == errSecSuccess)
            #expect(keychain.data(keychain.password("a")) == bytes("new"))
            keychain.mustAdd(keychain.internetPassword("alice", [kSecValueData: bytes("I1")]))
            #expect(keychain.update(keychain.internetPassword(), [kSecValueData: bytes("I2"), kSecAttrLabel: "L"]) == errSecSuccess)
            #expect(keychain.data(keychain.internetPassword()) == bytes("I2"))
            #expect(text(keychain.attributes(keychain.internetPassword()), kSecAttrLabel) == "L")
        }

        @Test("9 update with kSecValueData that is not Data (null, a string, a number) is errSecParam; the data is unchanged")
        func updateDataWrongType() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", [kSecValueData: bytes("D1")]))
            for value: Any in [kCFNull!, "string", 42] {
                #expect(keychain.update(keychain.password("a"), [kSecValueData: value]) == errSecParam, "\(value)")
            }
            #expect(keychain.data(keychain.password("a")) == bytes("D1"))
        }

        @Test("10 update whose query matches nothing is errSecItemNotFound")
        func updateNothing() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.update(keychain.password("a"), [kSecAttrLabel: "x"]) == errSecItemNotFound)
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.update(keychain.password("other"), [kSecAttrLabel: "x"]) == errSecItemNotFound)
            #expect(keychain.update(keychain.internetPassword(), [kSecAttrLabel: "x"]) == errSecItemNotFound)
        }

        @Test("11 update moving an item onto another item's key is errSecDuplicateItem and changes neither; onto a free key it moves")
        func updateCausingDuplicate() throws {
            let keychain = try ParityKeychain()
            let one = "one." + keychain.server, two = "two." + keychain.server, three = "three." + keychain.server
            keychain.mustAdd(keychain.internetPassword("alice", [kSecAttrServer: one, kSecValueData: bytes("1"), kSecAttrLabel: "first"]))
            keychain.mustAdd(keychain.internetPassword("alice", [kSecAttrServer: two, kSecValueData: bytes("2"), kSecAttrLabel: "second"]))
            #expect(keychain.update(keychain.internetPassword("alice", [kSecAttrServer: one]),
                                    [kSecAttrServer: two, kSecAttrLabel: "changed"]) == errSecDuplicateItem)
            #expect(keychain.data(keychain.internetPassword("alice", [kSecAttrServer: one])) == bytes("1"))
            #expect(text(keychain.attributes(keychain.internetPassword("alice", [kSecAttrServer: one])), kSecAttrLabel) == "first")
            #expect(text(keychain.attributes(keychain.internetPassword("alice", [kSecAttrServer: two])), kSecAttrLabel) == "second")
            #expect(keychain.update(keychain.internetPassword("alice", [kSecAttrServer: one]), [kSecAttrServer: three]) == errSecSuccess)
            #expect(keychain.status(keychain.internetPassword("alice", [kSecAttrServer: one])) == errSecItemNotFound)
            #expect(keychain.data(keychain.internetPassword("alice", [kSecAttrServer: three])) == bytes("1"))
            for server in [two, three] {
                #expect(keychain.delete([kSecClass: kSecClassInternetPassword, kSecAttrServer: server]) == errSecSuccess)
            }
        }

        @Test("12 delete of an item that does not exist is errSecItemNotFound; deleting twice is too")
        func deleteNothing() throws {
            let keychain = try ParityKeychain()
            #expect(keychain.delete(keychain.password("a")) == errSecItemNotFound)
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.delete(keychain.password("other")) == errSecItemNotFound)
            #expect(keychain.delete(keychain.password("a")) == errSecSuccess)
            #expect(keychain.delete(keychain.password("a")) == errSecItemNotFound)
        }

        @Test("13 update whose query asks for a result (kSecReturn* = true): errSecParam on iOS, ignored on macOS")
        func updateWithReturnKeys() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let expected = ParityKeychain.status(iOS: errSecParam, macOS: errSecSuccess)
            for key in [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef] {
                #expect(keychain.update(keychain.password("a", [key: true]), [kSecAttrLabel: "x"]) == expected, "\(key)")
            }
            #expect(text(keychain.attributes(keychain.password("a")), kSecAttrLabel) == (expected == errSecParam ? nil : "x"))
            // false means "not asked for".
            #expect(keychain.update(keychain.password("a", [kSecReturnData: false]), [kSecAttrLabel: "y"]) == errSecSuccess)
        }

        @Test("14 update whose query has kSecMatchLimitOne, a count or another match key: errSecParam on iOS (macOS strips them); kSecMatchLimitAll alone: errSecParam on iOS, every match elsewhere")
        func updateWithMatchKeys() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let expected = ParityKeychain.status(iOS: errSecParam, macOS: errSecSuccess)
            let matchEntries: [[CFString: Any]] = [[kSecMatchLimit: kSecMatchLimitOne], [kSecMatchLimit: 5],
                                                   [kSecMatchCaseInsensitive: true],
                                                   [kSecMatchLimit: kSecMatchLimitAll, kSecMatchCaseInsensitive: true]]
            for entries in matchEntries {
                #expect(keychain.update(keychain.password("a", entries), [kSecAttrLabel: "x"]) == expected, "\(entries.keys)")
            }
            keychain.mustAdd(keychain.password("b"))
            #expect(keychain.update(keychain.everyPassword([kSecMatchLimit: kSecMatchLimitAll]), [kSecAttrLabel: "both"]) == matchLimitAllAloneStatus)
            if matchLimitAllAloneStatus == errSecSuccess {
                #expect(text(keychain.attributes(keychain.password("a")), kSecAttrLabel) == "both")
                #expect(text(keychain.attributes(keychain.password("b")), kSecAttrLabel) == "both")
            }
        }

        @Test("15/16 keys that are not attributes in attributesToUpdate (class, return, match, use and value keys, another class's attribute) are errSecNoSuchAttr")
        func updateWithNonAttributes() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let nonAttributes: [[CFString: Any]] = [
                [kSecClass: kSecClassGenericPassword], [kSecClass: kSecClassInternetPassword],
                [kSecReturnData: true], [kSecMatchLimit: kSecMatchLimitAll],
                [kSecUseAuthenticationUI: kSecUseAuthenticationUISkip],
                ["u_CredRef" as CFString: bytes("credential")],  // kSecUseCredentialReference, Apple's SPI
                [kSecValuePersistentRef: bytes("genp0123456789abcdef")],
                [kSecAttrServer: "not a generic password attribute"],
            ]
            for changes in nonAttributes {
                #expect(keychain.update(keychain.password("a"), changes) == errSecNoSuchAttr, "\(changes.keys)")
            }
            #expect(try #require(keychain.attributes(keychain.password("a")))[kSecAttrServer as String] == nil)
        }

        @Test("17 delete with kSecMatchLimitOne, a count or another match key: errSecParam on iOS (macOS strips them); kSecMatchLimitAll alone: errSecParam on iOS, every match elsewhere")
        func deleteWithMatchKeys() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            keychain.mustAdd(keychain.password("b"))
            let expected = ParityKeychain.status(iOS: errSecParam, macOS: errSecSuccess)
            #expect(keychain.delete(keychain.password("a", [kSecMatchLimit: kSecMatchLimitOne])) == expected)
            if expected == errSecParam {
                #expect(keychain.delete(keychain.password("a", [kSecMatchLimit: 1])) == errSecParam)
                #expect(keychain.delete(keychain.password("a", [kSecMatchCaseInsensitive: true])) == errSecParam)
                #expect(keychain.status(keychain.password("a")) == errSecSuccess)
            }
            // The macOS removeAll idiom (KeychainAccess): every password of the service goes.
            #expect(keychain.delete(keychain.everyPassword([kSecMatchLimit: kSecMatchLimitAll])) == matchLimitAllAloneStatus)
            #expect(keychain.count(keychain.everyPassword()) == (matchLimitAllAloneStatus == errSecSuccess ? 0 : 2))
        }

        @Test("3.6 delete ignores kSecReturn* keys")
        func deleteIgnoresReturnKeys() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.delete(keychain.password("a", [kSecReturnData: true])) == errSecSuccess)
            #expect(keychain.status(keychain.password("a")) == errSecItemNotFound)
        }

        @Test("18 delete {class: generic password} removes every non-synchronizable one and nothing else; again is errSecItemNotFound")
        func deleteWholeClass() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("1"))
            keychain.mustAdd(keychain.password("2", [kSecAttrLabel: "another"]))
            keychain.mustAdd(keychain.password("3", [kSecAttrSynchronizable: true]))
            keychain.mustAdd(keychain.internetPassword())
            #expect(keychain.delete([kSecClass: kSecClassGenericPassword]) == errSecSuccess)
            #expect(keychain.count(keychain.everyPassword()) == 0)
            // The synchronizable one and the other class survive.
            #expect(keychain.count(keychain.everyPassword([kSecAttrSynchronizable: kSecAttrSynchronizableAny])) == 1)
            #expect(keychain.status(keychain.internetPassword()) == errSecSuccess)
            #expect(keychain.delete([kSecClass: kSecClassGenericPassword]) == errSecItemNotFound)
        }

        @Test("3.6 delete removes every matching item, not only the first")
        func deleteAllMatches() throws {
            let keychain = try ParityKeychain()
            for account in ["1", "2", "3"] { keychain.mustAdd(keychain.password(account)) }
            keychain.mustAdd(keychain.internetPassword())
            #expect(keychain.delete(keychain.everyPassword()) == errSecSuccess)
            #expect(keychain.count(keychain.everyPassword()) == 0)
            #expect(keychain.status(keychain.internetPassword()) == errSecSuccess)
        }

        @Test("3.5 update changes every matching item")
        func updateAllMatches() throws {
            let keychain = try ParityKeychain()
            for account in ["1", "2", "3"] { keychain.mustAdd(keychain.password(account)) }
            #expect(keychain.update(keychain.everyPassword(), [kSecAttrLabel: "all"]) == errSecSuccess)
            #expect(keychain.count(keychain.everyPassword([kSecAttrLabel: "all"])) == 3)
        }

        @Test("60 update moves the modification date forward by at least 1 ms, keeps the creation date, ignores a given modification date")
        func updateMovesModificationDate() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let before = try #require(keychain.attributes(keychain.password("a")))
            let created = try #require(date(before, kSecAttrCreationDate))
            let modified = try #require(date(before, kSecAttrModificationDate))
            #expect(keychain.update(keychain.password("a"), [kSecAttrLabel: "x",
                                                             kSecAttrModificationDate: Date(timeIntervalSinceReferenceDate: 5)]) == errSecSuccess)
            let after = try #require(keychain.attributes(keychain.password("a")))
            let newModified = try #require(date(after, kSecAttrModificationDate))
            #expect(newModified.timeIntervalSince(modified) >= 0.001)
            #expect(date(after, kSecAttrCreationDate) == created)
            #expect(keychain.update(keychain.password("a"), [kSecAttrLabel: "y"]) == errSecSuccess)
            let third = try #require(date(keychain.attributes(keychain.password("a")), kSecAttrModificationDate))
            #expect(third.timeIntervalSince(newModified) >= 0.001)
        }

        @Test("3.11 a creation date in attributesToUpdate is copied; one that is not a date is errSecParam")
        func updateCreationDate() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let chosen = Date(timeIntervalSinceReferenceDate: 86_400)
            #expect(keychain.update(keychain.password("a"), [kSecAttrCreationDate: chosen]) == errSecSuccess)
            #expect(date(keychain.attributes(keychain.password("a")), kSecAttrCreationDate) == chosen)
            #expect(keychain.update(keychain.password("a"), [kSecAttrCreationDate: "not a date"]) == errSecParam)
        }

        @Test("61 update with an empty attributesToUpdate succeeds; only the modification date moves")
        func updateWithNothing() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", [kSecValueData: bytes("secret"), kSecAttrLabel: "L"]))
            let before = try #require(date(keychain.attributes(keychain.password("a")), kSecAttrModificationDate))
            #expect(keychain.update(keychain.password("a"), [:]) == errSecSuccess)
            let after = try #require(keychain.attributes(keychain.password("a")))
            #expect(text(after, kSecAttrLabel) == "L")
            #expect(keychain.data(keychain.password("a")) == bytes("secret"))
            #expect(try #require(date(after, kSecAttrModificationDate)) > before)
        }

        @Test("62 an update of two items that gives both the same account is errSecDuplicateItem and changes neither")
        func updateCollidingWithItself() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("1", [kSecValueData: bytes("one")]))
            keychain.mustAdd(keychain.password("2", [kSecValueData: bytes("two")]))
            #expect(keychain.update(keychain.everyPassword(), [kSecAttrAccount: "same", kSecValueData: bytes("new")]) == errSecDuplicateItem)
            #expect(keychain.status(keychain.password("same")) == errSecItemNotFound)
            #expect(keychain.data(keychain.password("1")) == bytes("one"))
            #expect(keychain.data(keychain.password("2")) == bytes("two"))
        }

        @Test("3.5 update of the accessibility keeps the item readable under its new class; a bogus one is errSecParam")
        func updateAccessibility() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", [kSecValueData: bytes("secret")]))
            #expect(keychain.update(keychain.password("a"), [kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock]) == errSecSuccess)
            #expect(text(keychain.attributes(keychain.password("a")), kSecAttrAccessible) == kSecAttrAccessibleAfterFirstUnlock as String)
            #expect(keychain.data(keychain.password("a")) == bytes("secret"))
            #expect(keychain.update(keychain.password("a"), [kSecAttrAccessible: "bogus"]) == errSecParam)
        }

        @Test("3.5 update of a key attribute to an empty value collides with the item whose attribute is absent")
        func updateToEmptyKeyCollides() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd([kSecClass: kSecClassGenericPassword, kSecAttrService: keychain.service])
            keychain.mustAdd(keychain.password("x"))
            #expect(keychain.update(keychain.password("x"), [kSecAttrAccount: ""]) == errSecDuplicateItem)
            #expect(keychain.update(keychain.password("x"), [kSecAttrAccount: Data()]) == errSecDuplicateItem)
        }
    }
}
