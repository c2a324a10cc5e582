import Foundation
import PseudoTerminalSupport
import RequiredToolSupport
import Testing

/// The user's own grants (`keychainctl app grant|revoke|list`) and the consent prompt, tried as
/// docs/SERVICE.md's threat table says: against the real service, with real users and the real
/// keychainctl, and a hostile client of the same user that forges consent answers. Needs root.
@Suite("Keychain service grants and consent (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ConsentAndGrantTests {
    static let python = RequiredTool.python3.path
    static let password = "alice keychain password"

    /// A started service where Alice has a keychain with a password and keychainctl stored the
    /// item (`deploy`, `api`) in its own group; `consent.py` and `client.py` are installed (root-owned).
    static func prepared() throws -> (ServiceFixture, consent: String, client: String) {
        try RequiredTool.python3.require()
        let fixture = try ServiceFixture()
        let consent = fixture.base + "/bin/consent.py", client = fixture.base + "/bin/client.py"
        try fixture.write(ConsentClientScript.source, to: consent, owner: nil, mode: 0o755)
        try fixture.write(ServiceClientScripts.client, to: client, owner: nil, mode: 0o755)
        try fixture.start()
        let created = try fixture.run(as: fixture.alice, [fixture.program, "create-keychain", "-p"], stdin: password + "\n")
        #expect(created.status == 0, "\(created.error) \(fixture.log)")
        #expect(try ServiceIsolationTests.add(fixture, as: fixture.alice, secret: "api-secret").status == 0, "\(fixture.log)")
        return (fixture, consent, client)
    }

    @Test("a forged consent answer reads nothing: no prompt → -25308, wrong password, a used nonce, another connection, another item; answers are rate-limited")
    func forgedAnswers() throws {
        let (fixture, consent, _) = try Self.prepared()
        defer { fixture.stop() }
        func consentClient(_ arguments: [String]) throws -> [String] {
            let run = try fixture.run(as: fixture.alice, [Self.python, "-I", consent] + arguments)
            #expect(run.status == 0, "\(run.error)")
            return run.output.split(separator: "\n").map(String.init)
        }
        func statuses(_ lines: [String]) -> [String] { lines.filter { $0.hasPrefix("status ") } }
        // A client that cannot ask its user (a library caller) is refused, not shown the secret.
        #expect(try consentClient(["noprompt", "api"]) == ["status -25308"])
        // Wrong password, then the right one with the same (used) nonce: nothing read.
        let twice = try consentClient(["twice", "api", "guess", Self.password])
        #expect(statuses(twice) == ["status -25315", "status -25293", "status -25293"], "\(twice)")
        #expect(!twice.contains { $0.contains("api-secret") })
        // The prompt the service composed names the program, its parents and the item.
        let prompt = twice.filter { $0.hasPrefix("prompt: ") }.joined(separator: "\n")
        #expect(prompt.contains(consent) && prompt.contains("Started by:") && prompt.contains("service \"api\"")
                && prompt.contains("account \"deploy\"") && prompt.contains(fixture.program), "\(prompt)")
        // Answers are rate-limited: right after a wrong one, even the right password is refused.
        let retry = try consentClient(["retry", "api", "guess", Self.password])
        #expect(statuses(retry) == ["status -25315", "status -25293", "status -25315", "status -25293"], "\(retry)")
        #expect(fixture.log.contains("too many wrong keychain passwords"), "\(fixture.log)")
        usleep(2_100_000)  // the delay after two wrong answers in a row (1 s, then 2 s)
        // The nonce replayed on another connection, or after asking for another item: refused.
        let elsewhere = try consentClient(["elsewhere", "api", Self.password])
        #expect(statuses(elsewhere) == ["status -25315", "status -25293"], "\(elsewhere)")
        let switched = try consentClient(["switch", "api", "other", Self.password])
        #expect(statuses(switched) == ["status -25315", "status -25300", "status -25293"], "\(switched)")
        // The real answer on its own connection reads the item the prompt named.
        let allowed = try consentClient(["answer", "api", Self.password])
        #expect(statuses(allowed) == ["status -25315", "status 0"] && allowed.contains("data api-secret"), "\(allowed)")
    }

    @Test("keychainctl reading another application's item: without a terminal exit 36; on a terminal the prompt, Always allow, then no prompt; revoke stops it")
    func promptOnTerminal() throws {
        let (fixture, _, client) = try Self.prepared()
        defer { fixture.stop() }
        // The item belongs to the installed script client.py (its own group).
        let stored = try fixture.run(as: fixture.alice, [Self.python, "-I", client, "add", "", "script-secret"])
        #expect(stored.output == "0\n", "\(stored.output) \(stored.error) \(fixture.log)")
        let read = [fixture.program, "find-generic-password", "-a", "deploy", "-s", "script", "-w"]
        let refused = try fixture.run(as: fixture.alice, read)
        #expect(refused.status == 36 && !refused.output.contains("script-secret"), "\(refused.status) \(refused.output) \(refused.error)")
        #expect(refused.error.contains("consent"), "\(refused.error)")

        let terminal = try PseudoTerminal()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(fixture.alice.name)", "--regid=\(fixture.alice.name)", "--init-groups", "--",
                             "/usr/bin/setsid", "-w", "-c"] + read
        process.environment = ["HOME": fixture.alice.home, "PATH": "/usr/bin:/bin", "KEYCHAINKIT_SERVICE_SOCKET": fixture.socket]
        process.currentDirectoryURL = URL(fileURLWithPath: fixture.alice.home)
        let output = Pipe(), errors = Pipe()
        process.standardInput = FileHandle(forUpdatingAtPath: terminal.devicePath)
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        #expect(terminal.answer(after: "[a]lways allow", with: "a\n"), "no prompt: \(terminal.text) \(fixture.log)")
        #expect(terminal.answer(after: "Keychain password: ", with: Self.password + "\n"))
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && printed == "script-secret\n",
                "\(process.terminationStatus) \(printed) \(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        #expect(terminal.text.contains(fixture.program) && terminal.text.contains(client) && terminal.text.contains("Started by:"),
                "\(terminal.text)")
        #expect(!terminal.text.contains(Self.password), "the password was echoed")
        // "Always allow" recorded a grant: no terminal needed any more.
        let again = try fixture.run(as: fixture.alice, read)
        #expect(again.status == 0 && again.output == "script-secret\n", "\(again.status) \(again.error)")
        let listed = try fixture.run(as: fixture.alice, [fixture.program, "app", "list"])
        #expect(listed.output.contains(fixture.program) && listed.output.contains(client), "\(listed.output) \(listed.error)")
        // Revoked, it stops at the next call.
        let revoked = try fixture.run(as: fixture.alice, [fixture.program, "app", "revoke", fixture.program, "-p"], stdin: Self.password + "\n")
        #expect(revoked.status == 0, "\(revoked.error)")
        #expect(try fixture.run(as: fixture.alice, read).status == 36)
    }

    @Test("app grant: the keychain password is checked by the service (wrong: -25293, nothing stored), * is refused, another uid sees nothing, revoke stops access at once")
    func userGrants() throws {
        let (fixture, _, client) = try Self.prepared()
        defer { fixture.stop() }
        func claim(_ user: ServiceFixture.User) throws -> String {
            try fixture.run(as: user, [Self.python, "-I", client, "add", "com.example.shared", "shared-secret"]).output
        }
        #expect(try claim(fixture.alice) == "-34018\n")
        let grant = [fixture.program, "app", "grant", client, "--access-group", "com.example.shared", "-p"]
        let wrong = try fixture.run(as: fixture.alice, grant, stdin: "guess\n")
        #expect(wrong.status == 51, "\(wrong.status) \(wrong.error)")  // errSecAuthFailed's low byte
        #expect(try fixture.run(as: fixture.alice, [fixture.program, "app", "list"]).output == "")
        #expect(try claim(fixture.alice) == "-34018\n")
        usleep(1_100_000)  // the delay after one wrong password
        let everything = try fixture.run(as: fixture.alice, [fixture.program, "app", "grant", client, "--access-group", "*", "-p"],
                                         stdin: Self.password + "\n")
        #expect(everything.status != 0 && everything.error.contains("cannot be granted"), "\(everything.status) \(everything.error)")
        let granted = try fixture.run(as: fixture.alice, grant, stdin: Self.password + "\n")
        #expect(granted.status == 0, "\(granted.error) \(fixture.log)")
        #expect(try fixture.run(as: fixture.alice, [fixture.program, "app", "list"]).output
                == "\(client)  access-groups com.example.shared\n")
        #expect(try claim(fixture.alice) == "0\n")
        // Bob's calls never see Alice's grants.
        #expect(try fixture.run(as: fixture.bob, [fixture.program, "app", "list"]).output == "")
        #expect(try claim(fixture.bob) == "-34018\n")
        // The grants file is the service's: Alice can neither read nor write it.
        let aliceUID = try fixture.uid(fixture.alice)
        let file = fixture.stateDirectory + "/\(aliceUID)/grants.json"
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_uid != aliceUID)
        let revoked = try fixture.run(as: fixture.alice, [fixture.program, "app", "revoke", client, "-p"], stdin: Self.password + "\n")
        #expect(revoked.status == 0, "\(revoked.error)")
        #expect(try claim(fixture.alice) == "-34018\n")
    }
}
