import Foundation
import PseudoTerminalSupport
import RequiredToolSupport
import Testing

/// Access control that asks for the user (`.devicePasscode`, `.userPresence`,
/// `.applicationPassword`) through the real keychain service, under real users: the service
/// stores the flags, evaluates them when a secret is read and verifies the keychain password
/// itself; a hostile program of the same user that skips the prompt, guesses, or replays an
/// answer reads nothing. Needs root (it creates users).
@Suite("Keychain service access control that asks for the user (real users)", .integration, .tags(.external, .pinentry), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServedAccessControlTests {
    static let python = RequiredTool.python3.path
    static let password = "alice keychain password"

    /// A started service where Alice has a keychain with a password and the probe stored its
    /// guarded passwords (`asking`), with the probe's transcript.
    static func prepared() throws -> (ServiceFixture, probe: String, transcript: String) {
        let fixture = try ServiceFixture()
        try fixture.start()
        let probe = try ServedIdentityTests.probe(fixture)
        let created = try fixture.run(as: fixture.alice, [fixture.program, "create-keychain", "-p"], stdin: password + "\n")
        #expect(created.status == 0, "\(created.error) \(fixture.log)")
        let served = try fixture.run(as: fixture.alice, [probe, "asking"])
        #expect(served.status == 0, "\(served.error)")
        return (fixture, probe, served.output)
    }

    @Test("guarded items are stored through the service and give the embedded mode's results wherever no prompt is needed; biometry is refused with -4")
    func withoutPrompt() throws {
        let (fixture, probe, served) = try Self.prepared()
        defer { fixture.stop() }
        let passwordFile = fixture.bob.home + "/keychain-password"
        try fixture.write(Self.password, to: passwordFile, owner: fixture.bob, mode: 0o600)
        let embedded = try fixture.run(as: fixture.bob, ["/usr/bin/env", "-u", "KEYCHAINKIT_SERVICE_SOCKET", probe, "asking"],
                                       environment: ["KEYCHAINKIT_PASSWORD_FILE": passwordFile])
        #expect(embedded.status == 0, "\(embedded.error)")
        #expect(FileManager.default.fileExists(atPath: fixture.bob.home + "/.local/share/keychainkit/login.keychain-db"), "not embedded")
        #expect(!FileManager.default.fileExists(atPath: fixture.alice.home + "/.local/share/keychainkit/login.keychain-db"), "not served")
        for line in ["add-passcode status=0", "add-presence status=0", "add-app-password status=0", "add-app-password-no-prompt status=-25308",
                     "attributes-passcode status=0 accc=true", "read-passcode-no-prompt status=-25308 data=none",
                     "read-passcode-ui-fail status=-25308", "read-passcode-ui-skip status=-25300",
                     "read-passcode-context-no-interaction status=-25308", "read-app-right status=0 data=secret-app",
                     "read-app-wrong status=-25293 data=none", "read-app-no-prompt status=-25308", "read-app-invalidated status=-25293",
                     "delete-passcode status=0"] {
            #expect(embedded.output.contains(line), "embedded: \(line)\n\(embedded.output)")
        }
        // Biometry is the one difference: the service refuses it, naming the flag.
        #expect(served.contains("add-biometry status=-4"), "\(served)")
        func withoutBiometry(_ transcript: String) -> String {
            transcript.split(separator: "\n").filter { !$0.hasPrefix("add-biometry ") }.joined(separator: "\n")
        }
        #expect(withoutBiometry(served) == withoutBiometry(embedded.output), "service:\n\(served)\nembedded:\n\(embedded.output)\n\(fixture.log)")
    }

    /// Runs the probe's `asking-read ACCOUNT` as Alice with pinentry-tty on `terminal`; `typing`
    /// answers its prompts. Returns the probe's line.
    static func readWithPrompt(_ fixture: ServiceFixture, probe: String, account: String, terminal: PseudoTerminal, command: String = "asking-read",
                               typing: @escaping @Sendable () -> Bool) throws -> (line: String, typed: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(fixture.alice.name)", "--regid=\(fixture.alice.name)", "--init-groups", "--",
                             "/usr/bin/setsid", "-w", probe, command, account]
        process.environment = ["HOME": fixture.alice.home, "PATH": "/usr/bin:/bin", "KEYCHAINKIT_SERVICE_SOCKET": fixture.socket,
                               "KEYCHAINKIT_PINENTRY": RequiredTool.pinentryTTY.path, "KEYCHAINKIT_PINENTRY_TTY": terminal.devicePath,
                               "TERM": "xterm"]
        process.currentDirectoryURL = URL(fileURLWithPath: fixture.alice.home)
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let typed = typing()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (printed.trimmingCharacters(in: .whitespacesAndNewlines), typed)
    }

    @Test("reading a guarded secret asks for the keychain password in pinentry and the service verifies it: right → the secret, cancel → -128, three wrong → -25293; an application password opens its item; a context is reused; an update asks too")
    func withPrompt() throws {
        try RequiredTool.pinentryTTY.require()
        let (fixture, probe, _) = try Self.prepared()
        defer { fixture.stop() }
        let terminal = try PseudoTerminal()
        #expect(chown(terminal.devicePath, try fixture.uid(fixture.alice), gid_t.max) == 0)

        let right = try Self.readWithPrompt(fixture, probe: probe, account: "presence", terminal: terminal) {
            terminal.answer(after: "Password:", with: Self.password + "\r")
        }
        #expect(right.typed && right.line == "read status=0 data=secret-presence", "\(right.line)\n\(terminal.text)\n\(fixture.log)")
        #expect(terminal.text.contains("Probe reads presence"), "the context's reason is shown: \(terminal.text)")
        #expect(!terminal.text.contains(Self.password), "the password was echoed")

        let application = try Self.readWithPrompt(fixture, probe: probe, account: "app", terminal: terminal) {
            terminal.answer(after: "Password:", occurrence: 2, with: "app-password\r")
        }
        #expect(application.typed && application.line == "read status=0 data=secret-app", "\(application.line)\n\(terminal.text)")

        let cancelled = try Self.readWithPrompt(fixture, probe: probe, account: "presence", terminal: terminal) {
            terminal.answer(after: "Password:", occurrence: 3, with: "\u{04}")
        }
        #expect(cancelled.typed && cancelled.line == "read status=-128 data=none", "\(cancelled.line)\n\(terminal.text)")

        // A context that authenticated through the service reads again without a prompt, until invalidated.
        let reused = try Self.readWithPrompt(fixture, probe: probe, account: "presence", terminal: terminal, command: "asking-reuse") {
            terminal.answer(after: "Password:", occurrence: 4, with: Self.password + "\r")
        }
        #expect(reused.typed && reused.line == "first status=0 data=secret-presence\nsecond status=0 data=secret-presence\n"
                + "invalidated status=-25293 data=none", "\(reused.line)\n\(terminal.text)")
        #expect(terminal.text.components(separatedBy: "Password:").count - 1 == 4, "one prompt for two reads: \(terminal.text)")

        // An update of a guarded item needs its constraint first, as in the embedded mode: asked the same way.
        let updated = try Self.readWithPrompt(fixture, probe: probe, account: "presence", terminal: terminal, command: "asking-update") {
            terminal.answer(after: "Password:", occurrence: 5, with: Self.password + "\r")
        }
        #expect(updated.typed && updated.line == "update status=0\nlabel status=0 label=relabelled", "\(updated.line)\n\(terminal.text)")

        let wrong = try Self.readWithPrompt(fixture, probe: probe, account: "presence", terminal: terminal) {
            (1...3).allSatisfy { attempt in terminal.answer(after: "Password:", occurrence: 5 + attempt, with: "nope\r") }
        }
        #expect(wrong.typed && wrong.line == "read status=-25293 data=none", "\(wrong.line)\n\(terminal.text)\n\(fixture.log)")
        #expect(terminal.text.contains("Wrong password, try again."), "\(terminal.text)")
    }

    @Test("a same-uid program without the password reads no guarded secret: asking directly, a forged or replayed answer, wrong guesses, the keychain password for an application password")
    func attacks() throws {
        try RequiredTool.python3.require()
        let (fixture, _, _) = try Self.prepared()
        defer { fixture.stop() }
        let script = fixture.base + "/bin/auth.py"
        try fixture.write(AuthenticationClientScript.source, to: script, owner: nil, mode: 0o755)
        func client(_ arguments: [String], as user: ServiceFixture.User? = nil) throws -> [String] {
            let run = try fixture.run(as: user ?? fixture.alice, [Self.python, "-I", script] + arguments)
            #expect(run.status == 0, "\(run.error)")
            #expect(!run.output.contains("secret-") || ["answer", "twice", "proof"].contains(arguments.first ?? ""), "\(run.output)")
            return run.output.split(separator: "\n").map(String.init)
        }
        #expect(try client(["setup", "-"]) == ["add presence status 0", "add app status 0"])
        // Asking for the secret without saying it can prompt: refused, as with no prompt program.
        #expect(try client(["direct", "presence"]) == ["status -25308"])
        #expect(try client(["direct", "app"]) == ["status -25308"])
        // An answer to a challenge never given.
        #expect(try client(["forged", "presence", Self.password]) == ["status -25293"])
        // The challenge's nonce on another connection, or after another request on its own: refused.
        #expect(try client(["elsewhere", "presence", Self.password]) == ["status -25315", "needs true false", "status -25293"])
        #expect(try client(["switch", "presence", "app", Self.password]) == ["status -25315", "needs true false", "status -25308", "status -25293"])
        // The keychain password does not open an application password's seal.
        #expect(try client(["answer", "app", Self.password, Self.password]) == ["status -25315", "needs false true", "status -25293"])
        #expect(try client(["answer", "app", Self.password]) == ["status -25315", "needs false true", "status -25293"])
        // The real answer reads the item once; the same nonce again reads nothing.
        #expect(try client(["twice", "presence", Self.password]) == ["status -25315", "needs true false", "status 0", "data secret-presence",
                                                                     "status -25293"])
        // Bob's connection cannot answer for Alice, nor read her item.
        #expect(try client(["direct", "presence"], as: fixture.bob) == ["status -25300"])
        // The proof the service gives a context holds only for the process that answered: another
        // connection of that process reads without a new password; a forked child, or a made-up token, is asked again.
        #expect(try client(["proof", "presence", Self.password]) == ["status -25315", "needs true false", "status 0", "data secret-presence",
                                                                     "same process status 0", "data secret-presence",
                                                                     "child status -25315", "needs true false",
                                                                     "made up status -25315", "needs true false"])
        // Wrong guesses: asked again twice, then -25293; the service counts them toward its wait.
        let guesses = try client(["wrong", "presence", "guess1", "guess2", "guess3"])
        #expect(guesses == ["status -25315", "needs true false", "status -25315", "needs true false", "status -25315", "needs true false",
                            "status -25293"], "\(guesses)")
    }
}
