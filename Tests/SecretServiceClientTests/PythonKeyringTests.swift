import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// Python `keyring` with its Secret Service backend (PYTHON_KEYRING_BACKEND forces it).
@Suite("Python keyring", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct PythonKeyringTests {
    /// Reads the secrets {"first", "second", "bob", "other"} as JSON on stdin; prints what each call returned.
    static let script = """
        import json, sys, keyring, keyring.errors
        secrets = json.load(sys.stdin)
        backend = keyring.get_keyring()
        out = {"backend": type(backend).__module__ + "." + type(backend).__name__}
        out["missing"] = keyring.get_password("kk-svc", "alice")
        keyring.set_password("kk-svc", "alice", secrets["first"])
        out["first"] = keyring.get_password("kk-svc", "alice")
        keyring.set_password("kk-svc", "alice", secrets["second"])
        out["second"] = keyring.get_password("kk-svc", "alice")
        keyring.set_password("kk-svc", "bob", secrets["bob"])
        keyring.set_password("kk-other", "alice", secrets["other"])
        out["bob"] = keyring.get_password("kk-svc", "bob")
        out["other"] = keyring.get_password("kk-other", "alice")
        cred = keyring.get_credential("kk-other", None)
        out["credential"] = [cred.username, cred.password] if cred else None
        keyring.delete_password("kk-svc", "alice")
        out["deleted"] = keyring.get_password("kk-svc", "alice")
        out["bob_kept"] = keyring.get_password("kk-svc", "bob")
        try:
            keyring.delete_password("kk-svc", "alice")
            out["delete_missing"] = "no error"
        except keyring.errors.PasswordDeleteError:
            out["delete_missing"] = "PasswordDeleteError"
        print(json.dumps(out))
        """

    @Test("set, get, overwrite, get_credential and delete_password; deleting a missing one is PasswordDeleteError",
          arguments: SecretServiceProvider.underTest)
    func setGetDelete(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let secrets = #"{"first": "s3cr\u00e9t ✓", "second": "line1\nline2 🔑", "bob": "bobs", "other": "other"}"#
            let out = try jsonObject(try harness.python(Self.script, stdin: secrets.bytes))
            #expect(out["backend"] as? String == "keyring.backends.SecretService.Keyring")
            #expect(out["missing"] is NSNull)
            #expect(out["first"] as? String == "s3crét ✓")
            #expect(out["second"] as? String == "line1\nline2 🔑")
            #expect(out["bob"] as? String == "bobs")
            #expect(out["other"] as? String == "other")
            #expect(out["credential"] as? [String] == ["alice", "other"])
            #expect(out["deleted"] is NSNull)
            #expect(out["bob_kept"] as? String == "bobs")
            #expect(out["delete_missing"] as? String == "PasswordDeleteError")

            // The item keyring made is an ordinary Secret Service item: secret-tool finds it by its attributes.
            let lookup = try harness.secretTool(["lookup", "service", "kk-svc", "username", "bob"])
            #expect(lookup.stdoutBytes == "bobs".bytes, "\(lookup)")
        }
    }
}
