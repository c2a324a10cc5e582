import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// Calls no well-behaved client makes — wrong signatures, unknown members and interfaces,
/// objects that do not exist, sessions that do not exist, degenerate Diffie-Hellman keys — each
/// get an error reply, and the provider keeps serving afterwards.
@Suite("malformed D-Bus calls", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct MalformedMessageTests {
    /// Sends each call with jeepney (secretstorage's D-Bus library) and prints, per case, the
    /// error name of the reply or "ok".
    static let script = """
        import json
        from jeepney import new_method_call, DBusAddress, MessageType, HeaderFields
        from jeepney.io.blocking import open_dbus_connection
        conn = open_dbus_connection(bus="SESSION")
        S = "/org/freedesktop/secrets"
        SERVICE = "org.freedesktop.Secret.Service"
        PROPS = "org.freedesktop.DBus.Properties"
        DH = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
        def call(path, interface, member, signature, body):
            message = new_method_call(DBusAddress(path, bus_name="org.freedesktop.secrets", interface=interface), member, signature, body)
            reply = conn.send_and_get_reply(message, timeout=20)
            if reply.header.message_type == MessageType.error:
                return reply.header.fields.get(HeaderFields.error_name, "error without a name")
            return "ok"
        out = {
            "unknown_method": call(S, SERVICE, "NoSuchMethod", None, ()),
            "unknown_interface": call(S, "org.example.Nope", "OpenSession", "sv", ("plain", ("s", ""))),
            "open_session_missing_argument": call(S, SERVICE, "OpenSession", "s", ("plain",)),
            "open_session_wrong_types": call(S, SERVICE, "OpenSession", "ui", (1, 2)),
            "open_session_unknown_algorithm": call(S, SERVICE, "OpenSession", "sv", ("rot13", ("s", ""))),
            "dh_empty_key": call(S, SERVICE, "OpenSession", "sv", (DH, ("ay", b""))),
            "dh_key_zero": call(S, SERVICE, "OpenSession", "sv", (DH, ("ay", bytes(128)))),
            "dh_key_too_long": call(S, SERVICE, "OpenSession", "sv", (DH, ("ay", b"\\xff" * 4096))),
            "dh_key_not_bytes": call(S, SERVICE, "OpenSession", "sv", (DH, ("s", "abc"))),
            "search_wrong_dictionary": call(S, SERVICE, "SearchItems", "a{sv}", ({"a": ("s", "b")},)),
            "get_secrets_no_session": call(S, SERVICE, "GetSecrets", "aoo", ([S + "/collection/login/1"], S + "/session/nope")),
            "collection_not_there": call(S + "/collection/doesnotexist", PROPS, "Get", "ss", ("org.freedesktop.Secret.Collection", "Label")),
            "item_not_there": call(S + "/collection/login/999999", "org.freedesktop.Secret.Item", "GetSecret", "o", ("/",)),
            "unknown_property": call(S, PROPS, "Get", "ss", (SERVICE, "NoSuchProperty")),
            "set_read_only_property": call(S, PROPS, "Set", "ssv", (SERVICE, "Collections", ("ao", []))),
            "read_alias_wrong_type": call(S, SERVICE, "ReadAlias", "u", (7,)),
            "create_item_bad_secret": call(S + "/aliases/default", "org.freedesktop.Secret.Collection", "CreateItem", "a{sv}(oayays)b",
                                           ({}, (S + "/session/nope", b"", b"x", "text/plain"), False)),
        }
        out["still_answers"] = call(S, PROPS, "Get", "ss", (SERVICE, "Collections"))
        print(json.dumps(out))
        """

    @Test("every malformed call gets an error reply; the provider still serves clients afterwards", arguments: SecretServiceProvider.underTest)
    func errorsAndStillServing(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let out = try jsonObject(try harness.python(Self.script))
            // gnome-keyring accepts degenerate client DH keys (0, or longer than the group): our
            // provider refuses public keys ≤ 1 or ≥ p − 1 (docs/SECRET-SERVICE.md, "Transfer of secrets").
            let gnomeAccepts: Set<String> = provider == .gnomeKeyring ? ["dh_key_zero", "dh_key_too_long"] : []
            for (name, result) in out where name != "still_answers" {
                let reply = try #require(result as? String)
                if gnomeAccepts.contains(name) {
                    #expect(reply == "ok", "\(name)")
                } else {
                    #expect(reply.hasPrefix("org.freedesktop."), "\(name): an error reply, got \(reply)")
                }
            }
            #expect(out["unknown_method"] as? String == "org.freedesktop.DBus.Error.UnknownMethod")
            #expect(out["open_session_unknown_algorithm"] as? String == "org.freedesktop.DBus.Error.NotSupported")
            #expect(out["get_secrets_no_session"] as? String == "org.freedesktop.Secret.Error.NoSession")
            #expect(out["still_answers"] as? String == "ok")

            // dbus-send, another client library: wrong signature and unknown member.
            for arguments in [["org.freedesktop.Secret.Service.OpenSession", "string:plain"],
                              ["org.freedesktop.Secret.Service.SearchItems", "string:not-a-dictionary"],
                              ["org.freedesktop.Secret.Service.Unlock", "array:string:/not/an/object/path"],
                              ["org.freedesktop.Secret.Service.Frobnicate"]] {
                let reply = try harness.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets",
                                             "/org/freedesktop/secrets"] + arguments, timeout: 30)
                #expect(reply.status != 0 && reply.stderr.hasPrefix("Error org.freedesktop."), "\(arguments): \(reply)")
            }

            // And it still does its job.
            #expect(try harness.secretTool(["store", "--label=after", "kk", "after"], stdin: "still here".bytes).status == 0)
            #expect(try harness.secretTool(["lookup", "kk", "after"]).stdoutBytes == "still here".bytes)
        }
    }
}
