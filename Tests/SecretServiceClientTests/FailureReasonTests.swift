import EtcdClusterSupport
import Foundation
import RequiredToolSupport
import SecretServiceHarness
import Testing

/// The provider's D-Bus error reply carries the keychain's precise cause and its fix,
/// as a real client (Python's secretstorage) receives it, not only a bare status.
@Suite("Secret Service provider: the keychain's reason in D-Bus errors", .integration, .tags(.external, .dbus, .python), .timeLimit(.minutes(3)))
struct FailureReasonTests {
    @Test("a new collection in a keychain directory others can write: the D-Bus error names the cause and the fix")
    func unsafeDirectoryReason() async throws {
        try await withProvider(.keychainKit) { harness in
            // The provider is serving; the directory its collections' keychains go to is then
            // opened to everyone, so the next new keychain file is refused.
            let keychains = (harness.keychainPath as NSString).deletingLastPathComponent
            #expect(chmod(keychains, 0o777) == 0)
            defer { chmod(keychains, 0o700) }
            let create = try harness.python("""
                import secretstorage, sys
                connection = secretstorage.dbus_init()
                try:
                    secretstorage.create_collection(connection, "Refused")
                except Exception as error:
                    print(type(error).__name__, error)
                    sys.exit(3)
                """)
            #expect(create.status == 3, "creating a collection there must fail: \(create)")
            #expect(create.stdout.contains("is writable by group or others"), "\(create.stdout)")
            #expect(create.stdout.contains("chmod go-w"), "the fix: \(create.stdout)")
            #expect(!FileManager.default.fileExists(atPath: keychains + "/Refused.keychain-db"), "nothing was created")
        }
    }

    @Test("an item altered on disk: a secretstorage read fails and the D-Bus error says which item is damaged, never the secret")
    func damagedItemReason() async throws {
        try await withProvider(.keychainKit) { harness in
            #expect(try harness.secretTool(["store", "--label=Damaged one", "kk", "damaged"], stdin: "item-secret".bytes).status == 0)
            // Every stored payload overwritten with zeros (Python's sqlite3 module, another writer).
            let tamper = try harness.run(["/usr/bin/python3", "-c", """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                db.execute("UPDATE items SET payload = zeroblob(length(payload))")
                db.commit()
                db.close()
                """, harness.keychainPath])
            #expect(tamper.status == 0, "\(tamper)")
            let lookup = try harness.python("""
                import secretstorage, sys
                try:
                    connection = secretstorage.dbus_init()
                    collection = secretstorage.get_default_collection(connection)
                    for item in collection.search_items({"kk": "damaged"}):
                        item.get_secret()
                except Exception as error:
                    print(type(error).__name__, error)
                    sys.exit(3)
                """)
            #expect(lookup.status == 3, "reading the damaged item must fail: \(lookup)")
            // The item's label is sealed with it: the provider names it by its persistent id.
            #expect(lookup.stdout.contains("item with persistent id "), "\(lookup.stdout)")
            #expect(lookup.stdout.contains("is damaged or was altered"), "\(lookup.stdout)")
            #expect(!lookup.stdout.contains("item-secret"), "no secret in the error")
        }
    }
}
