import Foundation
import RequiredToolSupport
import SecretServiceHarness
import Testing

/// The XDG secret portal backend (`org.freedesktop.impl.portal.Secret.RetrieveSecret`), called as
/// xdg-desktop-portal calls it: through GDBus, on the provider's bus name, at
/// `/org/freedesktop/portal/desktop`, with a request handle, the app id, a file descriptor in the
/// message's descriptor list and an options dictionary.
@Suite("XDG secret portal backend", .integration, .tags(.external, .dbus, .python))
struct SecretPortalTests {
    /// Runs the calls named on stdin (a JSON list of cases) and prints, for each, the reply's
    /// response code and the secret read from the pipe (hex), or the D-Bus error's name and message;
    /// and whether the provider closed its copy of the descriptor afterwards.
    static let script = #"""
        import json, os, select, sys
        from gi.repository import Gio, GLib
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)

        def drain(r, wait):
            data, closed = b"", False
            while True:
                ready, _, _ = select.select([r], [], [], wait)
                if not ready:
                    break
                chunk = os.read(r, 4096)
                if not chunk:
                    closed = True
                    break
                data += chunk
            return data, closed

        def call(case):
            r, w = os.pipe()
            fds = Gio.UnixFDList.new()
            kind = case.get("fd", "pipe")
            if kind == "read-only":
                index = fds.append(r)
            elif kind == "reader-closed":
                os.close(r)
                r = None
                index = fds.append(w)
            else:
                index = fds.append(w)
            if kind == "bad-index":
                index = 7
            options = {key: GLib.Variant("s", value) for key, value in case.get("options", {}).items()}
            for number in range(case.get("extra_options", 0)):
                options["x%d" % number] = GLib.Variant("s", "v" * 64)
            handle = "/org/freedesktop/portal/desktop/request/1_42/kk"
            params = GLib.Variant("(osha{sv})", (handle, case["app_id"], index, options))
            out = {}
            try:
                reply, _ = bus.call_with_unix_fd_list_sync(
                    "org.freedesktop.secrets", "/org/freedesktop/portal/desktop",
                    "org.freedesktop.impl.portal.Secret", "RetrieveSecret", params,
                    GLib.VariantType("(ua{sv})"), Gio.DBusCallFlags.NONE, 20000, fds, None)
                out["response"] = reply.unpack()[0]
            except GLib.Error as error:
                out["error"] = Gio.DBusError.get_remote_error(error)
                out["message"] = error.message
            os.close(w)
            for copy in fds.steal_fds():  # the list's own copies, so that EOF means the provider closed its one
                os.close(copy)
            if r is not None:
                data, closed = drain(r, 5)
                out["secret"] = data.hex()
                out["closed"] = closed
                os.close(r)
            return out

        cases = json.load(sys.stdin)
        print(json.dumps([call(case) for case in cases]))
        """#

    /// The secret of org.example.Alpha's portal item, in hex, read with secretstorage (secret-tool
    /// prints only textual secrets).
    static let lookupScript = """
        import secretstorage
        bus = secretstorage.dbus_init()
        items = list(secretstorage.search_items(bus, {"xdg:schema": "org.freedesktop.impl.portal.Secret", "app_id": "org.example.Alpha"}))
        assert len(items) == 1, len(items)
        print(items[0].get_secret().hex())
        """

    /// The script's answers, one per case.
    static func retrieve(_ harness: SecretServiceHarness, _ cases: [[String: Any]]) throws -> [[String: Any]] {
        try RequiredTool.require([.pythonGObject])
        let input = try JSONSerialization.data(withJSONObject: cases)
        let run = try harness.python(script, stdin: Array(input))
        try #require(run.status == 0, "\(run)")
        let value = try JSONSerialization.jsonObject(with: Data(run.stdoutBytes))
        return try #require(value as? [[String: Any]], "not a JSON list: \(run)")
    }

    @Test("the same app id gets the same 64-byte secret every time, another app id another; it is a keychain item")
    func samePerApplication() async throws {
        try await withProvider(.keychainKit) { harness in
            let answers = try Self.retrieve(harness, [
                ["app_id": "org.example.Alpha", "options": ["token": "t1"]],
                ["app_id": "org.example.Alpha"],
                ["app_id": "org.example.Beta"],
            ])
            try #require(answers.count == 3)
            for answer in answers {
                #expect(answer["response"] as? Int == 0, "\(answer)")
                #expect((answer["secret"] as? String)?.count == 128, "\(answer)")
                #expect(answer["closed"] as? Bool == true, "the provider kept the caller's descriptor open: \(answer)")
            }
            let alpha = try #require(answers[0]["secret"] as? String)
            #expect(answers[1]["secret"] as? String == alpha)
            #expect(answers[2]["secret"] as? String != alpha)

            // Stored as an ordinary item of the default collection, which any Secret Service client finds.
            let lookup = try harness.python(Self.lookupScript)
            #expect(lookup.status == 0, "\(lookup)")
            #expect(lookup.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == alpha, "\(lookup.stdout)")

            // A restarted provider hands out the same secret (it is kept, not made per process).
            try harness.restartProvider()
            let again = try Self.retrieve(harness, [["app_id": "org.example.Alpha"]])
            #expect(again.first?["secret"] as? String == alpha)
        }
    }

    @Test("hostile calls: a read-only descriptor, a closed reader, a missing descriptor, an empty app id, oversized options")
    func hostileCallers() async throws {
        try await withProvider(.keychainKit) { harness in
            let answers = try Self.retrieve(harness, [
                ["app_id": "org.example.Victim", "fd": "read-only"],
                ["app_id": "org.example.Victim", "fd": "reader-closed"],
                ["app_id": "org.example.Victim", "fd": "bad-index"],
                ["app_id": ""],
                ["app_id": "org.example.Victim", "extra_options": 100],
                ["app_id": "org.example.Victim"],
                ["app_id": "org.example.Victim"],
                ["app_id": "org.example.Victim", "extra_options": 40_000],
            ])
            try #require(answers.count == 8)
            let invalid = "org.freedesktop.DBus.Error.InvalidArgs"
            #expect(answers[0]["error"] as? String == invalid, "\(answers[0])")
            #expect((answers[0]["message"] as? String)?.contains("read-only") == true, "\(answers[0])")
            #expect(answers[0]["secret"] as? String == "", "a secret reached a read-only descriptor: \(answers[0])")
            #expect(answers[1]["error"] as? String == invalid, "\(answers[1])")
            #expect((answers[1]["message"] as? String)?.contains("closed") == true, "\(answers[1])")
            #expect(answers[2]["error"] as? String == invalid, "\(answers[2])")
            #expect(answers[2]["secret"] as? String == "", "\(answers[2])")
            #expect(answers[3]["error"] as? String == invalid, "\(answers[3])")
            #expect((answers[3]["message"] as? String)?.contains("app_id") == true, "\(answers[3])")
            #expect(answers[3]["secret"] as? String == "", "\(answers[3])")
            #expect(answers[4]["error"] as? String == "org.freedesktop.DBus.Error.LimitsExceeded", "\(answers[4])")
            #expect(answers[4]["secret"] as? String == "", "\(answers[4])")
            // None of it disturbed the provider, and the secret made during the closed-reader
            // call (never handed out) is the one every later call gets.
            #expect(answers[5]["response"] as? Int == 0, "\(answers[5])")
            let victim = try #require(answers[5]["secret"] as? String)
            #expect(victim.count == 128)
            #expect(answers[6]["secret"] as? String == victim)
            // Past the provider's decoding limit (65 536 values in one message): refused before the portal sees it.
            #expect(answers[7]["error"] as? String == invalid, "\(answers[7])")
            #expect((answers[7]["message"] as? String)?.contains("65536 values") == true, "\(answers[7])")
            #expect(answers[7]["secret"] as? String == "", "\(answers[7])")
            for (index, answer) in answers.enumerated() where answer["closed"] != nil {
                #expect(answer["closed"] as? Bool == true, "call \(index): the provider kept the caller's descriptor open")
            }
            let search = try harness.secretTool(["search", "--all", "app_id", "org.example.Victim"])
            #expect(search.stdout.split(separator: "\n").filter { $0.hasPrefix("[/") && $0.hasSuffix("]") }.count == 1, "one item per app id: \(search.stdout)")
        }
    }
}
