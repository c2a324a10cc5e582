import Foundation
import SecretServiceHarness
import Testing

/// The access log's key and checkpoint are an item of the keychain the provider serves; a client
/// that could read it could forge log entries, so the provider never shows it as an item.
@Suite("The access log's key is no Secret Service item", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct AccessLogKeyTests {
    @Test("after keychainctl recorded accesses, secret-tool finds the user's item but not the log's key")
    func keyNotServed() async throws {
        try await withProvider(.keychainKit) { harness in
            let added = try harness.keychainctl(["add-generic-password", "-s", "kk-log", "-a", "eve", "-w"], stdin: "pw\n".bytes)
            #expect(added.status == 0, "\(added)")
            #expect(try harness.keychainctl(["find-generic-password", "-s", "kk-log", "-w"]).stdout == "pw\n")
            let log = try harness.keychainctl(["access-log", "--json"])
            #expect(log.status == 0 && log.stdout.split(separator: "\n").count == 2, "the log key exists: \(log)")

            let mine = try harness.secretTool(["search", "--all", "service", "kk-log"])
            // secret-tool prints each item's path on stdout, its attributes on stderr.
            #expect(mine.stderr.contains("attribute.username = eve"), "\(mine)")
            let key = try harness.secretTool(["search", "--all", "service", "KeychainKit access log"])
            #expect(key.stdout.isEmpty && !key.stderr.contains("attribute."), "\(key)")
            let everything = try harness.python("""
                import secretstorage
                bus = secretstorage.dbus_init()
                collection = secretstorage.get_default_collection(bus)
                print("\\n".join(item.get_label() for item in collection.get_all_items()))
                """)
            #expect(everything.status == 0, "\(everything)")
            #expect(!everything.stdout.contains("access log"), "\(everything)")
            #expect(everything.stdout.contains("kk-log"), "\(everything)")

            // The provider's own accesses land in the same log, with the client as the caller.
            #expect(try harness.secretTool(["lookup", "service", "kk-log", "username", "eve"]).stdoutBytes == "pw".bytes)
            let after = try harness.keychainctl(["access-log", "--json"])
            #expect(after.status == 0, "\(after)")
            let last = try #require(after.stdout.split(separator: "\n").last)
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
            #expect(entry["channel"] as? String == "secret-service" && entry["operation"] as? String == "read", "\(entry)")
            let caller = entry["caller"] as? [[String: Any]]
            #expect((caller?.first?["executable"] as? String)?.hasSuffix("/secret-tool") == true, "\(entry)")
        }
    }
}
