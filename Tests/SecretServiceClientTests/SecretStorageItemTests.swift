import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// Python `secretstorage` (the library Python keyring is built on) calling the Service, Collection
/// and Item interfaces directly.
@Suite("secretstorage items", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct SecretStorageItemTests {
    /// Reads {"a": hex, "b": hex, "c": hex} (three secrets) on stdin; prints what it observed.
    static let script = """
        import json, sys, time, secretstorage
        from secretstorage import dhcrypto, util, exceptions
        secrets = {k: bytes.fromhex(v) for k, v in json.load(sys.stdin).items()}
        conn = secretstorage.dbus_init()
        out = {}
        default = secretstorage.get_default_collection(conn)
        out["default_label_nonempty"] = bool(default.get_label())
        out["default_locked"] = default.is_locked()
        out["default_in_all"] = any(c.get_label() == default.get_label() for c in secretstorage.get_all_collections(conn))
        attrs = {"app": "kk-ss", "slot": "1", "note": "ünï ✓"}
        start = int(time.time())
        first = default.create_item("first", attrs, secrets["a"], replace=True)
        out["dh_session"] = first.session.encrypted
        out["secret_dh"] = first.get_secret().hex()
        out["content_type"] = first.get_secret_content_type()
        got = first.get_attributes()
        out["attributes_kept"] = all(got.get(k) == v for k, v in attrs.items())
        out["created_now"] = abs(first.get_created() - start) < 600
        out["modified_ge_created"] = first.get_modified() >= first.get_created()
        # replace=True with the same attributes: still one item, the new secret.
        default.create_item("second", attrs, secrets["b"], replace=True)
        found = list(default.search_items(attrs))
        out["after_replace_count"] = len(found)
        out["after_replace_secret"] = found[0].get_secret().hex() if found else None
        out["after_replace_label"] = found[0].get_label() if found else None
        # replace=False: another item with the same attributes.
        default.create_item("third", attrs, secrets["c"], replace=False)
        found = list(default.search_items(attrs))
        out["after_add_count"] = len(found)
        out["after_add_secrets"] = sorted(i.get_secret().hex() for i in found)
        out["service_search_count"] = len(list(secretstorage.search_items(conn, {"app": "kk-ss"})))
        out["subset_search_count"] = len(list(default.search_items({"slot": "1"})))
        out["miss_search_count"] = len(list(default.search_items({"app": "kk-ss", "slot": "2"})))
        # A plain (unencrypted) session reads the same bytes.
        plain = dhcrypto.Session()
        plain.encrypted = False
        service = util.DBusAddressWrapper(util.SS_PATH, util.SERVICE_IFACE, conn)
        _, plain.object_path = service.call("OpenSession", "sv", "plain", ("s", ""))
        plain_items = [secretstorage.Item(conn, i.item_path, plain) for i in found]
        out["secrets_plain"] = sorted(i.get_secret().hex() for i in plain_items)
        # A plain-session write, then label, attributes and secret changes.
        item = plain_items[0]
        item.set_secret(secrets["a"], "application/octet-stream")
        out["set_secret_plain"] = secretstorage.Item(conn, item.item_path).get_secret().hex()
        out["set_content_type"] = secretstorage.Item(conn, item.item_path).get_secret_content_type()
        item.set_label("relabelled ✓")
        out["label"] = item.get_label()
        item.set_attributes({"app": "kk-ss", "slot": "9"})
        out["new_attributes_found"] = [i.item_path for i in default.search_items({"app": "kk-ss", "slot": "9"})] == [item.item_path]
        out["old_attributes_left"] = len(list(default.search_items(attrs)))
        out["modified_after_changes_ge_created"] = item.get_modified() >= item.get_created()
        # delete: gone from searches, and the object answers with an error.
        item.delete()
        out["after_delete_search"] = len(list(default.search_items({"app": "kk-ss", "slot": "9"})))
        try:
            item.get_secret()
            out["deleted_get_secret"] = "no error"
        except exceptions.ItemNotFoundException:
            out["deleted_get_secret"] = "ItemNotFoundException"
        print(json.dumps(out))
        """

    @Test("default collection; create with replace on and off; search; get_secret over DH and plain sessions; label, attributes, times; delete",
          arguments: SecretServiceProvider.underTest)
    func items(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let a = "6f6e6520e29c93", b = "00ff0102feff00", c = String(repeating: "ab", count: 300)  // unicode, binary, 300 bytes
            let out = try jsonObject(try harness.python(Self.script, stdin: #"{"a": "\#(a)", "b": "\#(b)", "c": "\#(c)"}"#.bytes))
            #expect(out["default_label_nonempty"] as? Bool == true)
            #expect(out["default_locked"] as? Bool == false)
            #expect(out["default_in_all"] as? Bool == true)
            #expect(out["dh_session"] as? Bool == true, "dh-ietf1024-sha256-aes128-cbc-pkcs7 is offered (no fallback to plain)")
            #expect(out["secret_dh"] as? String == a)
            #expect(out["content_type"] as? String == "text/plain")
            #expect(out["attributes_kept"] as? Bool == true)
            #expect(out["created_now"] as? Bool == true)
            #expect(out["modified_ge_created"] as? Bool == true)
            #expect(out["after_replace_count"] as? Int == 1)
            #expect(out["after_replace_secret"] as? String == b)
            #expect(out["after_replace_label"] as? String == "second")
            #expect(out["after_add_count"] as? Int == 2)
            #expect(out["after_add_secrets"] as? [String] == [b, c].sorted())
            #expect(out["service_search_count"] as? Int == 2)
            #expect(out["subset_search_count"] as? Int == 2)
            #expect(out["miss_search_count"] as? Int == 0)
            #expect(out["secrets_plain"] as? [String] == [b, c].sorted())
            #expect(out["set_secret_plain"] as? String == a)
            // gnome-keyring does not keep content types (every secret reads back as text/plain); ours does.
            #expect(out["set_content_type"] as? String == (provider == .gnomeKeyring ? "text/plain" : "application/octet-stream"))
            #expect(out["label"] as? String == "relabelled ✓")
            #expect(out["new_attributes_found"] as? Bool == true)
            #expect(out["old_attributes_left"] as? Int == 1)
            #expect(out["modified_after_changes_ge_created"] as? Bool == true)
            #expect(out["after_delete_search"] as? Int == 0)
            #expect(out["deleted_get_secret"] as? String == "ItemNotFoundException")
        }
    }
}
