import Foundation
import RequiredToolSupport
import Testing

/// `keychainctl service migrate-in` and `migrate-out` of Secret Service items: a real service
/// (users made with `useradd`), a real `dbus-daemon`, `keychainctl secret-service` embedded and
/// then through the service, and libsecret's `secret-tool`. What the embedded provider stored (in
/// keychainctl's own group) is found by the provider through the service (in the Secret Service's
/// group, under the service's per-application decisions), and goes back to keychainctl's group on
/// the way out; an application's item that only looks like one stays that application's.
@Suite("Keychain service: migration of Secret Service items (real users, real bus)",
       .integration, .tags(.external, .dbus), .serialized, .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServiceMigrateSecretServiceTests {
    static let attributes = ["service", "imap", "username", "alice"]
    static let lookalike = ["service", "lookalike", "username", "alice"]

    /// The provider's stored form of `attributes` (`kSecAttrGeneric`: a marker and the JSON of the
    /// attributes and content type), as an application could write it into its own item.
    static func providerForm(_ attributes: [String: String]) throws -> Data {
        struct Stored: Encodable {
            var attributes: [String: String]
            var contentType = "text/plain"
        }
        return Data("KKSS1\n".utf8) + (try JSONEncoder().encode(Stored(attributes: attributes)))
    }

    @Test("an item secret-tool stored embedded is found through the provider in the service, and goes back on migrate-out; a look-alike stays its application's")
    func secretServiceItemsFollowTheProvider() throws {
        try RequiredTool.require([.dbusDaemon, .dbusSend, .secretTool])
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let alice = fixture.alice
        // An application's item carrying the provider's encoding, in the application's own group.
        let form = try Self.providerForm(["service": "lookalike", "username": "alice"])
        try ServiceMigrationTests.makeEmbeddedKeychain(fixture, items: [
            ["class": "genp", "svce": "lookalike", "acct": "alice", "agrp": "com.example.app", "gena": form, "v_Data": Data("app-secret".utf8)],
        ])
        try fixture.write(ServiceMigrationTests.password, to: alice.home + "/password", owner: alice, mode: 0o600)

        // secret-tool stores through the embedded provider (keychainctl's own group).
        let embedded = ServiceMigrationTests.embeddedEnvironment(fixture).merging(
            ["KEYCHAINKIT_SERVICE_SOCKET": "off", "KEYCHAINKIT_PASSWORD_FILE": alice.home + "/password"]) { _, new in new }
        let before: [String]
        do {
            let session = try SecretServiceRoutingTests.Session(fixture, as: alice, provider: fixture.program, environment: embedded)
            defer { session.stop() }
            let store = try SecretServiceDecisionTests.secretTool(fixture, session, ["store", "--label=Mail"] + Self.attributes, stdin: "mail-secret")
            #expect(store.status == 0, "\(store.error)\n--- provider\n\(session.providerLog)")
            before = try ServiceMigrationTests.contents(fixture, "embedded.keychain-db")
            #expect(before.contains { $0.contains("svce=imap") && $0.contains("agrp=keychainctl") }, "\(before)")
        }

        let moved = try ServiceMigrationTests.migrate(fixture, "migrate-in")
        #expect(moved.status == 0, "\(moved.output) \(moved.error) \(fixture.log)")

        // Through the service the provider finds it; no program is its recorded creator, so the
        // client is asked (the test's pinentry answers "once" with the keychain password).
        let once = try SecretServiceDecisionTests.pinentry(fixture, name: "once", choice: "once", password: ServiceMigrationTests.password)
        let session = try SecretServiceRoutingTests.Session(fixture, as: alice, provider: fixture.program,
                                                           environment: ["KEYCHAINKIT_PINENTRY": once.path])
        defer { session.stop() }
        let lookup = try SecretServiceDecisionTests.secretTool(fixture, session, ["lookup"] + Self.attributes)
        #expect(lookup.status == 0 && lookup.output == "mail-secret", "\(lookup.output) \(lookup.error)\n\(session.providerLog)\n\(fixture.log)")
        let asked = (try String(contentsOfFile: once.marker, encoding: .utf8)).split(separator: "\n").count
        #expect(asked == 1, "the migrated item was read without the per-application decision (\(asked) prompts)")
        // It is in the Secret Service's group only: keychainctl's SecItem read needs consent (36 here).
        let direct = try fixture.run(as: alice, [fixture.program, "find-generic-password", "-s", "imap", "-a", "alice", "-w"])
        #expect(direct.status == 36 && !direct.output.contains("mail-secret"), "\(direct.status) \(direct.output) \(direct.error)")

        // The look-alike stayed in its application's group: no Secret Service client sees it, not
        // even through a prompt.
        let hidden = try SecretServiceDecisionTests.secretTool(fixture, session, ["lookup"] + Self.lookalike)
        #expect(hidden.status != 0 && !hidden.output.contains("app-secret"), "\(hidden.output) \(hidden.error)")
        let listed = try fixture.run(as: alice, [fixture.program, "app-access", "list", "--json"])
        #expect(listed.status == 0 && listed.output.contains("imap") && !listed.output.contains("lookalike"), "\(listed.output) \(listed.error)")
        #expect((try String(contentsOfFile: once.marker, encoding: .utf8)).split(separator: "\n").count == 1)

        // Out again: every item back in the group it came from.
        let out = try ServiceMigrationTests.migrate(fixture, "migrate-out", keychain: "/back.keychain-db")
        #expect(out.status == 0, "\(out.output) \(out.error) \(fixture.log)")
        let after = try ServiceMigrationTests.contents(fixture, "back.keychain-db")
        #expect(after == before, "round trip changed the items:\n\(before.joined(separator: "\n"))\n---\n\(after.joined(separator: "\n"))")
    }
}
