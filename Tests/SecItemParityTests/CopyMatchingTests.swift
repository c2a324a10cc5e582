// SecItemCopyMatching: filtering, limits, result shapes and persistent references.

import Foundation
import KeychainServices
import Testing

/// The kSecReturn* keys a query asks for.
struct ReturnKeys: Sendable, CustomTestStringConvertible {
    var data = false
    var attributes = false
    var ref = false
    var persistentRef = false

    /// All sixteen combinations.
    static let all: [ReturnKeys] = (0..<16).map { bits in
        ReturnKeys(data: bits & 1 != 0, attributes: bits & 2 != 0, ref: bits & 4 != 0, persistentRef: bits & 8 != 0)
    }

    var entries: [CFString: Any] {
        var query: [CFString: Any] = [:]
        if data { query[kSecReturnData] = true }
        if attributes { query[kSecReturnAttributes] = true }
        if ref { query[kSecReturnRef] = true }
        if persistentRef { query[kSecReturnPersistentRef] = true }
        return query
    }

    var count: Int { [data, attributes, ref, persistentRef].filter { $0 }.count }

    var testDescription: String {
        let names = [(data, "data"), (attributes, "attributes"), (ref, "ref"), (persistentRef, "persistentRef")].filter(\.0).map(\.1)
        return names.isEmpty ? "no return keys" : names.joined(separator: "+")
    }
}

/// A kSecMatchLimit value, or none.
enum LimitCase: Sendable, CaseIterable, CustomTestStringConvertible {
    case absent, one, all, numericTwo, numericOne, numericZero

    var entries: [CFString: Any] {
        switch self {
        case .absent: return [:]
        case .one: return [kSecMatchLimit: kSecMatchLimitOne]
        case .all: return [kSecMatchLimit: kSecMatchLimitAll]
        case .numericTwo: return [kSecMatchLimit: NSNumber(value: 2)]
        case .numericOne: return [kSecMatchLimit: NSNumber(value: 1)]
        case .numericZero: return [kSecMatchLimit: NSNumber(value: 0)]
        }
    }

    var testDescription: String {
        switch self {
        case .absent: return "no limit (default one)"
        case .one: return "kSecMatchLimitOne"
        case .all: return "kSecMatchLimitAll"
        case .numericTwo: return "limit 2"
        case .numericOne: return "limit 1"
        case .numericZero: return "limit 0"
        }
    }
}

extension SecItemParity {
    @Suite("SecItemCopyMatching")
    struct CopyMatching {
        /// A keychain with three generic passwords of its service: accounts a0…a2, data d0…d2.
        private func threeItems() throws -> ParityKeychain {
            let keychain = try ParityKeychain()
            for index in 0..<3 { keychain.mustAdd(keychain.password("a\(index)", [kSecValueData: bytes("d\(index)")])) }
            return keychain
        }

        /// The account of one result value (a dictionary with attributes, or a persistent
        /// reference looked up), checked against Apple's per-item table for `keys`.
        private func check(_ value: Any, keys: ReturnKeys, keychain: ParityKeychain,
                           sourceLocation: SourceLocation = #_sourceLocation) -> String? {
            if keys.count == 1 {
                if keys.data { return (value as? Data).flatMap { String(data: $0, encoding: .utf8) }.map { "a" + $0.dropFirst() } }
                if keys.persistentRef {
                    guard let reference = value as? Data else { return nil }
                    return text(keychain.attributes([kSecValuePersistentRef: reference]), kSecAttrAccount)
                }
                let attributes = value as? [String: Any]
                #expect(attributes?[kSecValueData as String] == nil, sourceLocation: sourceLocation)
                #expect(attributes?[kSecClass as String] == nil, sourceLocation: sourceLocation)
                #expect(attributes?[kSecValuePersistentRef as String] == nil, sourceLocation: sourceLocation)
                return text(attributes, kSecAttrAccount)
            }
            guard let dictionary = value as? [String: Any] else {
                Issue.record("expected a dictionary for \(keys.testDescription), got \(type(of: value))", sourceLocation: sourceLocation)
                return nil
            }
            let hasAttributes = keys.attributes || keys.ref
            #expect((dictionary[kSecAttrAccount as String] != nil) == hasAttributes, sourceLocation: sourceLocation)
            #expect((dictionary[kSecValueData as String] != nil) == keys.data, sourceLocation: sourceLocation)
            #expect((dictionary[kSecValuePersistentRef as String] as? Data != nil) == keys.persistentRef, sourceLocation: sourceLocation)
            #expect((dictionary[kSecClass as String] as? String) == (keys.ref ? kSecClassGenericPassword as String : nil),
                    sourceLocation: sourceLocation)
            #expect(dictionary[kSecValueRef as String] == nil, sourceLocation: sourceLocation)
            if !hasAttributes {
                // Data and persistent reference without attributes: just those two keys.
                #expect(Set(dictionary.keys).isSubset(of: [kSecValueData as String, kSecValuePersistentRef as String]),
                        sourceLocation: sourceLocation)
            }
            if let data = dictionary[kSecValueData as String] as? Data, let account = text(dictionary, kSecAttrAccount) {
                #expect(String(data: data, encoding: .utf8) == "d" + account.dropFirst(), "data and attributes of one item",
                        sourceLocation: sourceLocation)
            }
            return text(dictionary, kSecAttrAccount)
                ?? (dictionary[kSecValueData as String] as? Data).flatMap { String(data: $0, encoding: .utf8) }.map { "a" + $0.dropFirst() }
        }

        @Test("28/29 result shape for every kSecReturn* and kSecMatchLimit combination", arguments: ReturnKeys.all, LimitCase.allCases)
        func resultShape(keys: ReturnKeys, limit: LimitCase) throws {
            let keychain = try threeItems()
            let outcome = keychain.copy(keychain.everyPassword(keys.entries.merging(limit.entries) { $1 }))
            // What one password yields: nothing for no keys, or for a lone kSecReturnRef.
            let yieldsValue = keys.count > 1 || (keys.count == 1 && !keys.ref)
            switch limit {
            case .numericZero:
                #expect(outcome.status == errSecItemNotFound)
                #expect(outcome.result == nil)
            case .absent, .one, .numericOne:
                #expect(outcome.status == errSecSuccess)
                if yieldsValue {
                    let value = try #require(outcome.result)
                    #expect(!(value is [Any]), "limit one returns a single object, not an array")
                    #expect(["a0", "a1", "a2"].contains(check(value, keys: keys, keychain: keychain) ?? "none"))
                } else {
                    #expect(outcome.result == nil)
                }
            case .all, .numericTwo:
                #expect(outcome.status == errSecSuccess)
                let array = try #require(outcome.result as? [Any], "any limit but one returns an array")
                let expected = yieldsValue ? (limit == .all ? 3 : 2) : 0
                #expect(array.count == expected)
                let accounts = array.compactMap { check($0, keys: keys, keychain: keychain) }
                #expect(accounts.count == expected)
                #expect(Set(accounts).count == accounts.count, "each item once")
            }
        }

        @Test("29 a numeric limit of 2 with one match is still an array (of one)")
        func limitTwoOfOne() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", [kSecValueData: bytes("secret")]))
            let outcome = keychain.copy(keychain.password("a", [kSecReturnData: true, kSecMatchLimit: 2]))
            #expect(outcome.status == errSecSuccess)
            #expect(outcome.result as? [Data] == [bytes("secret")])
        }

        @Test("2 reading an absent item is errSecItemNotFound and leaves the result untouched")
        func notFound() throws {
            let keychain = try ParityKeychain()
            for query in [keychain.password("none"), keychain.password("none", [kSecReturnData: true]),
                          keychain.password("none", [kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitAll])] {
                var result: CFTypeRef?
                #expect(SecItemCopyMatching(keychain.scoped(query), &result) == errSecItemNotFound)
                #expect(result == nil)
            }
            var untouched: CFTypeRef? = "untouched" as CFString
            #expect(SecItemCopyMatching(keychain.scoped(keychain.password("none", [kSecReturnData: true])), &untouched) == errSecItemNotFound)
            #expect(untouched as? String == "untouched")
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.status(keychain.password("other")) == errSecItemNotFound)
        }

        @Test("3.4 the default limit is one; a query without kSecReturn* keys is an existence test")
        func defaultLimitOne() throws {
            let keychain = try threeItems()
            let first = keychain.copy(keychain.everyPassword([kSecReturnData: true]))
            #expect([bytes("d0"), bytes("d1"), bytes("d2")].contains(first.result as? Data ?? Data()))
            let exists = keychain.copy(keychain.password("a1"))
            #expect(exists.status == errSecSuccess)
            #expect(exists.result == nil)
        }

        @Test("3.4 a query may pass a nil result pointer: the status alone")
        func nilResultPointer() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", [kSecValueData: bytes("x")]))
            #expect(SecItemCopyMatching(keychain.scoped(keychain.password("a", [kSecReturnData: true])), nil) == errSecSuccess)
            #expect(SecItemCopyMatching(keychain.scoped(keychain.password("b", [kSecReturnData: true])), nil) == errSecItemNotFound)
        }

        @Test("24 a generic password with only kSecReturnRef: success, no result")
        func returnRefOfPassword() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let outcome = keychain.copy(keychain.password("a", [kSecReturnRef: true]))
            #expect(outcome.status == errSecSuccess)
            #expect(outcome.result == nil)
        }

        @Test("25 an item without data, read with data, attributes and kSecMatchLimitAll: an array of one dictionary without kSecValueData")
        func itemWithoutData() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            let outcome = keychain.copy(keychain.password("a", [kSecReturnData: true, kSecReturnAttributes: true,
                                                                kSecMatchLimit: kSecMatchLimitAll]))
            #expect(outcome.status == errSecSuccess)
            let array = try #require(outcome.result as? [[String: Any]])
            #expect(array.count == 1)
            #expect(array.first?[kSecValueData as String] == nil)
            #expect(text(array.first, kSecAttrService) == keychain.service)
            #expect(text(array.first, kSecAttrAccount) == "a")
        }

        @Test("26 data and persistent references with kSecMatchLimitAll: dictionaries holding exactly kSecValueData and kSecValuePersistentRef")
        func dataAndPersistentReferences() throws {
            let keychain = try threeItems()
            let outcome = keychain.copy(keychain.everyPassword([kSecReturnData: true, kSecReturnPersistentRef: true,
                                                                kSecMatchLimit: kSecMatchLimitAll]))
            let array = try #require(outcome.result as? [[String: Any]])
            #expect(array.count == 3)
            for dictionary in array {
                #expect(Set(dictionary.keys) == [kSecValueData as String, kSecValuePersistentRef as String])
            }
            #expect(Set(array.compactMap { $0[kSecValueData as String] as? Data }) == [bytes("d0"), bytes("d1"), bytes("d2")])
        }

        @Test("27 kSecReturnData with kSecMatchLimitAll: an array of Data")
        func dataArray() throws {
            let keychain = try threeItems()
            let outcome = keychain.copy(keychain.everyPassword([kSecReturnData: true, kSecMatchLimit: kSecMatchLimitAll]))
            #expect(outcome.status == errSecSuccess)
            #expect(Set(outcome.result as? [Data] ?? []) == [bytes("d0"), bytes("d1"), bytes("d2")])
        }

        @Test("28 kSecReturnAttributes with kSecMatchLimitOne: one dictionary, not an array")
        func attributesLimitOne() throws {
            let keychain = try threeItems()
            let outcome = keychain.copy(keychain.password("a2", [kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitOne]))
            #expect(text(try #require(outcome.result as? [String: Any]), kSecAttrAccount) == "a2")
        }

        @Test("32 a returned attribute dictionary, with kSecClass and kSecReturnData added, finds the same item")
        func attributesAsQuery() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.internetPassword("alice", [kSecValueData: bytes("inet-secret"), kSecAttrPort: 443,
                                                                 kSecAttrPath: "/p", kSecAttrLabel: "L"]))
            keychain.mustAdd(keychain.internetPassword("bob", [kSecValueData: bytes("other")]))
            let attributes = try #require(keychain.attributes(keychain.internetPassword("alice", [kSecAttrPort: 443])))
            var query: [CFString: Any] = [:]
            for (key, value) in attributes { query[key as CFString] = value }
            query[kSecClass] = kSecClassInternetPassword
            query[kSecReturnData] = true
            let outcome = keychain.copy(query)
            #expect(outcome.status == errSecSuccess)
            #expect(outcome.result as? Data == bytes("inet-secret"))
        }

        @Test("3.4 a result dictionary gives its values under every cast wrappers read it with: [String: Any], [AnyHashable: Any] by the CFString constant or by String, [[AnyHashable: Any]], NSDictionary, CFDictionary")
        func resultDictionaryCasts() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("alice", [kSecValueData: bytes("secret"), kSecAttrLabel: "L"]))
            let one = try #require(keychain.copy(keychain.password("alice", [kSecReturnAttributes: true, kSecReturnData: true])).result)

            let strings = try #require(one as? [String: Any])
            #expect(strings[kSecAttrAccount as String] as? String == "alice")
            let objects = try #require(one as? [String: AnyObject])
            #expect(objects[kSecAttrAccount as String] as? String == "alice")

            let hashables = one as! [AnyHashable: Any]
            #expect(hashables[kSecAttrAccount] as? String == "alice", "the CFString constant as the key")
            #expect(hashables[kSecAttrAccount as String] as? String == "alice", "the constant's String as the key")
            #expect(hashables[kSecValueData] as? Data == bytes("secret"))
            #expect(hashables[kSecAttrLabel] as? String == "L")
            #expect(hashables.keys.contains(kSecAttrService as AnyHashable))
            #expect(hashables.keys.contains((kSecAttrService as String) as AnyHashable))

            let nsDictionary = try #require(one as? NSDictionary)
            #expect(nsDictionary[kSecAttrAccount] as? String == "alice")
            #expect(nsDictionary[kSecAttrAccount as String] as? String == "alice")
            #expect(nsDictionary.object(forKey: kSecAttrAccount) as? String == "alice")

            let cfDictionary = one as! CFDictionary
            #expect((cfDictionary as NSDictionary)[kSecAttrAccount] as? String == "alice")
            #expect((cfDictionary as? [AnyHashable: Any])?[kSecAttrAccount] as? String == "alice")
            #expect((cfDictionary as? [String: Any])?[kSecAttrAccount as String] as? String == "alice")

            keychain.mustAdd(keychain.password("bob"))
            let all = try #require(keychain.copy(keychain.everyPassword([kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitAll])).result)
            let list = try #require(all as? [[AnyHashable: Any]])
            #expect(Set(list.compactMap { $0[kSecAttrAccount] as? String }) == ["alice", "bob"])
            #expect(Set(list.compactMap { $0[kSecAttrAccount as String] as? String }) == ["alice", "bob"])
            let array = try #require(all as? NSArray)
            #expect((array.firstObject as? NSDictionary)?[kSecAttrService] as? String == keychain.service)

            // A dictionary built with the constants as keys is read back by their strings, and the
            // two spellings are one key.
            var built: [AnyHashable: Any] = [kSecAttrAccount: "carol"]
            #expect(built[kSecAttrAccount as String] as? String == "carol")
            built[kSecAttrAccount as String] = "dave"
            #expect(built.count == 1)
            #expect(built[kSecAttrAccount] as? String == "dave")
        }

        @Test("63 a persistent reference alone finds its item; the attributes hold no persistent reference")
        func persistentReferenceAlone() throws {
            let keychain = try ParityKeychain()
            let reference = try #require(keychain.add(keychain.password("a", [kSecReturnPersistentRef: true, kSecAttrLabel: "L"])).result as? Data)
            let outcome = keychain.copy([kSecValuePersistentRef: reference, kSecReturnAttributes: true])
            #expect(outcome.status == errSecSuccess)
            let attributes = try #require(outcome.result as? [String: Any])
            #expect(text(attributes, kSecAttrLabel) == "L")
            #expect(attributes[kSecAttrPersistentReference as String] == nil)
            #expect(attributes[kSecValuePersistentRef as String] == nil)
            #expect(attributes["UUID"] == nil, "securityd's internal UUID column")
        }

        @Test("19/3.10 persistent references: 20 bytes led by the class; they find the data, survive updates, select updates and deletes, and die with the item")
        func persistentReferences() throws {
            let keychain = try ParityKeychain()
            let password = try #require(keychain.add(keychain.password("a", [kSecValueData: bytes("secret"), kSecReturnPersistentRef: true])).result as? Data)
            #expect(password.count == 20)
            #expect(password.prefix(4) == bytes("genp"))
            let internet = try #require(keychain.add(keychain.internetPassword("alice", [kSecReturnPersistentRef: true])).result as? Data)
            #expect(internet.prefix(4) == bytes("inet"))
            #expect(password.suffix(16) != internet.suffix(16))
            #expect(keychain.copy(keychain.password("a", [kSecReturnPersistentRef: true])).result as? Data == password)
            #expect(keychain.data([kSecClass: kSecClassGenericPassword, kSecValuePersistentRef: password]) == bytes("secret"))
            // Stable across an update of the data and of a key attribute.
            #expect(keychain.update(keychain.password("a"), [kSecValueData: bytes("new"), kSecAttrAccount: "renamed"]) == errSecSuccess)
            #expect(keychain.copy(keychain.password("renamed", [kSecReturnPersistentRef: true])).result as? Data == password)
            #expect(keychain.data([kSecValuePersistentRef: password]) == bytes("new"))
            #expect(keychain.update([kSecValuePersistentRef: password], [kSecAttrLabel: "via reference"]) == errSecSuccess)
            #expect(text(keychain.attributes(keychain.password("renamed")), kSecAttrLabel) == "via reference")
            #expect(keychain.delete([kSecValuePersistentRef: password]) == errSecSuccess)
            #expect(keychain.status([kSecValuePersistentRef: password]) == errSecItemNotFound)
            #expect(keychain.status(keychain.internetPassword()) == errSecSuccess)
        }

        @Test("3.10 a persistent reference of another class than kSecClass, cut short or not Data is errSecParam")
        func badPersistentReferences() throws {
            let keychain = try ParityKeychain()
            let reference = try #require(keychain.add(keychain.password("a", [kSecReturnPersistentRef: true])).result as? Data)
            #expect(keychain.status([kSecClass: kSecClassInternetPassword, kSecValuePersistentRef: reference]) == errSecParam)
            #expect(keychain.status([kSecValuePersistentRef: reference.prefix(12)]) == errSecParam)
            #expect(keychain.status([kSecValuePersistentRef: bytes("zzzz") + reference.suffix(16)]) == errSecParam)
            #expect(keychain.status([kSecValuePersistentRef: "genp0123456789abcdef"]) == errSecParam)
        }

        @Test("3.4 a persistent-reference query finds synchronizable items too")
        func persistentReferenceFindsSynchronizable() throws {
            let keychain = try ParityKeychain()
            let reference = try #require(keychain.add(keychain.password("a", [kSecValueData: bytes("s"), kSecAttrSynchronizable: true,
                                                                              kSecReturnPersistentRef: true])).result as? Data)
            #expect(keychain.data([kSecValuePersistentRef: reference]) == bytes("s"))
        }

        @Test("64 a persistent reference together with an attribute is errSecParam in CopyMatching, Update and Delete")
        func persistentReferencePlusAttribute() throws {
            let keychain = try ParityKeychain()
            let reference = try #require(keychain.add(keychain.password("a", [kSecReturnPersistentRef: true])).result as? Data)
            let byReference: [CFString: Any] = [kSecValuePersistentRef: reference]
            for extra: [CFString: Any] in [[kSecAttrAccount: "a"], [kSecAttrLabel: "L"], [kSecAttrSynchronizable: false],
                                             [kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked]] {
                #expect(keychain.status(byReference.merging(extra) { $1 }) == errSecParam, "\(extra.keys)")
            }
            #expect(keychain.delete(byReference.merging([kSecAttrAccount: "a"]) { $1 }) == errSecParam)
            #expect(keychain.update(byReference.merging([kSecAttrAccount: "a"]) { $1 }, [kSecAttrLabel: "x"]) == errSecParam)
            // Class, return and match keys may accompany it.
            #expect(keychain.status(byReference.merging([kSecClass: kSecClassGenericPassword, kSecReturnData: true,
                                                         kSecMatchLimit: kSecMatchLimitOne]) { $1 }) == errSecSuccess)
            #expect(keychain.status(keychain.password("a")) == errSecSuccess)
        }

        @Test("65 kSecMatchHostOrSubdomainOfHost: the server itself and its parent domains match, other hosts do not")
        func hostOrSubdomain() throws {
            let keychain = try ParityKeychain()
            let parent = keychain.server
            keychain.mustAdd(keychain.internetPassword("alice", [kSecAttrServer: "origin." + parent]))
            func find(_ host: String) -> OSStatus {
                keychain.status([kSecClass: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost: host])
            }
            #expect(find(parent) == errSecSuccess)
            #expect(find("origin." + parent) == errSecSuccess)
            #expect(find("foobar.example") == errSecItemNotFound)
            #expect(find(String(parent.dropFirst(3))) == errSecItemNotFound)
            #expect(find("other.origin." + parent) == errSecItemNotFound)
            let attributes = keychain.copy([kSecClass: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost: parent,
                                            kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitOne]).result as? [String: Any]
            #expect(text(attributes, kSecAttrServer) == "origin." + parent)
            #expect(keychain.delete([kSecClass: kSecClassInternetPassword, kSecAttrServer: "origin." + parent]) == errSecSuccess)
        }

        @Test("66 kSecMatchHostOrSubdomainOfHost on a generic password query is errSecUnimplemented")
        func hostMatchOnGenericPassword() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a"))
            #expect(keychain.status(keychain.password("a", [kSecMatchHostOrSubdomainOfHost: "example.com"])) == errSecUnimplemented)
        }

        @Test("67 kSecMatchCaseInsensitive is ignored: account \"FOO\" does not find \"foo\"; labels compare exactly")
        func caseInsensitiveIgnored() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("foo"))
            #expect(keychain.status(keychain.password("FOO", [kSecMatchCaseInsensitive: true])) == errSecItemNotFound)
            #expect(keychain.status(keychain.password("foo", [kSecMatchCaseInsensitive: true])) == errSecSuccess)
            keychain.mustAdd(keychain.password("bar", [kSecAttrLabel: "Label"]))
            #expect(keychain.status(keychain.everyPassword([kSecAttrLabel: "label"])) == errSecItemNotFound)
            #expect(keychain.status(keychain.everyPassword([kSecAttrLabel: "Label"])) == errSecSuccess)
        }

        @Test("70 kSecValueData in a query is not a filter (CopyMatching and Delete)")
        func dataIsNotAFilter() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("a", [kSecValueData: bytes("real")]))
            let outcome = keychain.copy(keychain.password("a", [kSecValueData: bytes("something else"), kSecReturnData: true]))
            #expect(outcome.status == errSecSuccess)
            #expect(outcome.result as? Data == bytes("real"))
            #expect(keychain.delete(keychain.password("a", [kSecValueData: bytes("wrong")])) == errSecSuccess)
        }

        @Test("3.4 filters on non-key attributes and on accessibility narrow the search; classes are separate")
        func nonKeyFilters() throws {
            let keychain = try ParityKeychain()
            keychain.mustAdd(keychain.password("1", [kSecAttrLabel: "L", kSecAttrType: 7]))
            keychain.mustAdd(keychain.password("2", [kSecAttrLabel: "M", kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock]))
            #expect(keychain.count(keychain.everyPassword([kSecAttrLabel: "L"])) == 1)
            #expect(keychain.count(keychain.everyPassword([kSecAttrType: 7])) == 1)
            #expect(keychain.count(keychain.everyPassword([kSecAttrType: 8])) == 0)
            #expect(keychain.count(keychain.everyPassword([kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock])) == 1)
            #expect(keychain.count(keychain.everyPassword()) == 2)
            #expect(keychain.count([kSecClass: kSecClassInternetPassword, kSecAttrServer: keychain.server]) == 0)
        }
    }
}
