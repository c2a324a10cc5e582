import Foundation
import RequiredToolSupport
import Testing

/// The lists of trusted applications the provider kept before the service decided (hidden records
/// of service `org.keychainkit.SecretService.ApplicationAccess` in the keychain) are not carried
/// into the service's record: any program of the user could have written them (a provider run with
/// a pinentry of its own that clicks "Always allow", which then needed no password), so the
/// service cannot tell the user's decisions from a planted one. Each program is asked once again.
@Suite("Keychain service: the provider's earlier lists never become grants (real users, real bus)",
       .integration, .tags(.external, .dbus), .serialized, .enabled(if: getuid() == 0, "creates users: run as root"))
struct SecretServiceEarlierListsTests {
    /// Adds one generic password claiming the Secret Service's group (argv: account, JSON secret).
    static let planter = ServiceClientScripts.pythonOneRequest + #"""
        send_request(1, {'class': string('genp'), 'svce': string('org.keychainkit.SecretService.ApplicationAccess'),
                         'acct': string(sys.argv[1]), 'v_Data': data(sys.argv[2].encode())}, groups=['org.freedesktop.secrets'])
        """#

    @Test("a planted record (policy allow, a client on the item's list) written into the Secret Service's group lets nothing through")
    func plantedRecordGrantsNothing() throws {
        let (fixture, other) = try SecretServiceDecisionTests.prepared()
        defer { fixture.stop() }
        let python = try RequiredTool.python3.require()
        let session = try SecretServiceRoutingTests.Session(fixture, as: fixture.alice, provider: fixture.program)
        defer { session.stop() }
        try SecretServiceDecisionTests.storeAsCreator(fixture, session)
        let id = try #require(try SecretServiceDecisionTests.itemID(fixture), "\(fixture.log)")

        // A program Alice let into the Secret Service's group writes the provider's old records:
        // the keychain-wide one (version 1: policy allow and every list) and the item's own list.
        let script = fixture.base + "/bin/plant.py"
        try fixture.write(Self.planter, to: script, owner: nil, mode: 0o644)
        let granted = try fixture.run(as: fixture.alice, [fixture.program, "app", "grant", script, "--access-group", "org.freedesktop.secrets", "-p"],
                                      stdin: SecretServiceDecisionTests.password + "\n")
        #expect(granted.status == 0, "\(granted.error) \(fixture.log)")
        let list = #"{"creator":"\#(other)","trusted":["\#(other)"]}"#
        let planted = [("record", #"{"version":1,"policy":"allow","items":{"\#(id)":\#(list)}}"#),
                       ("item:" + id, #"{"item":"\#(id)","creator":"\#(other)","trusted":["\#(other)"]}"#)]
        for (account, json) in planted {
            let run = try fixture.run(as: fixture.alice, [python, "-I", script, account, json])
            #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(run.output) \(run.error) \(fixture.log)")
        }

        // Neither the planted policy nor the planted list counts: the other client is refused, the
        // service's record is unchanged, and the planted records are no Secret Service items.
        let refused = try SecretServiceDecisionTests.secretTool(fixture, session, tool: other, ["lookup"] + SecretServiceDecisionTests.attributes)
        #expect(refused.status != 0 && !refused.output.contains("decided-secret"), "\(refused.output) \(refused.error)\n\(session.providerLog)")
        let listed = try fixture.run(as: fixture.alice, [fixture.program, "app-access", "list", "--json"])
        #expect(listed.status == 0 && !listed.output.contains(other) && listed.output.contains(#""policy":"confirm""#), "\(listed.output)")
        #expect(!listed.output.contains("ApplicationAccess"), "\(listed.output)")
        let logged = try SecretServiceDecisionTests.itemEntries(fixture)
        #expect(SecretServiceDecisionTests.entries(logged, of: other, "trusted").isEmpty
                && SecretServiceDecisionTests.entries(logged, of: other, "allowed-by-policy").isEmpty, "\(logged)")
    }
}
