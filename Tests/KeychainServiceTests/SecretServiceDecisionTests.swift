import Foundation
import RequiredToolSupport
import Testing

/// The Secret Service's per-application access decided by the keychain service: a real service
/// (users made with `useradd`), a real `dbus-daemon`, the installed `keychainctl secret-service`
/// and libsecret's `secret-tool` as D-Bus clients. The item's creator reads it; another client of
/// the same user is refused, or asked about through the provider's prompt (a pinentry of the
/// test's own), and only an answer carrying the keychain password lets it through — checked by the
/// service, logged by the service under the client, with the provider named.
@Suite("Keychain service: Secret Service per-application access decided by the service (real users, real bus)",
       .integration, .tags(.external, .dbus), .serialized, .enabled(if: getuid() == 0, "creates users: run as root"))
struct SecretServiceDecisionTests {
    static let password = "alice keychain password"
    static let attributes = ["service", "decided", "username", "alice"]

    /// A started service where Alice's keychain has a password, and `other`: a root-owned copy of
    /// secret-tool (a verified program, but another application than /usr/bin/secret-tool).
    static func prepared() throws -> (fixture: ServiceFixture, other: String) {
        try RequiredTool.require([.dbusDaemon, .dbusSend, .secretTool])
        let fixture = try ServiceFixture()
        let other = fixture.base + "/bin/other-secret-tool"
        try FileManager.default.copyItem(atPath: SecretServiceRoutingTests.secretTool, toPath: other)
        try fixture.start()
        let created = try fixture.run(as: fixture.alice, [fixture.program, "create-keychain", "-p"], stdin: password + "\n")
        #expect(created.status == 0, "\(created.error) \(fixture.log)")
        return (fixture, other)
    }

    /// A pinentry of the test's own (root-owned): each confirmation is answered `choice` (`once`,
    /// `always` or `deny`) after `delay` seconds, with a line appended to `marker` first; a
    /// password prompt is answered `password`.
    static func pinentry(_ fixture: ServiceFixture, name: String, choice: String, password: String, delay: Double = 0) throws
        -> (path: String, marker: String) {
        let path = fixture.base + "/bin/pinentry-\(name)", marker = fixture.base + "/pinentry-\(name).asked"
        let answer = ["once": "OK", "always": "ERR 83886194 Not confirmed", "deny": "ERR 83886179 Operation cancelled"][choice] ?? "OK"
        let script = """
            #!/bin/sh
            echo "OK Pleased to meet you"
            while read -r line; do
              case "$line" in
                CONFIRM*) echo asked >> \(marker); sleep \(delay); echo "\(answer)";;
                GETPIN*) echo "D \(password)"; echo OK;;
                BYE*) echo OK; exit 0;;
                *) echo OK;;
              esac
            done
            """
        try fixture.write(script, to: path, owner: nil, mode: 0o755)
        guard FileManager.default.createFile(atPath: marker, contents: nil, attributes: [.posixPermissions: 0o666]) else {
            throw FixtureFailure("cannot create \(marker)")
        }
        return (path, marker)
    }

    static func secretTool(_ fixture: ServiceFixture, _ session: SecretServiceRoutingTests.Session, tool: String = SecretServiceRoutingTests.secretTool,
                           _ arguments: [String], stdin: String? = nil) throws -> ServiceFixture.Run {
        try fixture.run(as: fixture.alice, [tool] + arguments, stdin: stdin, environment: ["DBUS_SESSION_BUS_ADDRESS": session.busAddress])
    }

    /// Stores the item with /usr/bin/secret-tool (its creator) and reads it back.
    static func storeAsCreator(_ fixture: ServiceFixture, _ session: SecretServiceRoutingTests.Session) throws {
        let store = try secretTool(fixture, session, ["store", "--label=Decided"] + attributes, stdin: "decided-secret")
        #expect(store.status == 0, "\(store.error)\n--- provider\n\(session.providerLog)\n--- service\n\(fixture.log)")
        let lookup = try secretTool(fixture, session, ["lookup"] + attributes)
        #expect(lookup.status == 0 && lookup.output == "decided-secret", "\(lookup.output) \(lookup.error)\n\(session.providerLog)")
    }

    /// The service's log entries of the item, through the provider.
    static func itemEntries(_ fixture: ServiceFixture) throws -> [[String: Any]] {
        try ServiceAccessLogTests.log(fixture, as: fixture.alice).entries.filter {
            $0["channel"] as? String == "secret-service" && ($0["item"] as? [String: Any])?["service"] as? String == "decided"
        }
    }

    /// The entries of `application` with `decision`.
    static func entries(_ all: [[String: Any]], of application: String, _ decision: String) -> [[String: Any]] {
        all.filter { $0["application"] as? String == application && $0["decision"] as? String == decision }
    }

    /// The item's id, as `app-access list --json` prints it.
    static func itemID(_ fixture: ServiceFixture) throws -> String? {
        let run = try fixture.run(as: fixture.alice, [fixture.program, "app-access", "list", "--json"])
        let object = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any]
        let items = object?["items"] as? [[String: Any]] ?? []
        return items.first { $0["service"] as? String == "decided" }?["id"] as? String
    }

    @Test("a second D-Bus client of the same user is refused where nobody can be asked, logged by the service under it; app-access trust needs the password")
    func secondClientRefused() throws {
        let (fixture, other) = try Self.prepared()
        defer { fixture.stop() }
        let session = try SecretServiceRoutingTests.Session(fixture, as: fixture.alice, provider: fixture.program)
        defer { session.stop() }
        try Self.storeAsCreator(fixture, session)

        let refused = try Self.secretTool(fixture, session, tool: other, ["lookup"] + Self.attributes)
        #expect(refused.status != 0 && !refused.output.contains("decided-secret"), "\(refused.output) \(refused.error)\n\(session.providerLog)")
        let logged = try Self.itemEntries(fixture)
        #expect(!Self.entries(logged, of: SecretServiceRoutingTests.secretTool, "trusted").isEmpty, "\(logged)")
        let denied = Self.entries(logged, of: other, "denied-by-user")
        #expect(denied.count == 1 && denied.allSatisfy { $0["provider"] as? String == fixture.program }, "\(logged)")
        #expect(Self.entries(logged, of: other, "trusted").isEmpty)
        // The service's log is the record: the provider writes none of its own.
        #expect(!session.providerLog.contains("access:"), "\(session.providerLog)")

        // app-access goes through the service: the creator is recorded there; trusting needs the password.
        let id = try #require(try Self.itemID(fixture), "\(fixture.log)")
        let listed = try fixture.run(as: fixture.alice, [fixture.program, "app-access", "list", "--item", id])
        #expect(listed.output.contains("creator: \(SecretServiceRoutingTests.secretTool)"), "\(listed.output) \(listed.error)")
        let trust = [fixture.program, "app-access", "trust", "--item", id, other]
        let wrong = try fixture.run(as: fixture.alice, trust, stdin: "guess\n")
        #expect(wrong.status == 51, "\(wrong.status) \(wrong.error)")  // errSecAuthFailed's low byte
        #expect(try Self.secretTool(fixture, session, tool: other, ["lookup"] + Self.attributes).status != 0)
        usleep(1_100_000)  // the wait after one wrong password
        let trusted = try fixture.run(as: fixture.alice, trust, stdin: Self.password + "\n")
        #expect(trusted.status == 0, "\(trusted.error) \(fixture.log)")
        let allowed = try Self.secretTool(fixture, session, tool: other, ["lookup"] + Self.attributes)
        #expect(allowed.status == 0 && allowed.output == "decided-secret", "\(allowed.output) \(allowed.error)")
        #expect(Self.entries(try Self.itemEntries(fixture), of: other, "trusted").count == 1)
    }

    @Test("forged answers are refused and logged: straight to the socket without the password, or a hostile pinentry saying Always allow")
    func forgedAnswersRefused() throws {
        let (fixture, other) = try Self.prepared()
        defer { fixture.stop() }
        let python = try RequiredTool.python3.require()
        // A program of Alice's sends an "allowed" answer and a trust change straight to the service.
        let forge = ServiceClientScripts.pythonOneRequest + #"""
            if sys.argv[1] == 'answer':
                send_request(43, {'nonce': data(os.urandom(32)), 'password': data(b'guess'), 'always': boolean(True)})
            else:
                send_request(61, {'password': data(b'guess'), 'action': string('trust'), 'item': string(sys.argv[2]),
                                  'executable': string(sys.argv[3])})
            """#
        let script = fixture.base + "/bin/forge.py"
        try fixture.write(forge, to: script, owner: nil, mode: 0o644)
        let hostile = try Self.pinentry(fixture, name: "hostile", choice: "always", password: "not-the-password")
        let session = try SecretServiceRoutingTests.Session(fixture, as: fixture.alice, provider: fixture.program,
                                                           environment: ["KEYCHAINKIT_PINENTRY": hostile.path])
        defer { session.stop() }
        try Self.storeAsCreator(fixture, session)
        let id = try #require(try Self.itemID(fixture), "\(fixture.log)")

        let answer = try fixture.run(as: fixture.alice, [python, "-I", script, "answer"])
        #expect(answer.output.trimmingCharacters(in: .whitespacesAndNewlines) == "-25293", "\(answer.output) \(answer.error)")
        let change = try fixture.run(as: fixture.alice, [python, "-I", script, "trust", id, other])
        #expect(change.output.trimmingCharacters(in: .whitespacesAndNewlines) == "-25293", "\(change.output) \(change.error)")
        let forged = try ServiceAccessLogTests.log(fixture, as: fixture.alice).entries.filter {
            $0["application"] as? String == script && $0["decision"] as? String == "denied-by-user"
        }
        #expect(forged.count == 2, "\(forged)")

        // The installed provider run with a pinentry that clicks "Always allow" and types a guess.
        usleep(1_100_000)  // the wait after the forged change's wrong password
        let refused = try Self.secretTool(fixture, session, tool: other, ["lookup"] + Self.attributes)
        #expect(refused.status != 0 && !refused.output.contains("decided-secret"), "\(refused.output) \(refused.error)")
        #expect((try String(contentsOfFile: hostile.marker, encoding: .utf8)).contains("asked"), "no prompt: \(session.providerLog)")
        let logged = try Self.itemEntries(fixture)
        #expect(Self.entries(logged, of: other, "denied-by-user").count == 1, "\(logged)")
        #expect(Self.entries(logged, of: other, "confirmed-always").isEmpty && Self.entries(logged, of: other, "trusted").isEmpty)
        let listed = try fixture.run(as: fixture.alice, [fixture.program, "app-access", "list", "--item", id])
        #expect(!listed.output.contains(other), "the forged answer put the client on the list: \(listed.output)")
    }

    @Test("the user's answer with the keychain password: once, always; a client that exits before the answer gets nothing done")
    func answeredPrompts() throws {
        let (fixture, other) = try Self.prepared()
        defer { fixture.stop() }
        let slow = try Self.pinentry(fixture, name: "slow", choice: "once", password: Self.password, delay: 2)
        let session = try SecretServiceRoutingTests.Session(fixture, as: fixture.alice, provider: fixture.program,
                                                           environment: ["KEYCHAINKIT_PINENTRY": slow.path])
        defer { session.stop() }
        try Self.storeAsCreator(fixture, session)

        // The client asks, the prompt is up, and the client exits before the user answers.
        let launched = try fixture.launch(as: fixture.alice, ["/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=\(session.busAddress)", other, "lookup"]
                                                              + Self.attributes)
        var asked = false
        for _ in 0..<200 where !asked {
            asked = ((try? String(contentsOfFile: slow.marker, encoding: .utf8)) ?? "").contains("asked")  // polled until it appears
            if !asked { usleep(50_000) }
        }
        #expect(asked, "no prompt: \(session.providerLog)\n\(fixture.log)")
        kill(launched.process.processIdentifier, SIGKILL)
        launched.process.waitUntilExit()
        // The answer (the right password, after 2 s) finds the client gone: nothing is read.
        var gone = false
        for _ in 0..<100 where !gone {
            gone = fixture.log.contains("is gone since it asked")
            if !gone { usleep(100_000) }
        }
        #expect(gone, "\(fixture.log)")
        #expect(Self.entries(try Self.itemEntries(fixture), of: other, "confirmed-once").isEmpty)

        // Asked again and still there: allowed once with the password, logged so.
        let once = try Self.secretTool(fixture, session, tool: other, ["lookup"] + Self.attributes)
        #expect(once.status == 0 && once.output == "decided-secret", "\(once.output) \(once.error)\n\(fixture.log)")
        let logged = try Self.itemEntries(fixture)
        let confirmed = Self.entries(logged, of: other, "confirmed-once")
        #expect(confirmed.count == 1 && confirmed.allSatisfy { $0["provider"] as? String == fixture.program }, "\(logged)")
    }

    @Test("Deny at the provider's prompt is logged by the service when the answer arrives, under the client")
    func denyLoggedAtOnce() throws {
        let (fixture, other) = try Self.prepared()
        defer { fixture.stop() }
        let deny = try Self.pinentry(fixture, name: "deny", choice: "deny", password: Self.password)
        let session = try SecretServiceRoutingTests.Session(fixture, as: fixture.alice, provider: fixture.program,
                                                           environment: ["KEYCHAINKIT_PINENTRY": deny.path])
        defer { session.stop() }
        try Self.storeAsCreator(fixture, session)
        let refused = try Self.secretTool(fixture, session, tool: other, ["lookup"] + Self.attributes)
        #expect(refused.status != 0 && !refused.output.contains("decided-secret"), "\(refused.output) \(refused.error)")
        #expect((try String(contentsOfFile: deny.marker, encoding: .utf8)).contains("asked"), "no prompt: \(session.providerLog)")
        // Nothing else reached the provider's connection since (no request, not closed): the
        // denial is in the log already.
        let logged = try Self.itemEntries(fixture)
        let denied = Self.entries(logged, of: other, "denied-by-user")
        #expect(denied.count == 1 && denied.allSatisfy { $0["provider"] as? String == fixture.program }, "\(logged)\n\(fixture.log)")
        #expect(Self.entries(logged, of: other, "confirmed-once").isEmpty && Self.entries(logged, of: other, "trusted").isEmpty)
    }

    @Test("Always allow with the keychain password puts the client on the item's list: no prompt next time")
    func alwaysAllow() throws {
        let (fixture, other) = try Self.prepared()
        defer { fixture.stop() }
        let always = try Self.pinentry(fixture, name: "always", choice: "always", password: Self.password)
        let session = try SecretServiceRoutingTests.Session(fixture, as: fixture.alice, provider: fixture.program,
                                                           environment: ["KEYCHAINKIT_PINENTRY": always.path])
        defer { session.stop() }
        try Self.storeAsCreator(fixture, session)
        for _ in 0..<2 {
            let read = try Self.secretTool(fixture, session, tool: other, ["lookup"] + Self.attributes)
            #expect(read.status == 0 && read.output == "decided-secret", "\(read.output) \(read.error)\n\(fixture.log)")
        }
        #expect((try String(contentsOfFile: always.marker, encoding: .utf8)).split(separator: "\n").count == 1)
        let logged = try Self.itemEntries(fixture)
        #expect(Self.entries(logged, of: other, "confirmed-always").count == 1 && Self.entries(logged, of: other, "trusted").count == 1,
                "\(logged)")
        let id = try #require(try Self.itemID(fixture))
        let listed = try fixture.run(as: fixture.alice, [fixture.program, "app-access", "list", "--item", id])
        #expect(listed.output.contains("trusted: \(other)"), "\(listed.output)")
    }
}
