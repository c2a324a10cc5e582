import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// Locking and unlocking the default collection through secretstorage, headless (no display,
/// no terminal: an unlock prompt must end, never hang).
@Suite("secretstorage lock and unlock", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct SecretStorageLockTests {
    /// Reads the item's secret on stdin. Each step's result, or the name of the error it raised (so one failing step does not hide the others).
    static let script = """
        import json, sys, secretstorage
        from jeepney.wrappers import DBusErrorResponse
        conn = secretstorage.dbus_init()
        def attempt(step):
            try:
                return step()
            except DBusErrorResponse as error:
                return error.name
            except Exception as error:
                return type(error).__name__
        out = {}
        default = secretstorage.get_default_collection(conn)
        item = default.create_item("lock test", {"kk": "lock"}, sys.stdin.buffer.read(), replace=True)
        default.lock()
        out["locked"] = attempt(default.is_locked)
        out["item_locked"] = attempt(item.is_locked)
        out["secret_while_locked"] = attempt(lambda: secretstorage.Item(conn, item.item_path).get_secret().decode())
        out["create_while_locked"] = attempt(lambda: default.create_item("x", {"kk": "x"}, b"x") and "created")
        out["unlock_dismissed"] = attempt(default.unlock)
        out["locked_after_unlock"] = attempt(default.is_locked)
        out["secret_after_unlock"] = attempt(lambda: secretstorage.Item(conn, item.item_path).get_secret().decode())
        print(json.dumps(out))
        """

    @Test("lock: the secret and new items are refused; unlock without a terminal ends (dismissed or unlocked), consistently",
          arguments: SecretServiceProvider.underTest)
    func lockUnlock(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let run = try harness.python(Self.script, stdin: "locked-secret".bytes)
            #expect(!run.timedOut, "an unlock prompt must not hang without a terminal")
            let out = try jsonObject(run)
            #expect(out["locked"] as? Bool == true)
            #expect(out["item_locked"] as? Bool == true)
            #expect(out["secret_while_locked"] as? String == "LockedException")
            #expect(out["create_while_locked"] as? String == "LockedException")
            // Whatever the prompt did, the state the service reports is the state it enforces.
            let stillLocked = try #require(out["locked_after_unlock"] as? Bool)
            #expect(out["secret_after_unlock"] as? String == (stillLocked ? "LockedException" : "locked-secret"))
            if provider == .gnomeKeyring {
                // gnome-keyring asks its password through a system prompter on the display: none
                // headless, so the prompt is dismissed at once and the collection stays locked.
                #expect(out["unlock_dismissed"] as? Bool == true)
                #expect(stillLocked)
            } else {
                #expect((out["unlock_dismissed"] as? Bool) == stillLocked, "dismissed exactly when it stays locked")
            }
        }
    }
}
