import Foundation
import KeychainEngine
import KeychainServices
import KeychainStore
import Testing

/// SecItemAdd: uniqueness, defaults, dates and the result of each kSecReturn* key
/// (apple-secitem-semantics.md §3.3, §1.6, checklist items 1, 6, 7, 20–24, 33, 36, 54, 59, 68, 69, 72).
@Suite("Conformance: SecItemAdd")
struct AddTests {
    @Test("1 add genp twice → errSecDuplicateItem")
    func addGenericPasswordTwice() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp()).status == errSecSuccess)
        #expect(engine.add(genp()).status == errSecDuplicateItem)
        // Another service is another key.
        #expect(engine.add(genp(service: "other")).status == errSecSuccess)
    }

    @Test("1 add inet twice → errSecDuplicateItem; another port or path is another item")
    func addInternetPasswordTwice() throws {
        let engine = try makeEngine()
        #expect(engine.add(inet()).status == errSecSuccess)
        #expect(engine.add(inet()).status == errSecDuplicateItem)
        #expect(engine.add(inet([kSecAttrPort as String: 8443])).status == errSecSuccess)
        #expect(engine.add(inet([kSecAttrPath as String: "/login"])).status == errSecSuccess)
        #expect(engine.add(inet([kSecAttrProtocol as String: kSecAttrProtocolFTP])).status == errSecSuccess)
        #expect(engine.count(without(inetQuery(), kSecAttrProtocol)) == 4)
    }

    @Test("1.6 non-key attributes (data, label, comment, accessibility) never make two items distinct")
    func nonKeyAttributesDoNotDistinguish() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(data: bytes("one"), [kSecAttrLabel as String: "first"]))
        let second = genp(data: bytes("two"), [
            kSecAttrLabel as String: "second",
            kSecAttrComment as String: "different",
            kSecAttrGeneric as String: bytes("g"),
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
        ])
        #expect(engine.add(second).status == errSecDuplicateItem)
        // The first item is untouched by the refused add.
        #expect(engine.readData(genpQuery()) == bytes("one"))
        #expect(text(engine.readAttributes(genpQuery()), kSecAttrLabel) == "first")
    }

    @Test("6 add genp with kSecAttrServer (an inet attribute) → errSecNoSuchAttr")
    func addGenericPasswordWithServer() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp([kSecAttrServer as String: "x"])).status == errSecNoSuchAttr)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }

    @Test("6 add inet with kSecAttrService (a genp attribute) → errSecNoSuchAttr")
    func addInternetPasswordWithService() throws {
        let engine = try makeEngine()
        #expect(engine.add(inet([kSecAttrService as String: "x"])).status == errSecNoSuchAttr)
        #expect(engine.status(inetQuery()) == errSecItemNotFound)
    }

    @Test("7 kSecUseDataProtectionKeychain = true is ignored (add 0, query 0)")
    func dataProtectionKeychainKeyIgnored() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp([kSecUseDataProtectionKeychain as String: yes])).status == errSecSuccess)
        #expect(engine.readData(genpQuery([kSecUseDataProtectionKeychain as String: yes])) == bytes("secret"))
        #expect(engine.delete(genpQuery([kSecUseDataProtectionKeychain as String: yes])) == errSecSuccess)
    }

    @Test("20 add with kSecReturnData → the stored data")
    func addReturningData() throws {
        let engine = try makeEngine()
        let result = engine.add(genp(data: bytes("s3cr3t"), [kSecReturnData as String: yes]))
        #expect(result.status == errSecSuccess)
        #expect(result.value as? Data == bytes("s3cr3t"))
    }

    @Test("21 add with kSecReturnAttributes → attributes without v_Data, v_Ref, v_PersistentRef or class")
    func addReturningAttributes() throws {
        let engine = try makeEngine()
        let result = engine.add(genp([
            kSecReturnAttributes as String: yes,
            kSecAttrIsInvisible as String: yes,
            kSecAttrCreator as String: 0x6162_6364,
            kSecAttrLabel as String: "label",
        ]))
        #expect(result.status == errSecSuccess)
        let attributes = try #require(result.value as? [String: Any])
        for key in [kSecValueData, kSecValueRef, kSecValuePersistentRef, kSecClass] {
            #expect(attributes[key as String] == nil, "unexpected \(key)")
        }
        #expect(text(attributes, kSecAttrAccount) == "a")
        #expect(text(attributes, kSecAttrService) == "s")
        #expect(text(attributes, kSecAttrLabel) == "label")
        #expect(text(attributes, kSecAttrAccessGroup) == "TEAM.app")
        // Number attributes come back as numbers.
        #expect(number(attributes, kSecAttrIsInvisible) == 1)
        #expect(number(attributes, kSecAttrCreator) == 0x6162_6364)
        #expect(number(attributes, kSecAttrSynchronizable) == 0)
    }

    @Test("22 add with all four kSecReturn* keys → one dictionary with v_Data, v_PersistentRef and class (no v_Ref for passwords)")
    func addReturningEverything() throws {
        let engine = try makeEngine()
        let result = engine.add(genp([
            kSecReturnData as String: yes, kSecReturnAttributes as String: yes,
            kSecReturnRef as String: yes, kSecReturnPersistentRef as String: yes,
        ]))
        #expect(result.status == errSecSuccess)
        let dictionary = try #require(result.value as? [String: Any])
        #expect(dictionary[kSecValueData as String] as? Data == bytes("secret"))
        let reference = try #require(dictionary[kSecValuePersistentRef as String] as? Data)
        #expect(reference.count == 20)
        #expect(dictionary[kSecClass as String] as? String == "genp")
        #expect(dictionary[kSecValueRef as String] == nil)
        #expect(text(dictionary, kSecAttrAccount) == "a")
        // The reference finds the item.
        #expect(engine.readData([kSecValuePersistentRef as String: reference]) == bytes("secret"))
    }

    @Test("23 add without kSecReturn* keys → success and no result")
    func addWithoutReturnKeys() throws {
        let engine = try makeEngine()
        let result = engine.add(genp())
        #expect(result.status == errSecSuccess)
        #expect(result.value == nil)
        // Return keys set to false are "not requested".
        let falseKeys = engine.add(genp(account: "b", [kSecReturnData as String: no, kSecReturnAttributes as String: no]))
        #expect(falseKeys.status == errSecSuccess)
        #expect(falseKeys.value == nil)
    }

    @Test("24 add genp with only kSecReturnRef → success, no result (no refs for passwords on iOS)")
    func addReturningRef() throws {
        let engine = try makeEngine()
        let result = engine.add(genp([kSecReturnRef as String: yes]))
        #expect(result.status == errSecSuccess)
        #expect(result.value == nil)
        #expect(engine.status(genpQuery()) == errSecSuccess)
    }

    @Test("33 inet kSecAttrServer given as Data → 0; read back as equal Data")
    func serverAsData() throws {
        let engine = try makeEngine()
        let server = bytes("data.example.com")
        #expect(engine.add(inet([kSecAttrServer as String: server])).status == errSecSuccess)
        let attributes = try #require(engine.readAttributes([
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
        ]))
        #expect(attributes[kSecAttrServer as String] as? Data == server)
        #expect(attributes[kSecAttrServer as String] as? String == nil)
        // The same bytes given as a String find it too (blob attributes compare by bytes).
        #expect(engine.status([kSecClass as String: kSecClassInternetPassword,
                               kSecAttrServer as String: "data.example.com"]) == errSecSuccess)
    }

    @Test("36 add inet with kSecAttrPort = \"\" → 0 (iOS)")
    func emptyStringPort() throws {
        let engine = try makeEngine()
        #expect(engine.add(inet([kSecAttrPort as String: ""])).status == errSecSuccess)
        #expect(engine.status(inetQuery()) == errSecSuccess)
    }

    @Test("54 add genp and inet without accessibility → returned pdmn is \"ak\"")
    func defaultAccessibility() throws {
        let engine = try makeEngine()
        let added = engine.add(genp([kSecReturnAttributes as String: yes]))
        #expect(text(added.value as? [String: Any], kSecAttrAccessible) == "ak")
        #expect(text(engine.readAttributes(genpQuery()), kSecAttrAccessible) == "ak")
        engine.mustAdd(inet())
        #expect(text(engine.readAttributes(inetQuery()), kSecAttrAccessible) == "ak")
        // The synthesised access control carries the same protection and no constraints.
        let accessControl = try #require(engine.readAttributes(genpQuery())?[kSecAttrAccessControl as String] as? AccessControlConvertible)
        #expect(accessControl.accessControlPolicy.protection == .whenUnlocked)
        #expect(accessControl.accessControlPolicy.flags == 0)
        // An explicit accessibility is kept and can be searched.
        engine.mustAdd(genp(account: "ck", [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]))
        #expect(text(engine.readAttributes(genpQuery(account: "ck")), kSecAttrAccessible) == "ck")
        #expect(engine.count([kSecClass as String: kSecClassGenericPassword,
                              kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]) == 1)
    }

    @Test("59 add: cdat == mdat; caller-supplied cdat and mdat are ignored")
    func creationDateEqualsModificationDate() throws {
        let engine = try makeEngine()
        let before = Date()
        let past = Date(timeIntervalSinceReferenceDate: 1_000)
        let result = engine.add(genp([
            kSecReturnAttributes as String: yes,
            kSecAttrCreationDate as String: past,
            kSecAttrModificationDate as String: past,
        ]))
        #expect(result.status == errSecSuccess)
        let attributes = result.value as? [String: Any]
        let created = try #require(date(attributes, kSecAttrCreationDate))
        let modified = try #require(date(attributes, kSecAttrModificationDate))
        #expect(created == modified)
        #expect(created != past)
        #expect(created.timeIntervalSince(before) > -1)
        // And as stored.
        let stored = engine.readAttributes(genpQuery())
        #expect(date(stored, kSecAttrCreationDate) == created)
        #expect(date(stored, kSecAttrModificationDate) == created)
    }

    @Test("59 a date attribute given as a string → errSecParam")
    func dateAsString() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp([kSecAttrCreationDate as String: "yesterday"])).status == errSecParam)
    }

    @Test("68 absent key attribute = empty: {svce: s} then {svce: s, acct: \"\"} → errSecDuplicateItem")
    func absentKeyEqualsEmpty() throws {
        let engine = try makeEngine()
        let serviceOnly: Query = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]
        #expect(engine.add(serviceOnly).status == errSecSuccess)
        #expect(engine.add(with(serviceOnly, [kSecAttrAccount as String: ""])).status == errSecDuplicateItem)
        #expect(engine.add(with(serviceOnly, [kSecAttrAccount as String: Data()])).status == errSecDuplicateItem)
        // The empty account can be searched for explicitly.
        #expect(engine.status(with(serviceOnly, [kSecAttrAccount as String: ""])) == errSecSuccess)
        // inet: absent port = 0, absent path = "".
        engine.mustAdd(inet())
        #expect(engine.add(inet([kSecAttrPort as String: 0, kSecAttrPath as String: ""])).status == errSecDuplicateItem)
    }

    @Test("69 acct as String \"x\" then as Data(\"x\") → errSecDuplicateItem; each type is kept")
    func stringAndDataCollide() throws {
        let engine = try makeEngine()
        engine.mustAdd(genp(account: "x"))
        let asData = with(genp(), [kSecAttrAccount as String: bytes("x")])
        #expect(engine.add(asData).status == errSecDuplicateItem)
        // Searching with the Data form finds the String item, which keeps its String type.
        let attributes = try #require(engine.readAttributes(with(genpQuery(), [kSecAttrAccount as String: bytes("x")])))
        #expect(attributes[kSecAttrAccount as String] as? String == "x")
        // A Data account is returned as Data.
        engine.mustAdd(with(genp(), [kSecAttrAccount as String: bytes("y")]))
        let dataItem = try #require(engine.readAttributes(genpQuery(account: "y")))
        #expect(dataItem[kSecAttrAccount as String] as? Data == bytes("y"))
    }

    @Test("72 add with kSecMatchLimit → errSecParam and nothing stored (documented deviation from iOS's silent no-op)")
    func addWithMatchLimit() throws {
        let engine = try makeEngine()
        #expect(engine.add(genp([kSecMatchLimit as String: kSecMatchLimitOne])).status == errSecParam)
        #expect(engine.add(genp([kSecMatchLimit as String: kSecMatchLimitAll])).status == errSecParam)
        #expect(engine.add(genp([kSecMatchCaseInsensitive as String: yes])).status == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }

    @Test("3.3 an item without kSecValueData is legal; its data reads back empty")
    func addWithoutData() throws {
        let engine = try makeEngine()
        #expect(engine.add(genpQuery()).status == errSecSuccess)
        #expect(engine.readData(genpQuery()) == Data())
    }

    @Test("1.2 kSecValueData as a String → errSecParam")
    func dataAsString() throws {
        let engine = try makeEngine()
        #expect(engine.add(with(genpQuery(), [kSecValueData as String: "secret"])).status == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }

    @Test("3.3 add with a legacy 12-byte persistent reference → errSecParam")
    func addWithLegacyPersistentReference() throws {
        let engine = try makeEngine()
        var legacy = bytes("genp")
        legacy.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(engine.add(genp([kSecValuePersistentRef as String: legacy])).status == errSecParam)
        #expect(engine.status(genpQuery()) == errSecItemNotFound)
    }
}
