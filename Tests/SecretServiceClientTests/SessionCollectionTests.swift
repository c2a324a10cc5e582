import Foundation
import SecretServiceHarness
import Testing

/// The `session` collection (libsecret's `SECRET_COLLECTION_SESSION`): in memory, never locked,
/// named by the `session` alias; its items are gone when the provider stops.
@Suite("the session collection", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct SessionCollectionTests {
    /// Stores an item in the `session` collection with secretstorage and reads it back.
    static let store = """
        import json, secretstorage
        conn = secretstorage.dbus_init()
        collection = secretstorage.get_collection_by_alias(conn, "session")
        out = {"path": collection.collection_path, "locked": collection.is_locked()}
        item = collection.create_item("in session", {"suite": "kk-session", "k": "v ✓"}, "session secret ✓".encode(), replace=False)
        out["secret"] = item.get_secret().decode()
        out["attributes"] = {k: v for k, v in item.get_attributes().items() if k != "xdg:schema"}
        out["in_collection"] = len(list(collection.search_items({"suite": "kk-session"})))
        out["service_search"] = len(list(secretstorage.search_items(conn, {"suite": "kk-session"})))
        out["listed"] = collection.collection_path in [c.collection_path for c in secretstorage.get_all_collections(conn)]
        print(json.dumps(out))
        """

    /// After a restart: the collection is there again, empty.
    static let after = """
        import json, secretstorage
        conn = secretstorage.dbus_init()
        collection = secretstorage.get_collection_by_alias(conn, "session")
        print(json.dumps({"path": collection.collection_path,
                          "in_collection": len(list(collection.search_items({"suite": "kk-session"}))),
                          "service_search": len(list(secretstorage.search_items(conn, {"suite": "kk-session"})))}))
        """

    @Test("an item stored in the session collection is read back and found, and is gone after the provider restarts",
          arguments: SecretServiceProvider.underTest)
    func storedAndGoneAfterRestart(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let out = try jsonObject(try harness.python(Self.store))
            #expect(out["path"] as? String == "/org/freedesktop/secrets/collection/session", "\(provider): \(out)")
            #expect(out["locked"] as? Bool == false, "\(provider): \(out)")
            #expect(out["secret"] as? String == "session secret ✓", "\(provider): \(out)")
            #expect(out["attributes"] as? [String: String] == ["suite": "kk-session", "k": "v ✓"], "\(provider): \(out)")
            #expect(out["in_collection"] as? Int == 1 && out["service_search"] as? Int == 1, "\(provider): \(out)")
            #expect(out["listed"] as? Bool == true, "\(provider): \(out)")

            try harness.restartProvider()
            let later = try jsonObject(try harness.python(Self.after))
            #expect(later["path"] as? String == "/org/freedesktop/secrets/collection/session", "\(provider): \(later)")
            #expect(later["in_collection"] as? Int == 0 && later["service_search"] as? Int == 0, "\(provider): \(later)")
        }
    }

    @Test("the session collection's items never reach the keychain file: keychainctl does not find them")
    func neverOnDisk() async throws {
        try await withProvider(.keychainKit) { harness in
            let stored = try harness.python("""
                import secretstorage
                conn = secretstorage.dbus_init()
                collection = secretstorage.get_collection_by_alias(conn, "session")
                collection.create_item("kk-mem", {"service": "kk-mem", "username": "alice"}, b"only in memory")
                print(secretstorage.search_items(conn, {"service": "kk-mem"}).__next__().get_secret().decode())
                """)
            #expect(stored.stdout == "only in memory\n", "\(stored)")
            let find = try harness.keychainctl(["find-generic-password", "-s", "kk-mem", "-a", "alice", "-w"])
            #expect(find.status != 0 && !find.stdout.contains("only in memory"), "\(find)")
        }
    }
}
