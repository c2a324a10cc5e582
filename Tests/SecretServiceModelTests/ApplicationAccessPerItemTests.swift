import Foundation
import KeychainServices
@testable import SecretService
import Testing

/// Each item's list of trusted applications is a hidden record of its own: a change writes that
/// list alone (the cost does not grow with the items), keychains written with every list inside
/// one record keep working and are moved on their first change, damaged or misplaced lists are
/// errors, and no client's item lands on a list.
@Suite("Secret Service store: per-item access lists", .serialized)
struct ApplicationAccessPerItemTests {
    /// A 40-hex item id for `number` (lists need no real item).
    private static func itemID(_ number: Int) -> String {
        String(format: "%040x", number)
    }

    private static func ref(_ number: Int) throws -> SecretItemRef {
        SecretItemRef(collection: .login, item: try #require(SecretItemID(rawValue: itemID(number))))
    }

    @Test("adding the 400th list costs the keychain what adding the first did (writes and bytes counted)")
    func listChangesDoNotGrowWithTheItems() throws {
        try IsolatedKeychains.withStore { store, _ in
            let total = 400
            let sample = 20
            func cost(of numbers: Range<Int>) throws -> (writes: Int, bytes: Int) {
                let before = store.applicationAccessWrites.total
                for number in numbers {
                    try store.changeApplicationList(of: try Self.ref(number)) { $0 = ItemApplicationList(creator: "/usr/bin/secret-tool") }
                }
                let after = store.applicationAccessWrites.total
                return (after.writes - before.writes, after.bytes - before.bytes)
            }
            // The first change adds the keychain-wide record: measure from the second on.
            _ = try cost(of: 0..<1)
            let first = try cost(of: 1..<(1 + sample))
            _ = try cost(of: (1 + sample)..<(total - sample))
            let last = try cost(of: (total - sample)..<total)
            #expect(first.writes == 2 * sample, "one list written and one tag moved per change: \(first)")
            #expect(last.writes == first.writes && last.bytes == first.bytes,
                    "the last \(sample) of \(total) lists cost \(last), the first \(sample) \(first)")
            // And deleting one is as cheap.
            let before = store.applicationAccessWrites.total
            try store.changeApplicationList(of: try Self.ref(5)) { $0 = nil }
            #expect(store.applicationAccessWrites.total.writes - before.writes == 2)
            let record = try store.applicationAccessRecord(of: .login, items: [Self.itemID(4), Self.itemID(5), Self.itemID(total - 1)])
            #expect(record.items[Self.itemID(4)]?.creator == "/usr/bin/secret-tool")
            #expect(record.items[Self.itemID(5)] == nil)
            #expect(record.items[Self.itemID(total - 1)]?.creator == "/usr/bin/secret-tool")
        }
    }

    /// The keychain-wide record exactly as the code before per-item lists wrote it (version 1,
    /// every list inside; its encoder: `ApplicationAccessRecord` as sorted-key JSON).
    private static func writeVersionOneRecord(_ record: ApplicationAccessRecord, keychainPath: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword as String,
            kSecAttrService as String: ApplicationAccessStore.service,
            kSecAttrAccount as String: "record",
            kSecAttrLabel as String: "Secret Service per-application access (KeychainKit)",
            kSecAttrGeneric as String: Data((0..<16).map { _ in UInt8.random(in: .min ... .max) }),
            kSecValueData as String: try encoder.encode(record),
            kSecUseKeychain as String: try #require(IsolatedKeychains.open(keychainPath)),
        ]
        try #require(SecItemAdd(query as CFDictionary, nil) == errSecSuccess)
    }

    @Test("a keychain whose record holds every list (version 1) is read as it is, and moved to per-item lists by its first change")
    func versionOneRecordIsReadThenMoved() throws {
        try IsolatedKeychains.withStore { store, directory in
            let path = directory + "/login.keychain-db"
            let old = ApplicationAccessRecord(version: 1, policy: .deny, items: [
                Self.itemID(1): ItemApplicationList(creator: "/usr/bin/secret-tool", trusted: ["/usr/bin/python3.11"]),
                Self.itemID(2): ItemApplicationList(creator: nil, trusted: ["/usr/bin/git"]),
            ])
            try Self.writeVersionOneRecord(old, keychainPath: path)

            let read = try store.applicationAccessRecord(of: .login, items: [Self.itemID(1), Self.itemID(3)])
            #expect(read.policy == .deny)
            #expect(read.items == [Self.itemID(1): old.items[Self.itemID(1)]!])
            #expect(try ApplicationAccessStore(keychainPath: path).read() == old)

            // The first change moves every list out, then adds its own.
            try store.changeApplicationList(of: try Self.ref(3)) { $0 = ItemApplicationList(creator: "/usr/bin/seahorse") }
            let accessStore = try ApplicationAccessStore(keychainPath: path)
            #expect(try accessStore.readMain().form == .perItem(.deny))
            var expected = old
            expected.items[Self.itemID(3)] = ItemApplicationList(creator: "/usr/bin/seahorse")
            #expect(try accessStore.read() == expected)
            #expect(try store.applicationAccessRecord(of: .login, items: [Self.itemID(2)]).items[Self.itemID(2)] == old.items[Self.itemID(2)])

            // The record now holds no list: the code before this format fails to decode it (so it
            // reports it damaged) instead of reading every list as empty.
            let main = try #require(try accessStore.readData(accessStore.mainQuery()))
            #expect(throws: (any Error).self) { try JSONDecoder().decode(ApplicationAccessRecord.self, from: main.data) }
        }
    }

    @Test("an interrupted move is finished from the old record; a list written since is kept")
    func interruptedMoveIsRepeated() throws {
        try IsolatedKeychains.withStore { _, directory in
            let path = directory + "/login.keychain-db"
            let accessStore = try ApplicationAccessStore(keychainPath: path)
            // An earlier move stopped after writing item 1's list, then an older keychainctl took
            // an application off item 1 in the old record.
            try Self.writeVersionOneRecord(ApplicationAccessRecord(version: 1, policy: .allow, items: [
                Self.itemID(1): ItemApplicationList(creator: "/usr/bin/secret-tool", trusted: []),
            ]), keychainPath: path)
            let stale = try ApplicationAccessStoredForms.encode(
                ApplicationAccessStoredForms.ItemList(item: Self.itemID(1), creator: "/usr/bin/secret-tool", trusted: ["/usr/bin/evil"]))
            let add: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword as String,
                kSecAttrService as String: ApplicationAccessStore.service,
                kSecAttrAccount as String: ApplicationAccessStore.itemAccountPrefix + Self.itemID(1),
                kSecAttrGeneric as String: ApplicationAccessStore.movedOutTag,
                kSecValueData as String: stale,
                kSecUseKeychain as String: try Self.handle(of: accessStore),
            ]
            try #require(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            _ = try accessStore.ensureListsPerItem()
            #expect(try accessStore.storedList(of: Self.itemID(1)).list == ItemApplicationList(creator: "/usr/bin/secret-tool", trusted: []),
                    "the old record's copy replaces the interrupted move's")
            // A list written after a move (a random tag) is never replaced by a later move.
            try accessStore.write(ApplicationAccessRecord(policy: .allow, items: [Self.itemID(1): ItemApplicationList(creator: "/x")]))
            let reverted = try ApplicationAccessStoredForms.encode(ApplicationAccessStoredForms.Main(
                version: 1, policy: .allow, items: [Self.itemID(1): ItemApplicationList(creator: "/old")]))
            try #require(SecItemUpdate([kSecClass as String: kSecClassGenericPassword as String,
                                        kSecAttrService as String: ApplicationAccessStore.service,
                                        kSecAttrAccount as String: "record",
                                        kSecUseKeychain as String: try Self.handle(of: accessStore)] as CFDictionary,
                                       [kSecValueData as String: reverted] as CFDictionary) == errSecSuccess)
            _ = try accessStore.ensureListsPerItem()
            #expect(try accessStore.storedList(of: Self.itemID(1)).list?.creator == "/x")
        }
    }

    /// Apple's handle on the keychain the access store keeps its records in (the test writes
    /// there as another program would, through Apple's API).
    private static func handle(of accessStore: ApplicationAccessStore) throws -> SecKeychain {
        var handle: SecKeychain?
        try #require(SecKeychainOpen(accessStore.calls.path, &handle) == errSecSuccess)
        return try #require(handle)
    }

    /// Replaces the stored data of item `number`'s list.
    private static func tamper(_ accessStore: ApplicationAccessStore, item number: Int, data: Data) throws {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword as String,
            kSecAttrService as String: ApplicationAccessStore.service,
            kSecAttrAccount as String: ApplicationAccessStore.itemAccountPrefix + itemID(number),
            kSecUseKeychain as String: try Self.handle(of: accessStore),
        ]
        try #require(SecItemUpdate(query as CFDictionary, [kSecValueData as String: data] as CFDictionary) == errSecSuccess)
    }

    @Test("a damaged list, or one copied from another item, is an error, never an empty list")
    func tamperedListIsAnError() throws {
        try IsolatedKeychains.withStore { store, directory in
            let path = directory + "/login.keychain-db"
            let accessStore = try ApplicationAccessStore(keychainPath: path)
            try store.changeApplicationList(of: try Self.ref(1)) { $0 = ItemApplicationList(creator: "/usr/bin/one") }
            try store.changeApplicationList(of: try Self.ref(2)) { $0 = ItemApplicationList(creator: "/usr/bin/two", trusted: ["/usr/bin/agent"]) }

            // Item 2's list (trusting /usr/bin/agent) copied onto item 1.
            let copied = try #require(try accessStore.readData([
                kSecClass as String: kSecClassGenericPassword as String,
                kSecAttrService as String: ApplicationAccessStore.service,
                kSecAttrAccount as String: ApplicationAccessStore.itemAccountPrefix + Self.itemID(2),
            ]))
            try Self.tamper(accessStore, item: 1, data: copied.data)
            for damaged in [copied.data, Data("{\"item\":".utf8)] {
                try Self.tamper(accessStore, item: 1, data: damaged)
                // A fresh store: nothing cached.
                let fresh = try SecretStore(loginKeychainPath: path)
                let error = #expect(throws: SecretServiceError.self) {
                    try fresh.applicationAccessRecord(of: .login, items: [Self.itemID(1)])
                }
                #expect(error.map { "\($0)" }?.contains("damaged") == true, "\(String(describing: error))")
                #expect(throws: SecretServiceError.self) { try accessStore.read() }
                #expect(throws: SecretServiceError.self) {
                    try fresh.changeApplicationList(of: try Self.ref(1)) { $0?.trusted.append("/usr/bin/more") }
                }
            }
            // The other item's list is unaffected.
            let fresh = try SecretStore(loginKeychainPath: path)
            #expect(try fresh.applicationAccessRecord(of: .login, items: [Self.itemID(2)]).items[Self.itemID(2)]?.trusts("/usr/bin/agent") == true)
        }
    }

    @Test("a client's item whose attributes name a list's slot is stored elsewhere and leaves the list alone")
    func clientCannotTakeAListSlot() throws {
        try IsolatedKeychains.withStore { store, directory in
            let path = directory + "/login.keychain-db"
            let victim = try store.createItem(in: .login, label: "victim", attributes: ["service": "bank", "username": "alice"],
                                              secret: SecretValue(bytes: Array("v".utf8)), replace: false)
            try store.changeApplicationList(of: victim) { $0 = ItemApplicationList(creator: "/usr/bin/secret-tool") }
            let forged = try ApplicationAccessStoredForms.encode(
                ApplicationAccessStoredForms.ItemList(item: victim.item.rawValue, creator: "/usr/bin/evil", trusted: []))
            var attacks: [SecretItemRef] = []
            for replace in [false, true] {
                for account in [ApplicationAccessStore.itemAccountPrefix + victim.item.rawValue, "record"] {
                    let attributes = ["service": ApplicationAccessStore.service, "username": account]
                    attacks.append(try store.createItem(in: .login, label: "attack", attributes: attributes,
                                                        secret: SecretValue(bytes: Array(forged)), replace: replace))
                }
            }
            let fresh = try SecretStore(loginKeychainPath: path)
            let record = try fresh.applicationAccessRecord(of: .login, items: [victim.item.rawValue])
            #expect(record.items[victim.item.rawValue] == ItemApplicationList(creator: "/usr/bin/secret-tool"))
            #expect(record.policy == .allow)
            // The attacker's items are ordinary items: found by their attributes, none of them a list.
            let found = try fresh.search(attributes: ["service": ApplicationAccessStore.service]).unlocked
            #expect(Set(found) == Set(attacks) && !attacks.contains(victim), "\(found)")
            #expect(try ApplicationAccessStore(keychainPath: path).read().items.keys.sorted() == [victim.item.rawValue])
        }
    }
}
