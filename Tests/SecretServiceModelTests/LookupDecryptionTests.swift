import Foundation
import KeychainAudit
import KeychainLinux
import KeychainServices
import KeychainTestSupport
import KeychainToolSupport
@testable import SecretService
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What one lookup costs the keychain: `secret-tool lookup` is `SearchItems`, `Properties.GetAll`
/// of the item found, then `GetSecrets`; the item is decrypted once, by the read of its secret.
/// The access log's checkpoint, which the provider writes into the same keychain about once a
/// second, keeps the search index current; a write by another process still makes the index read
/// the keychain again, so the next lookup sees it. (Counts of decrypted items and full reads, not
/// times: speed is measured by bench/secret-service.sh.)
@Suite("Secret Service store: a lookup decrypts its item once", .serialized)
struct LookupDecryptionTests {
    private static func secret(_ text: String) -> SecretValue { SecretValue(bytes: Array(text.utf8)) }

    /// `count` items `service=lookup, username=u<n>`, labelled `label-<n>`, secret `secret-<n>`.
    private static func fill(_ store: SecretStore, count: Int) throws -> [SecretItemRef] {
        try (0..<count).map { number in
            try store.createItem(in: .login, label: "label-\(number)", attributes: ["service": "lookup", "username": "u\(number)"],
                                 secret: secret("secret-\(number)"), replace: false)
        }
    }

    /// One `secret-tool lookup service lookup username u<number>`, as the provider answers it.
    private static func lookUp(_ store: SecretStore, number: Int) throws -> (label: String, secret: String) {
        let found = try store.search(attributes: ["service": "lookup", "username": "u\(number)"]).unlocked
        try #require(found.count == 1)
        let info = try store.item(found[0])
        let read = try store.secretAndInfo(found[0])
        return (info.label, String(decoding: read.secret.bytes, as: UTF8.self))
    }

    @Test("SearchItems, GetAll and GetSecrets of one item decrypt it once, at every lookup")
    func lookupDecryptsOnce() throws {
        try IsolatedKeychains.withStore { store, _ in
            _ = try Self.fill(store, count: 30)
            _ = try store.search(attributes: ["service": "lookup"])  // the first search builds the index
            for number in [3, 17, 3] {
                let before = store.itemReads.decrypted
                let answer = try Self.lookUp(store, number: number)
                #expect(answer.label == "label-\(number)" && answer.secret == "secret-\(number)")
                #expect(store.itemReads.decrypted - before == 1, "items decrypted by one lookup: \(store.itemReads.decrypted - before)")
            }
        }
    }

    @Test("the access log's checkpoint neither stales the index nor makes it read everything; another process's write is seen")
    func checkpointKeepsIndexOtherWriterSeen() throws {
        if !KeychainRegistryGroups.includesLogGroup {
            KeychainToolSettings.ofThisProcess().grantAccessGroup(AccessLog.keyAccessGroup)
            KeychainRegistryGroups.includesLogGroup = true
        }
        try IsolatedKeychains.withStore { store, directory in
            let refs = try Self.fill(store, count: 10)
            let first = try Self.lookUp(store, number: 4)
            #expect(first.label == "label-4" && first.secret == "secret-4")
            let loginPath = directory + "/login.keychain-db"
            // The provider's logs, as `keychainctl secret-service` makes them: the key item and
            // its checkpoint written through the store.
            let logs = KeychainAccessLogs(defaultKeychainPath: loginPath, settings: .success(AccessLogSettings()),
                                          keyItems: { store.accessLogKeyItems(forKeychainAt: $0) })
            let caller = try ProcessLineage.current()
            let stampBefore = KeychainFileStamp(path: loginPath)
            for round in 0..<3 {
                try logs.record(AccessEvent(time: Date(), operation: .read, item: .init(label: "label-4", service: "lookup", account: "u4"),
                                            caller: caller, callerUID: getuid(), channel: .secretService, decision: .allowedByPolicy))
                try logs.flush()  // the checkpoint written now, not within a second
                let fullReads = store.itemReads.fullReads, decrypted = store.itemReads.decrypted
                let answer = try Self.lookUp(store, number: 4)
                #expect(answer.label == "label-4" && answer.secret == "secret-4")
                #expect(store.itemReads.fullReads == fullReads, "round \(round): the checkpoint made the index read every item")
                #expect(store.itemReads.decrypted - decrypted == 1, "round \(round): items decrypted: \(store.itemReads.decrypted - decrypted)")
            }
            #expect(KeychainFileStamp(path: loginPath) != stampBefore, "the log's key item and checkpoint were written to the keychain")
            #expect(try AccessLog(keychainAt: loginPath, settings: AccessLogSettings()).read().entries.count == 3)

            // Another process changes the item in place (same reference, new label) and adds one.
            let update = try KeychainctlRunner.run(["add-generic-password", "-U", "-s", "lookup", "-a", "u4", "-l", "relabelled", "-w"],
                                                   stdin: "changed\n", directory: directory)
            try #require(update.status == 0)
            let add = try KeychainctlRunner.run(["add-generic-password", "-s", "lookup", "-a", "u99", "-w"], stdin: "added\n", directory: directory)
            try #require(add.status == 0)
            let fullReads = store.itemReads.fullReads
            let changed = try Self.lookUp(store, number: 4)
            #expect(changed.label == "relabelled" && changed.secret == "changed")
            #expect(store.itemReads.fullReads == fullReads + 1, "another process's commit makes the index read the keychain again")
            #expect(try store.item(refs[4]).label == "relabelled")
            #expect(try Self.lookUp(store, number: 99).secret == "added")
            #expect(try store.search(attributes: ["service": "lookup"]).unlocked.count == 11)
        }
    }

    @Test("an item changed in this process outside the store is seen too: the index does not answer from before it")
    func inProcessWriteOutsideStoreSeen() throws {
        try IsolatedKeychains.withStore { store, directory in
            _ = try Self.fill(store, count: 5)
            #expect(try Self.lookUp(store, number: 2).label == "label-2")
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "lookup",
                                        kSecAttrAccount as String: "u2",
                                        kSecUseKeychain as String: IsolatedKeychains.open(directory + "/login.keychain-db") as Any]
            try #require(SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "changed here"] as CFDictionary) == errSecSuccess)
            #expect(try Self.lookUp(store, number: 2).label == "changed here")
        }
    }
}
