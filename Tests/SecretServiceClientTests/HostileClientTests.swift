import EtcdClusterSupport
import Foundation
import RequiredToolSupport
import SecretServiceHarness
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Resource-exhaustion attacks on a running provider, by real clients (jeepney, secretstorage's D-Bus
/// library): a call larger than the provider reads, one that would decode to millions of values,
/// deeply nested arguments, and floods of sessions and prompts. Each gets an error reply; the
/// provider keeps its name and keeps serving the other clients.
@Suite("Secret Service provider: hostile clients", .integration, .tags(.external, .dbus, .python), .timeLimit(.minutes(5)))
struct HostileClientTests {
    /// Python preamble: a jeepney connection and `call`, which returns "ok" or the error's name.
    static let preamble = """
        import json, sys
        from jeepney import new_method_call, DBusAddress, MessageType, HeaderFields
        from jeepney.io.blocking import open_dbus_connection
        S = "/org/freedesktop/secrets"
        SERVICE = "org.freedesktop.Secret.Service"
        def connect():
            return open_dbus_connection(bus="SESSION")
        def call(conn, path, interface, member, signature, body, timeout=60):
            message = new_method_call(DBusAddress(path, bus_name="org.freedesktop.secrets", interface=interface), member, signature, body)
            reply = conn.send_and_get_reply(message, timeout=timeout)
            if reply.header.message_type == MessageType.error:
                return reply.header.fields.get(HeaderFields.error_name, "error without a name")
            return "ok"

        """

    /// The provider's peak resident memory in KiB (VmHWM), found by its pid on the bus.
    static let peakMemory = """
        def peak_kib(conn):
            message = new_method_call(DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus"),
                                      "GetConnectionUnixProcessID", "s", ("org.freedesktop.secrets",))
            pid = conn.send_and_get_reply(message, timeout=10).body[0]
            for line in open("/proc/%d/status" % pid):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])

        """

    @Test("a 20 MiB call gets LimitsExceeded, a 15 MiB byte array and a call of two million values get InvalidArgs, without the memory they would have cost; the provider keeps its name and serves")
    func oversizedCalls() async throws {
        let script = Self.preamble + Self.peakMemory + """
            conn = connect()
            out = {"peak_before_kib": peak_kib(conn)}
            # Over the provider's 16 MiB: skipped as it arrives, its sender answered.
            out["over_16_mib"] = call(conn, S, SERVICE, "SearchItems", "ay", (bytes(20 << 20),))
            # Just under: read, as one buffer (not one value per byte), then refused by type.
            out["byte_array_15_mib"] = call(conn, S, SERVICE, "SearchItems", "ay", (bytes(15 << 20),))
            # Two million empty strings (~16 MB on the wire): more values than a call may hold.
            out["two_million_strings"] = call(conn, S, SERVICE, "SearchItems", "as", ([""] * 2000000,))
            out["peak_after_kib"] = peak_kib(conn)
            # Another client, and this one, are still served.
            other = connect()
            out["other_client"] = call(other, S, "org.freedesktop.DBus.Properties", "Get", "ss", (SERVICE, "Collections"))
            out["same_client"] = call(conn, S, "org.freedesktop.DBus.Properties", "Get", "ss", (SERVICE, "Collections"))
            print(json.dumps(out))
            """
        try await withProvider(.keychainKit) { harness in
            let out = try jsonObject(try harness.python(script))
            #expect(out["over_16_mib"] as? String == "org.freedesktop.DBus.Error.LimitsExceeded", "\(out)")
            #expect(out["byte_array_15_mib"] as? String == "org.freedesktop.DBus.Error.InvalidArgs", "\(out)")
            #expect(out["two_million_strings"] as? String == "org.freedesktop.DBus.Error.InvalidArgs", "\(out)")
            #expect(out["other_client"] as? String == "ok")
            #expect(out["same_client"] as? String == "ok")
            // A byte per value cost ~40 bytes each (a 15 MiB array ~700 MB): now the peak grows by
            // a few copies of the message at most.
            let before = try #require(out["peak_before_kib"] as? Int)
            let after = try #require(out["peak_after_kib"] as? Int)
            #expect(after - before < 200 * 1024, "peak memory grew by \(after - before) KiB")
            #expect(try harness.nameHasOwner(SecretServiceHarness.serviceName))
            #expect(try harness.secretTool(["store", "--label=after", "kk", "hostile"], stdin: "still here".bytes).status == 0)
            #expect(try harness.secretTool(["lookup", "kk", "hostile"]).stdoutBytes == "still here".bytes)
        }
    }

    @Test("deeply nested arguments (variants 30 deep, arrays and structures 32 deep) get InvalidArgs; the provider serves on")
    func deeplyNested() async throws {
        let script = Self.preamble + """
            conn = connect()
            value = ("s", "x")
            for _ in range(30):
                value = ("v", value)
            out = {}
            out["variants"] = call(conn, S, SERVICE, "OpenSession", "sv", ("plain", value))
            out["arrays"] = call(conn, S, SERVICE, "SearchItems", "a" * 32 + "s", ([[]],))
            nested = "x"
            signature = "s"
            for _ in range(31):
                nested = (nested,)
                signature = "(" + signature + ")"
            out["structures"] = call(conn, S, SERVICE, "SearchItems", signature, (nested,))
            out["still_answers"] = call(conn, S, "org.freedesktop.DBus.Properties", "Get", "ss", (SERVICE, "Collections"))
            print(json.dumps(out))
            """
        try await withProvider(.keychainKit) { harness in
            let out = try jsonObject(try harness.python(script))
            for name in ["variants", "arrays", "structures"] {
                #expect(out[name] as? String == "org.freedesktop.DBus.Error.InvalidArgs", "\(name): \(out)")
            }
            #expect(out["still_answers"] as? String == "ok")
        }
    }

    @Test("one client's floods of sessions, unlock prompts and prompt runs hit its caps (LimitsExceeded); another client is served")
    func floods() async throws {
        let script = Self.preamble + """
            conn = connect()
            out = {}
            results = [call(conn, S, SERVICE, "OpenSession", "sv", ("plain", ("s", ""))) for _ in range(40)]
            out["sessions_ok"] = results.count("ok")
            out["sessions_refused"] = sorted(set(r for r in results if r != "ok"))
            # Unlock of a password-protected collection makes a prompt each time.
            prompts, refused = [], []
            for _ in range(20):
                message = new_method_call(DBusAddress(S, bus_name="org.freedesktop.secrets", interface=SERVICE), "Unlock", "ao",
                                          ([S + "/collection/login"],))
                reply = conn.send_and_get_reply(message, timeout=60)
                if reply.header.message_type == MessageType.error:
                    refused.append(reply.header.fields.get(HeaderFields.error_name))
                else:
                    prompts.append(reply.body[1])
            out["prompts_made"] = len(prompts)
            out["prompts_refused"] = sorted(set(refused))
            # Running two at once: the pinentry of the first is still showing (it sleeps).
            out["first_prompt"] = call(conn, prompts[0], "org.freedesktop.Secret.Prompt", "Prompt", "s", ("",))
            out["second_prompt"] = call(conn, prompts[1], "org.freedesktop.Secret.Prompt", "Prompt", "s", ("",))
            other = connect()
            out["other_session"] = call(other, S, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))
            print(json.dumps(out))
            """
        // A pinentry that never answers in the test's time (killed with the provider at the end).
        let scripts = FileManager.default.temporaryDirectory.appendingPathComponent("kk-slow-pinentry-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scripts, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { do { try FileManager.default.removeItem(atPath: scripts) } catch {} }  // test cleanup only
        let pinentry = scripts + "/pinentry"
        try writeScript("#!/bin/sh\necho \"OK Pleased to meet you\"\nwhile IFS= read -r line; do\n  case \"$line\" in GETPIN) sleep 600;; *) echo OK;; esac\ndone\n",
                        to: pinentry)
        try await onDedicatedThread {
            let harness = try SecretServiceHarness(.keychainKit, providerEnvironment: ["KEYCHAINKIT_SESSION_KEYRING": "off",
                                                                                       "KEYCHAINKIT_PINENTRY": pinentry]) {
                try createPasswordKeychain($0, password: "correct horse")
            }
            defer { harness.stop() }
            let out = try jsonObject(try harness.python(script))
            #expect(out["sessions_ok"] as? Int == 32, "\(out)")
            #expect(out["sessions_refused"] as? [String] == ["org.freedesktop.DBus.Error.LimitsExceeded"])
            #expect(out["prompts_made"] as? Int == 16, "\(out)")
            #expect(out["prompts_refused"] as? [String] == ["org.freedesktop.DBus.Error.LimitsExceeded"])
            #expect(out["first_prompt"] as? String == "ok")
            #expect(out["second_prompt"] as? String == "org.freedesktop.DBus.Error.LimitsExceeded", "one prompt showing per client")
            #expect(out["other_session"] as? String == "ok")
            #expect(harness.providerIsRunning, "\(harness.providerLog)")
        }
    }
}

/// Creates the sandbox's login keychain with `password` (kernel-keyring sharing off, so the
/// provider starts with it locked).
func createPasswordKeychain(_ harness: SecretServiceHarness, password: String) throws {
    let created = try harness.run([SecretServiceHarness.keychainctlPath, "create-keychain", harness.keychainPath, "-p"],
                                  stdin: Array((password + "\n").utf8),
                                  environment: harness.keychainEnvironment.merging(["KEYCHAINKIT_SESSION_KEYRING": "off"]) { _, new in new })
    #expect(created.status == 0, "create-keychain: \(created.stderr)")
}

/// Writes `text` as an executable script through a close-on-exec descriptor (a process another
/// test spawns meanwhile must not inherit it open for writing: "text file busy").
func writeScript(_ text: String, to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o700)
    guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
    defer { close(descriptor) }
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
        throw CocoaError(.fileWriteUnknown)
    }
}
