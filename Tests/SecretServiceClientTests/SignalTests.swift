import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// The Collection signals another client (a password manager window, say) relies on to follow
/// changes: ItemCreated, ItemChanged and ItemDeleted, each naming the item.
@Suite("Collection signals", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct SignalTests {
    /// Listens on one connection while secretstorage, on another, creates, relabels, changes the
    /// secret of, and deletes an item (secret on stdin); prints the members of the signals that
    /// named that item, in order.
    static let script = """
        import json, sys, secretstorage
        from jeepney.bus_messages import message_bus, MatchRule
        from jeepney.io.blocking import open_dbus_connection
        listener = open_dbus_connection(bus="SESSION")
        rule = MatchRule(type="signal", interface="org.freedesktop.Secret.Collection")
        with listener.filter(rule, bufsize=1000) as queue:
            listener.send_and_get_reply(message_bus.AddMatch(rule), timeout=20)
            conn = secretstorage.dbus_init()
            default = secretstorage.get_default_collection(conn)
            item = default.create_item("signals", {"kk": "signals"}, sys.stdin.buffer.read())
            item.set_label("signals 2")
            item.set_secret(b"changed")
            path = item.item_path
            item.delete()
            seen = []
            while not seen or seen[-1] != "ItemDeleted":
                try:
                    message = listener.recv_until_filtered(queue, timeout=10)
                except TimeoutError:
                    break
                if message.body and message.body[0] == path:
                    seen.append(message.header.fields[3])
        print(json.dumps({"signals": seen}))
        """

    @Test("ItemCreated, then ItemChanged for a new label and a new secret, then ItemDeleted", arguments: SecretServiceProvider.underTest)
    func itemSignals(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let out = try jsonObject(try harness.python(Self.script, stdin: "signal secret".bytes))
            let signals = try #require(out["signals"] as? [String])
            #expect(signals.first == "ItemCreated", "\(signals)")
            #expect(signals.last == "ItemDeleted", "\(signals)")
            #expect(signals.dropFirst().dropLast().allSatisfy { $0 == "ItemChanged" } && signals.count >= 3, "\(signals)")
        }
    }
}
