import Foundation
import SecretServiceHarness
import Testing

/// Locking and unlocking the default collection through secretstorage, headless (no display,
/// no terminal: an unlock prompt must end, never hang).
@Suite("secretstorage lock and unlock")
struct SecretStorageLockTests {
    static let script = """
        import json, sys, secretstorage
        from secretstorage import exceptions
        conn = secretstorage.dbus_init()
        out = {}
        default = secretstorage.get_default_collection(conn)
        item = default.create_item("lock test", {"kk": "lock"}, b"locked-secret", replace=True)
        default.lock()
        out["locked"] = default.is_locked()
        out["item_locked"] = item.is_locked()
        try:
            out["secret_while_locked"] = secretstorage.Item(conn, item.item_path).get_secret().decode()
        except exceptions.LockedException:
            out["secret_while_locked"] = "LockedException"
        try:
            default.create_item("x", {"kk": "x"}, b"x")
            out["create_while_locked"] = "no error"
        except exceptions.LockedException:
            out["create_while_locked"] = "LockedException"
        out["unlock_dismissed"] = default.unlock()
        out["locked_after_unlock"] = default.is_locked()
        try:
            out["secret_after_unlock"] = secretstorage.Item(conn, item.item_path).get_secret().decode()
        except exceptions.LockedException:
            out["secret_after_unlock"] = "LockedException"
        print(json.dumps(out))
        """

    @Test("lock: the secret and new items are refused; unlock without a terminal ends (dismissed or unlocked), consistently",
          arguments: SecretServiceProvider.underTest)
    func lockUnlock(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let run = try harness.python(Self.script)
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
