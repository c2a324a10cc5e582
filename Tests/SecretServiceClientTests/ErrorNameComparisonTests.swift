import Foundation
import SecretServiceHarness
import Testing

/// The D-Bus error names where the specification is silent, asked of gnome-keyring and of ours:
/// the same answers (docs/SECRET-SERVICE.md, "Error names where the specification is silent"),
/// apart from the specification's own `NoSuchObject` for its methods on missing objects.
@Suite("error names as gnome-keyring answers them", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct ErrorNameComparisonTests {
    static let script = """
        import json
        from jeepney import new_method_call, DBusAddress, MessageType, HeaderFields
        from jeepney.io.blocking import open_dbus_connection
        conn = open_dbus_connection(bus="SESSION")
        def call(path, interface, member, signature, body):
            message = new_method_call(DBusAddress(path, bus_name="org.freedesktop.secrets", interface=interface), member, signature, body)
            reply = conn.send_and_get_reply(message, timeout=20)
            return reply.header.fields.get(HeaderFields.error_name) if reply.header.message_type == MessageType.error else "ok"
        P = "org.freedesktop.DBus.Properties"
        S = "/org/freedesktop/secrets"
        ITEM = "org.freedesktop.Secret.Item"
        COLLECTION = "org.freedesktop.Secret.Collection"
        missing_item = S + "/aliases/default/0000000000000000000000000000000000000000"
        out = {
            "outside_get": call("/not/existing/path", P, "Get", "ss", (ITEM, "Label")),
            "outside_getall": call("/not/existing/path", P, "GetAll", "s", (ITEM,)),
            "outside_method": call("/not/existing/path", ITEM, "Delete", "", ()),
            "inside_unparsable_get": call(S + "/foo", P, "Get", "ss", (ITEM, "Label")),
            "inside_unparsable_method": call(S + "/foo", ITEM, "Delete", "", ()),
            "missing_item_label": call(missing_item, P, "Get", "ss", (ITEM, "Label")),
            "missing_item_unknown_property": call(missing_item, P, "Get", "ss", (ITEM, "NoSuchProperty")),
            "missing_item_other_interface": call(missing_item, P, "Get", "ss", (COLLECTION, "Label")),
            "missing_item_getall": call(missing_item, P, "GetAll", "s", (ITEM,)),
            "missing_collection_label": call(S + "/collection/nosuch", P, "Get", "ss", (COLLECTION, "Label")),
            "missing_alias_label": call(S + "/aliases/nosuch", P, "Get", "ss", (COLLECTION, "Label")),
            "service_unknown_property": call(S, P, "Get", "ss", ("org.freedesktop.Secret.Service", "NoSuchProperty")),
            "collection_unknown_property": call(S + "/aliases/default", P, "Get", "ss", (COLLECTION, "NoSuchProperty")),
            "collection_other_interface": call(S + "/aliases/default", P, "Get", "ss", (ITEM, "Label")),
            "unknown_algorithm_with_underscores": call(S, "org.freedesktop.Secret.Service", "OpenSession", "sv",
                                                       ("dh-ietf1024-sha256_aes128_cbc_pkcs7", ("ay", b"\\x02"))),
            "session_alias": call(S, "org.freedesktop.Secret.Service", "ReadAlias", "s", ("session",)),
            "session_collection_locked": call(S + "/collection/session", P, "Get", "ss", (COLLECTION, "Locked")),
            # The specification's NoSuchObject where gnome-keyring says UnknownMethod (asserted apart).
            "missing_item_delete": call(missing_item, ITEM, "Delete", "", ()),
        }
        print(json.dumps(out))
        """

    @Test("the same error names from gnome-keyring and KeychainKit where the specification is silent")
    func sameErrorNames() async throws {
        let gnome = try await withProvider(.gnomeKeyring) { try jsonObject(try $0.python(Self.script)) as? [String: String] ?? [:] }
        let ours = try await withProvider(.keychainKit) { try jsonObject(try $0.python(Self.script)) as? [String: String] ?? [:] }
        #expect(gnome.count == 18 && ours.count == 18)
        for key in gnome.keys.sorted() where key != "missing_item_delete" {
            #expect(gnome[key] == ours[key], "\(key): gnome-keyring \(gnome[key] ?? "-"), KeychainKit \(ours[key] ?? "-")")
        }
        #expect(gnome["outside_get"] == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(gnome["missing_item_unknown_property"] == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(ours["missing_item_delete"] == "org.freedesktop.Secret.Error.NoSuchObject")
    }
}
