import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// The same call sequence against gnome-keyring and against ours, each on its own private bus:
/// every observable result must be the same, except the documented differences asserted below.
@Suite("gnome-keyring and KeychainKit side by side", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct ProviderComparisonTests {
    /// Reads its secrets as hex JSON on stdin, runs one sequence of client calls and prints what a client can observe (no object paths
    /// beyond the well-known ones, no times: those legitimately differ).
    static let script = """
        import json, sys, keyring, secretstorage
        from secretstorage import exceptions, util
        from jeepney import new_method_call, DBusAddress, MessageType, HeaderFields
        conn = secretstorage.dbus_init()
        S = "/org/freedesktop/secrets"
        def raw(path, interface, member, signature, body):
            reply = conn.send_and_get_reply(new_method_call(DBusAddress(path, bus_name="org.freedesktop.secrets", interface=interface), member, signature, body), timeout=20)
            if reply.header.message_type == MessageType.error:
                return reply.header.fields.get(HeaderFields.error_name)
            return reply.body
        secrets = {k: bytes.fromhex(v) for k, v in json.load(sys.stdin).items()}
        out = {}
        out["alias_default"] = raw(S, util.SERVICE_IFACE, "ReadAlias", "s", ("default",))[0]
        out["alias_unknown"] = raw(S, util.SERVICE_IFACE, "ReadAlias", "s", ("kk-no-such-alias",))[0]
        out["has_login_collection"] = S + "/collection/login" in [c.collection_path for c in secretstorage.get_all_collections(conn)]
        default = secretstorage.get_default_collection(conn)
        out["default_label"] = default.get_label()
        out["default_locked"] = default.is_locked()
        out["keyring_missing"] = keyring.get_password("kk-cmp", "alice")
        keyring.set_password("kk-cmp", "alice", secrets["one"].decode())
        out["keyring_get"] = keyring.get_password("kk-cmp", "alice")
        keyring.set_password("kk-cmp", "alice", secrets["two"].decode())
        out["keyring_overwrite"] = keyring.get_password("kk-cmp", "alice")
        out["keyring_items"] = len(list(secretstorage.search_items(conn, {"service": "kk-cmp", "username": "alice"})))
        attrs = {"app": "kk-cmp", "n": "1", "empty": "", "ü": "ß ✓"}
        item = default.create_item("label ✓", attrs, secrets["binary"], replace=False)
        got = item.get_attributes()
        out["attributes"] = {k: v for k, v in got.items() if k != "xdg:schema"}
        out["schema_attribute"] = got.get("xdg:schema")
        out["label"] = item.get_label()
        out["secret"] = item.get_secret().hex()
        out["content_type"] = item.get_secret_content_type()
        default.create_item("again", attrs, secrets["two"], replace=True)
        out["replace_count"] = len(list(default.search_items(attrs)))
        default.create_item("another", attrs, secrets["one"], replace=False)
        out["add_count"] = len(list(default.search_items(attrs)))
        out["search_empty_value"] = len(list(default.search_items({"empty": ""})))
        out["search_unicode"] = len(list(default.search_items({"ü": "ß ✓"})))
        out["search_miss"] = len(list(default.search_items({"app": "kk-cmp", "n": "2"})))
        unlocked, locked = raw(S, util.SERVICE_IFACE, "SearchItems", "a{ss}", ({"app": "kk-cmp"},))
        out["service_search"] = [len(unlocked), len(locked)]
        out["unknown_algorithm"] = raw(S, util.SERVICE_IFACE, "OpenSession", "sv", ("rot13", ("s", "")))
        out["no_session"] = raw(S, util.SERVICE_IFACE, "GetSecrets", "aoo", ([item.item_path], S + "/session/kk_none"))
        for found in list(default.search_items(attrs)):
            found.delete()
        out["after_delete"] = len(list(default.search_items(attrs)))
        try:
            item.get_secret()
            out["deleted_get_secret"] = "no error"
        except exceptions.ItemNotFoundException:
            out["deleted_get_secret"] = "ItemNotFoundException"
        keyring.delete_password("kk-cmp", "alice")
        out["keyring_after_delete"] = keyring.get_password("kk-cmp", "alice")
        print(json.dumps(out, sort_keys=True))
        """

    /// What each provider showed for the script, plus secret-tool's exit statuses.
    private static func observe(_ provider: SecretServiceProvider) async throws -> [String: String] {
        try await withProvider(provider) { harness in
            let secrets = #"{"one": "616c69636520e29c93", "two": "616c6963652032", "binary": "00ff62696e"}"#  // "alice ✓", "alice 2", 00 ff "bin"
            let out = try jsonObject(try harness.python(Self.script, stdin: secrets.bytes))
            var flat: [String: String] = [:]
            for (key, value) in out {
                let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
                flat[key] = String(decoding: data, as: UTF8.self)
            }
            flat["secret-tool store"] = "\(try harness.secretTool(["store", "--label=st", "kk", "st"], stdin: "v".bytes).status)"
            let hit = try harness.secretTool(["lookup", "kk", "st"])
            flat["secret-tool lookup hit"] = "\(hit.status) \(hit.stdout)"
            let miss = try harness.secretTool(["lookup", "kk", "none"])
            flat["secret-tool lookup miss"] = "\(miss.status) \(miss.stdout)"
            flat["secret-tool clear"] = "\(try harness.secretTool(["clear", "kk", "st"]).status)"
            flat["secret-tool lookup cleared"] = "\(try harness.secretTool(["lookup", "kk", "st"]).status)"
            return flat
        }
    }

    @Test("the same calls give the same observable results, apart from the documented differences")
    func sameObservations() async throws {
        let gnome = try await Self.observe(.gnomeKeyring)
        let ours = try await Self.observe(.keychainKit)
        // gnome-keyring sometimes adds xdg:schema = org.freedesktop.Secret.Generic to an item a
        // D-Bus client created without one (seen in some runs, not in others); ours keeps the
        // attributes exactly as given. Both keep secretstorage's default content type.
        #expect(ours["schema_attribute"] == "null")
        #expect(["null", "\"org.freedesktop.Secret.Generic\""].contains(gnome["schema_attribute"] ?? ""))
        #expect(gnome["content_type"] == "\"text/plain\"" && ours["content_type"] == "\"text/plain\"")
        for key in Set(gnome.keys).union(ours.keys).subtracting(["schema_attribute"]).sorted() {
            #expect(gnome[key] == ours[key], "\(key): gnome-keyring \(gnome[key] ?? "-"), KeychainKit \(ours[key] ?? "-")")
        }
    }
}
