import Foundation
import KeychainEngine
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

    var entries: Query {
        var query: Query = [:]
        if data { query[kSecReturnData as String] = yes }
        if attributes { query[kSecReturnAttributes as String] = yes }
        if ref { query[kSecReturnRef as String] = yes }
        if persistentRef { query[kSecReturnPersistentRef as String] = yes }
        return query
    }

    var count: Int { [data, attributes, ref, persistentRef].filter { $0 }.count }

    var testDescription: String {
        let names = [(data, "data"), (attributes, "attributes"), (ref, "ref"), (persistentRef, "persistentRef")]
            .filter(\.0).map(\.1)
        return names.isEmpty ? "no return keys" : names.joined(separator: "+")
    }
}

/// A kSecMatchLimit value, or none.
enum LimitCase: Sendable, CaseIterable, CustomTestStringConvertible {
    case absent, one, all, numericTwo, numericOne, numericZero

    var entries: Query {
        switch self {
        case .absent: return [:]
        case .one: return [kSecMatchLimit as String: kSecMatchLimitOne]
        case .all: return [kSecMatchLimit as String: kSecMatchLimitAll]
        case .numericTwo: return [kSecMatchLimit as String: NSNumber(value: 2)]
        case .numericOne: return [kSecMatchLimit as String: NSNumber(value: 1)]
        case .numericZero: return [kSecMatchLimit as String: NSNumber(value: 0)]
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

/// SecItemCopyMatching: filtering, limits and result shapes (§3.4, items 2–4, 24–32, 63–67, 70).
@Suite("Conformance: SecItemCopyMatching")
struct CopyMatchingTests {
    /// Three generic passwords of service "s", accounts a0…a2, data d0…d2, added in that order.
    private func threeItems() throws -> SecItemEngine {
        let engine = try makeEngine()
        for index in 0..<3 { engine.mustAdd(genp(account: "a\(index)", data: bytes("d\(index)"))) }
        return engine
    }

    /// Checks one per-item value against §3.4's table for `keys`; `index` is the item's position.
    private func checkValue(_ value: Any, keys: ReturnKeys, index: Int, engine: SecItemEngine,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        if keys.count == 1 {
            if keys.data {
                #expect(value as? Data == bytes("d\(index)"), sourceLocation: sourceLocation)
            } else if keys.persistentRef {
                let reference = value as? Data
                #expect(reference?.count == 20, sourceLocation: sourceLocation)
                #expect(reference?.prefix(4) == bytes("genp"), sourceLocation: sourceLocation)
                if let reference {
                    let found = engine.readAttributes([kSecValuePersistentRef as String: reference])
                    #expect(text(found, kSecAttrAccount) == "a\(index)", sourceLocation: sourceLocation)
                }
            } else if keys.attributes {
                let attributes = value as? [String: Any]
                #expect(text(attributes, kSecAttrAccount) == "a\(index)", sourceLocation: sourceLocation)
                #expect(attributes?[kSecValueData as String] == nil, sourceLocation: sourceLocation)
                #expect(attributes?[kSecClass as String] == nil, sourceLocation: sourceLocation)
                #expect(attributes?[kSecValuePersistentRef as String] == nil, sourceLocation: sourceLocation)
            } else {
                Issue.record("a lone kSecReturnRef yields no value for passwords", sourceLocation: sourceLocation)
            }
            return
        }
        guard let dictionary = value as? [String: Any] else {
            Issue.record("expected a dictionary for \(keys.testDescription), got \(type(of: value))", sourceLocation: sourceLocation)
            return
        }
        let hasAttributes = keys.attributes || keys.ref
        #expect((dictionary[kSecAttrAccount as String] != nil) == hasAttributes, sourceLocation: sourceLocation)
        if hasAttributes { #expect(text(dictionary, kSecAttrAccount) == "a\(index)", sourceLocation: sourceLocation) }
        #expect((dictionary[kSecValueData as String] as? Data) == (keys.data ? bytes("d\(index)") : nil),
                sourceLocation: sourceLocation)
        #expect((dictionary[kSecValuePersistentRef as String] as? Data)?.count == (keys.persistentRef ? 20 : nil),
                sourceLocation: sourceLocation)
        #expect((dictionary[kSecClass as String] as? String) == (keys.ref ? "genp" : nil), sourceLocation: sourceLocation)
        #expect(dictionary[kSecValueRef as String] == nil, sourceLocation: sourceLocation)
        if !hasAttributes {
            // Data + PersistentRef without attributes: just those keys (si-78).
            #expect(Set(dictionary.keys).isSubset(of: [kSecValueData as String, kSecValuePersistentRef as String]),
                    sourceLocation: sourceLocation)
        }
    }

    @Test("28/29 result shape for every kSecReturn* / kSecMatchLimit combination",
          arguments: ReturnKeys.all, LimitCase.allCases)
    func resultShape(keys: ReturnKeys, limit: LimitCase) throws {
        let engine = try threeItems()
        let query = with(with([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"], keys.entries),
                         limit.entries)
        let result = engine.copyMatching(query)
        // What a single item yields: nothing for no keys or a lone kSecReturnRef on a password.
        let yieldsValue = keys.count > 1 || (keys.count == 1 && !keys.ref)
        switch limit {
        case .numericZero:
            #expect(result.status == errSecItemNotFound)
            #expect(result.value == nil)
        case .absent, .one, .numericOne:
            #expect(result.status == errSecSuccess)
            if yieldsValue {
                let value = try #require(result.value)
                #expect(!(value is [Any]), "limit one returns a single object, not an array")
                checkValue(value, keys: keys, index: 0, engine: engine)
            } else {
                #expect(result.value == nil)
            }
        case .all, .numericTwo:
            #expect(result.status == errSecSuccess)
            let array = try #require(result.value as? [Any], "any limit but one returns an array")
            let expected = limit == .all ? 3 : 2
            #expect(array.count == (yieldsValue ? expected : 0))
            for (index, value) in array.enumerated() { checkValue(value, keys: keys, index: index, engine: engine) }
        }
    }

    @Test("29 limit 2 of one match is still an array (of one)")
    func limitTwoOfOneIsArray() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let result = engine.copyMatching(genpQuery([kSecReturnData as String: yes, kSecMatchLimit as String: 2]))
        #expect(result.status == errSecSuccess)
        #expect((result.value as? [Any])?.count == 1)
        #expect((result.value as? [Data])?.first == bytes("secret"))
    }

    @Test("3.4 kSecMatchLimit = -1 is Apple's \"unlimited\": an array of every match")
    func limitMinusOne() throws {
        let engine = try threeItems()
        let result = engine.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: yes,
                                          kSecMatchLimit as String: -1])
        #expect(result.value as? [Data] == [bytes("d0"), bytes("d1"), bytes("d2")])
    }

    @Test("2 CopyMatching an absent item → errSecItemNotFound and no result")
    func findNothing() throws {
        let engine = try makeEngine()
        for query in [genpQuery(), genpQuery([kSecReturnData as String: yes]),
                      genpQuery([kSecReturnAttributes as String: yes, kSecMatchLimit as String: kSecMatchLimitAll])] {
            let result = engine.copyMatching(query)
            #expect(result.status == errSecItemNotFound)
            #expect(result.value == nil)
        }
        engine.mustAdd(genp())
        #expect(engine.status(genpQuery(account: "other")) == errSecItemNotFound)
    }

    @Test("3.4 default limit is one; no return keys is an existence test")
    func defaultLimitOne() throws {
        let engine = try threeItems()
        let first = engine.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: yes])
        #expect(first.value as? Data == bytes("d0"))
        let exists = engine.copyMatching(genpQuery(account: "a1"))
        #expect(exists.status == errSecSuccess)
        #expect(exists.value == nil)
    }

    @Test("24 CopyMatching genp with only kSecReturnRef → success, no result")
    func copyMatchingReturnRef() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        let result = engine.copyMatching(genpQuery([kSecReturnRef as String: yes]))
        #expect(result.status == errSecSuccess)
        #expect(result.value == nil)
    }

    @Test("25 item without data: {r_Data, r_Attributes, All} → array of 1 dictionary without v_Data, with svce/acct")
    func emptyDataItem() throws {
        let engine = try makeEngine()
        engine.mustAdd(genpQuery())
        let result = engine.copyMatching(genpQuery([
            kSecReturnData as String: yes, kSecReturnAttributes as String: yes, kSecMatchLimit as String: kSecMatchLimitAll,
        ]))
        #expect(result.status == errSecSuccess)
        let array = try #require(result.value as? [[String: Any]])
        #expect(array.count == 1)
        #expect(array.first?[kSecValueData as String] == nil)
        #expect(text(array.first, kSecAttrService) == "s")
        #expect(text(array.first, kSecAttrAccount) == "a")
    }

    @Test("26 {r_Data, r_PersistentRef, All} → array of dictionaries holding only v_Data and v_PersistentRef")
    func dataAndPersistentRefs() throws {
        let engine = try threeItems()
        let result = engine.copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: yes,
            kSecReturnPersistentRef as String: yes, kSecMatchLimit as String: kSecMatchLimitAll,
        ])
        let array = try #require(result.value as? [[String: Any]])
        #expect(array.count == 3)
        for (index, dictionary) in array.enumerated() {
            #expect(Set(dictionary.keys) == [kSecValueData as String, kSecValuePersistentRef as String])
            #expect(dictionary[kSecValueData as String] as? Data == bytes("d\(index)"))
        }
    }

    @Test("27 {r_Data, All} → array of Data (allowed on the data-protection keychain)")
    func dataArray() throws {
        let engine = try threeItems()
        let result = engine.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: yes,
                                          kSecMatchLimit as String: kSecMatchLimitAll])
        #expect(result.status == errSecSuccess)
        #expect(result.value as? [Data] == [bytes("d0"), bytes("d1"), bytes("d2")])
    }

    @Test("28 {r_Attributes, One} → a single dictionary, not an array")
    func attributesLimitOne() throws {
        let engine = try threeItems()
        let result = engine.copyMatching(genpQuery(account: "a2", [kSecReturnAttributes as String: yes,
                                                                   kSecMatchLimit as String: kSecMatchLimitOne]))
        let dictionary = try #require(result.value as? [String: Any])
        #expect(text(dictionary, kSecAttrAccount) == "a2")
    }

    @Test("32 a returned attribute dictionary, with class and r_Data added, finds the same item")
    func attributesRoundTripAsQuery() throws {
        let engine = try makeEngine()
        engine.mustAdd(inet(data: bytes("inet-secret"), [kSecAttrPort as String: 443, kSecAttrPath as String: "/p",
                                                         kSecAttrLabel as String: "L"]))
        engine.mustAdd(inet(account: "bob", data: bytes("other")))
        var query = try #require(engine.readAttributes(inetQuery([kSecAttrPort as String: 443])))
        query[kSecClass as String] = kSecClassInternetPassword
        query[kSecReturnData as String] = yes
        let result = engine.copyMatching(query)
        #expect(result.status == errSecSuccess)
        #expect(result.value as? Data == bytes("inet-secret"))
    }

    @Test("63 lookup by persistent reference alone → attributes without a persistref key")
    func persistentReferenceAlone() throws {
        let engine = try makeEngine()
        let added = engine.add(genp([kSecReturnPersistentRef as String: yes, kSecAttrLabel as String: "L"]))
        let reference = try #require(added.value as? Data)
        let result = engine.copyMatching([kSecValuePersistentRef as String: reference, kSecReturnAttributes as String: yes])
        #expect(result.status == errSecSuccess)
        let attributes = try #require(result.value as? [String: Any])
        #expect(text(attributes, kSecAttrLabel) == "L")
        #expect(attributes[kSecAttrPersistentReference as String] == nil)
        #expect(attributes[kSecValuePersistentRef as String] == nil)
        #expect(attributes["UUID"] == nil)
    }

    @Test("19/3.10 persistent refs: add returns 20 bytes with the class prefix; {v_PersistentRef, r_Data} → the data; stable across update; gone after delete")
    func persistentReferenceShape() throws {
        let engine = try makeEngine()
        let genpReference = try #require(engine.add(genp([kSecReturnPersistentRef as String: yes])).value as? Data)
        #expect(genpReference.count == 20)
        #expect(genpReference.prefix(4) == bytes("genp"))
        let inetReference = try #require(engine.add(inet([kSecReturnPersistentRef as String: yes])).value as? Data)
        #expect(inetReference.count == 20)
        #expect(inetReference.prefix(4) == bytes("inet"))
        #expect(genpReference.suffix(16) != inetReference.suffix(16))
        // The same reference from CopyMatching; with the class given as well.
        #expect(engine.copyMatching(genpQuery([kSecReturnPersistentRef as String: yes])).value as? Data == genpReference)
        #expect(engine.readData([kSecClass as String: kSecClassGenericPassword,
                                 kSecValuePersistentRef as String: genpReference]) == bytes("secret"))
        // Stable across an update of data and of a key attribute.
        #expect(engine.update(genpQuery(), [kSecValueData as String: bytes("new"), kSecAttrAccount as String: "renamed"]) == errSecSuccess)
        #expect(engine.copyMatching(genpQuery(account: "renamed", [kSecReturnPersistentRef as String: yes])).value as? Data == genpReference)
        #expect(engine.readData([kSecValuePersistentRef as String: genpReference]) == bytes("new"))
        // Update and delete by reference.
        #expect(engine.update([kSecValuePersistentRef as String: genpReference], [kSecAttrLabel as String: "via ref"]) == errSecSuccess)
        #expect(text(engine.readAttributes(genpQuery(account: "renamed")), kSecAttrLabel) == "via ref")
        #expect(engine.delete([kSecValuePersistentRef as String: genpReference]) == errSecSuccess)
        #expect(engine.status([kSecValuePersistentRef as String: genpReference]) == errSecItemNotFound)
        #expect(engine.status(inetQuery()) == errSecSuccess)
    }

    @Test("3.10 a persistent reference of another class than kSecClass, or malformed → errSecParam")
    func badPersistentReferences() throws {
        let engine = try makeEngine()
        let reference = try #require(engine.add(genp([kSecReturnPersistentRef as String: yes])).value as? Data)
        #expect(engine.status([kSecClass as String: kSecClassInternetPassword, kSecValuePersistentRef as String: reference]) == errSecParam)
        #expect(engine.status([kSecValuePersistentRef as String: reference.prefix(12)]) == errSecParam)
        #expect(engine.status([kSecValuePersistentRef as String: bytes("zzzz") + reference.suffix(16)]) == errSecParam)
        #expect(engine.status([kSecValuePersistentRef as String: "genp0123456789abcdef"]) == errSecParam)
    }

    @Test("3.4 a persistent-reference query finds synchronizable items too (no sync default)")
    func persistentReferenceFindsSyncItems() throws {
        let engine = try makeEngine()
        let reference = try #require(engine.add(genp([kSecAttrSynchronizable as String: yes,
                                                      kSecReturnPersistentRef as String: yes])).value as? Data)
        #expect(engine.readData([kSecValuePersistentRef as String: reference]) == bytes("secret"))
    }

    @Test("64 persistent reference + kSecAttrAccount (or another attribute) → errSecParam")
    func persistentReferencePlusAttribute() throws {
        let engine = try makeEngine()
        let reference = try #require(engine.add(genp([kSecReturnPersistentRef as String: yes])).value as? Data)
        let byReference: Query = [kSecValuePersistentRef as String: reference]
        #expect(engine.status(with(byReference, [kSecAttrAccount as String: "a"])) == errSecParam)
        #expect(engine.status(with(byReference, [kSecAttrLabel as String: "L"])) == errSecParam)
        #expect(engine.status(with(byReference, [kSecAttrAccessGroup as String: "TEAM.app"])) == errSecParam)
        #expect(engine.status(with(byReference, [kSecAttrSynchronizable as String: no])) == errSecParam)
        #expect(engine.status(with(byReference, [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked])) == errSecParam)
        #expect(engine.delete(with(byReference, [kSecAttrAccount as String: "a"])) == errSecParam)
        #expect(engine.update(with(byReference, [kSecAttrAccount as String: "a"]), [kSecAttrLabel as String: "x"]) == errSecParam)
        // Class, return and match keys are allowed with a reference.
        #expect(engine.status(with(byReference, [kSecClass as String: kSecClassGenericPassword,
                                                 kSecReturnData as String: yes,
                                                 kSecMatchLimit as String: kSecMatchLimitOne])) == errSecSuccess)
        #expect(engine.status(genpQuery()) == errSecSuccess)
    }

    @Test("65 kSecMatchHostOrSubdomainOfHost: the host itself and its parent domains match, others do not")
    func hostOrSubdomain() throws {
        let engine = try makeEngine()
        engine.mustAdd(inet(server: "origin.example.com"))
        func find(_ host: String) -> OSStatus {
            engine.status([kSecClass as String: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost as String: host])
        }
        #expect(find("example.com") == errSecSuccess)
        #expect(find("origin.example.com") == errSecSuccess)
        #expect(find("foobar.com") == errSecItemNotFound)
        #expect(find("ample.com") == errSecItemNotFound)
        #expect(find("other.origin.example.com") == errSecItemNotFound)
        let attributes = engine.copyMatching([
            kSecClass as String: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost as String: "example.com",
            kSecReturnAttributes as String: yes, kSecMatchLimit as String: kSecMatchLimitOne,
        ]).value as? [String: Any]
        #expect(text(attributes, kSecAttrServer) == "origin.example.com")
    }

    @Test("66 kSecMatchHostOrSubdomainOfHost on a genp query → errSecUnimplemented")
    func hostMatchOnGenericPassword() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp())
        #expect(engine.status(genpQuery([kSecMatchHostOrSubdomainOfHost as String: "example.com"])) == errSecUnimplemented)
    }

    @Test("67 kSecMatchCaseInsensitive is ignored: acct \"FOO\" does not find \"foo\"")
    func caseInsensitiveIgnored() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(account: "foo"))
        #expect(engine.status(genpQuery(account: "FOO", [kSecMatchCaseInsensitive as String: yes])) == errSecItemNotFound)
        #expect(engine.status(genpQuery(account: "foo", [kSecMatchCaseInsensitive as String: yes])) == errSecSuccess)
        // Non-key attributes are exact too.
        engine.mustAdd(genp(account: "bar", [kSecAttrLabel as String: "Label"]))
        #expect(engine.status([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "label"]) == errSecItemNotFound)
        #expect(engine.status([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "Label"]) == errSecSuccess)
    }

    @Test("70 kSecValueData in a query is not a filter")
    func dataIsNotAFilter() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(data: bytes("real")))
        let result = engine.copyMatching(genp(data: bytes("something else"), [kSecReturnData as String: yes]))
        #expect(result.status == errSecSuccess)
        #expect(result.value as? Data == bytes("real"))
        #expect(engine.delete(genp(data: bytes("wrong"))) == errSecSuccess)
    }

    @Test("3.4 filters on non-key attributes and on accessibility narrow the search")
    func nonKeyFilters() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(account: "1", [kSecAttrLabel as String: "L", kSecAttrType as String: 7]))
        engine.mustAdd(genp(account: "2", [kSecAttrLabel as String: "M",
                                           kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]))
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "L"]) == 1)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword, kSecAttrType as String: 7]) == 1)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword, kSecAttrType as String: 8]) == 0)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword,
                              kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]) == 1)
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]) == 2)
        // Classes are separate.
        #expect(engine.count([kSecClass as String: kSecClassInternetPassword]) == 0)
    }
}
