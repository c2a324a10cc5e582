import Foundation
import RequiredToolSupport
import Testing

/// The provider's in-memory `session` collection with the keychain service: a real service, a real
/// `dbus-daemon`, the installed provider and libsecret's `secret-tool`. The provider keeps the
/// session items and decides who may use them itself (they never reach the service), under the
/// per-application policy the service keeps for the user (`keychainctl app-access policy`).
@Suite("Keychain service: the Secret Service session collection under the service's policy (real users, real bus)",
       .integration, .tags(.external, .dbus), .serialized, .enabled(if: getuid() == 0, "creates users: run as root"))
struct SecretServiceSessionCollectionTests {
    static let attributes = ["service", "in-session", "username", "alice"]

    @Test("its creator stores into and reads from the session collection; another client is refused under the service's confirm, let through under its allow")
    func sessionCollectionUnderServicePolicy() throws {
        let (fixture, other) = try SecretServiceDecisionTests.prepared()
        defer { fixture.stop() }
        let session = try SecretServiceRoutingTests.Session(fixture, as: fixture.alice, provider: fixture.program)
        defer { session.stop() }
        func secretTool(_ tool: String, _ arguments: [String], stdin: String? = nil) throws -> ServiceFixture.Run {
            try SecretServiceDecisionTests.secretTool(fixture, session, tool: tool, arguments, stdin: stdin)
        }
        let creator = SecretServiceRoutingTests.secretTool
        let store = try secretTool(creator, ["store", "--label=In session", "--collection=session"] + Self.attributes, stdin: "session-secret")
        #expect(store.status == 0, "\(store.error)\n--- provider\n\(session.providerLog)\n--- service\n\(fixture.log)")
        let lookup = try secretTool(creator, ["lookup"] + Self.attributes)
        #expect(lookup.status == 0 && lookup.output == "session-secret", "\(lookup.output) \(lookup.error)\n\(session.providerLog)\n\(fixture.log)")
        // The item is the provider's, in memory: the service's keychain never held it.
        let inService = try fixture.run(as: fixture.alice, [fixture.program, "app-access", "list", "--json"])
        #expect(inService.status == 0 && !inService.output.contains("in-session"), "\(inService.output) \(inService.error)")

        // The service's policy for Alice is confirm (its default), and nobody can be asked here.
        let refused = try secretTool(other, ["lookup"] + Self.attributes)
        #expect(refused.status != 0 || refused.output.isEmpty, "\(refused.output) \(refused.error)")
        #expect(!refused.output.contains("session-secret"), "\(refused.output)\n\(session.providerLog)")

        // Alice sets the service's policy to allow (with her keychain password): the provider follows it.
        let allow = try fixture.run(as: fixture.alice, [fixture.program, "app-access", "policy", "allow"],
                                    stdin: SecretServiceDecisionTests.password + "\n")
        #expect(allow.status == 0, "\(allow.error)\n\(fixture.log)")
        let allowed = try secretTool(other, ["lookup"] + Self.attributes)
        #expect(allowed.status == 0 && allowed.output == "session-secret", "\(allowed.output) \(allowed.error)\n\(session.providerLog)\n\(fixture.log)")

        // The policy came from the service's record: the provider read no hidden record of its own
        // through the service (no call of its own logged there).
        let own = try ServiceAccessLogTests.log(fixture, as: fixture.alice).entries.filter { $0["application"] as? String == fixture.program }
        #expect(own.isEmpty, "\(own)")

        // With the keychain locked (the policy then unreadable), the creator still reads its session item.
        let lock = try fixture.run(as: fixture.alice, [fixture.program, "lock-keychain"])
        #expect(lock.status == 0, "\(lock.error)")
        let whileLocked = try secretTool(creator, ["lookup"] + Self.attributes)
        #expect(whileLocked.status == 0 && whileLocked.output == "session-secret", "\(whileLocked.output) \(whileLocked.error)\n\(session.providerLog)")
    }
}
