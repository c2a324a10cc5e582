import Foundation
import RequiredToolSupport
import Testing

/// `keychainctl exec`: secrets handed to real child programs through their environment only.
@Suite("keychainctl exec", .integration, .tags(.external, .python))
struct ExecCommandTests {
    private let secret = "s3cret value with spaces"

    private func addGeneric(_ sandbox: ToolSandbox, service: String, account: String, secret: String, keychain: [String] = []) throws {
        let add = try sandbox.keychainctl(["add-generic-password", "-a", account, "-s", service] + keychain + ["-w"], stdin: secret + "\n")
        #expect(add.status == 0, "\(add.stderr)")
    }

    @Test("env sees the secret in its environment; keychainctl prints nothing of it")
    func environmentOnly() throws {
        try withSandbox { (sandbox) throws in
            try addGeneric(sandbox, service: "api", account: "alice", secret: secret)
            let run = try sandbox.keychainctl(["exec", "--env", "API_TOKEN=api/alice", "--env", "SHORT=api", "--", "env"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("API_TOKEN=\(secret)"))
            #expect(lines.contains("SHORT=\(secret)"))
            #expect(run.stderr.isEmpty)
            // A variable of the same name in keychainctl's environment is replaced, not doubled.
            let replaced = try sandbox.keychainctl(["exec", "--env", "API_TOKEN=api", "--", "env"], environment: ["API_TOKEN": "old"])
            #expect(replaced.stdout.split(separator: "\n").filter { $0.hasPrefix("API_TOKEN=") } == ["API_TOKEN=\(secret)"])
        }
    }

    @Test("the program does not get KEYCHAINKIT_PASSWORD_FILE or KEYCHAINKIT_ETCD_PASSWORD unless --keep-unlock-variables; it cannot read another item through them")
    func unlockVariablesWithheld() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("locked.keychain-db", password: "kc-password")
            let passwordFile = sandbox.directory + "/kc-password"
            #expect(FileManager.default.createFile(atPath: passwordFile, contents: Data("kc-password\n".utf8), attributes: [.posixPermissions: 0o600]))
            try addGeneric(sandbox, service: "given", account: "a", secret: "given-secret", keychain: [path])
            try addGeneric(sandbox, service: "other", account: "a", secret: "other-secret", keychain: [path])
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            let environment = ["KEYCHAINKIT_PASSWORD_FILE": passwordFile, "KEYCHAINKIT_ETCD_PASSWORD": "etcd-secret",
                               "KEYCHAINKIT_SESSION_KEYRING": "off"]
            // The child is itself keychainctl, trying to read the item it was not given.
            let child = ["--", sandbox.tool("keychainctl"), "find-generic-password", "-s", "other", "-w", path]
            let run = try sandbox.keychainctl(["exec", "--keychain", path, "--env", "GIVEN=given", "--", "env"], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("GIVEN=given-secret"))
            #expect(!lines.contains { $0.hasPrefix("KEYCHAINKIT_PASSWORD_FILE=") || $0.hasPrefix("KEYCHAINKIT_ETCD_PASSWORD=") }, "\(lines)")
            #expect(lines.contains("KEYCHAINKIT_SESSION_KEYRING=off"), "the rest of the environment is kept")
            let reader = try sandbox.keychainctl(["exec", "--keychain", path, "--env", "GIVEN=given"] + child, environment: environment)
            #expect(reader.status == 36, "the child cannot unlock: \(reader.stderr)")
            #expect(!reader.stdout.contains("other-secret"))

            let kept = try sandbox.keychainctl(["exec", "--keychain", path, "--env", "GIVEN=given", "--keep-unlock-variables", "--", "env"],
                                               environment: environment)
            let keptLines = kept.stdout.split(separator: "\n").map(String.init)
            #expect(keptLines.contains("KEYCHAINKIT_PASSWORD_FILE=\(passwordFile)") && keptLines.contains("KEYCHAINKIT_ETCD_PASSWORD=etcd-secret"))
            let keptReader = try sandbox.keychainctl(["exec", "--keychain", path, "--env", "GIVEN=given", "--keep-unlock-variables"] + child,
                                                     environment: environment)
            #expect(keptReader.stdout == "other-secret\n", "asked for: \(keptReader.stderr)")
        }
    }

    @Test("the running program has the secret in /proc/<pid>/environ, not in its cmdline, and no keychain descriptor")
    func notInArgv() throws {
        try withSandbox { (sandbox) throws in
            try addGeneric(sandbox, service: "db", account: "app", secret: secret)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: sandbox.tool("keychainctl"))
            process.arguments = ["exec", "--env", "DB_PASSWORD=db/app", "--", "sleep", "30"]
            process.environment = sandbox.environment
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) }; process.waitUntilExit() }
            let pid = process.processIdentifier
            // Wait until keychainctl has become sleep (same pid: execve, no intermediate process).
            var cmdline = Data()
            for _ in 0..<1000 {
                cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
                if cmdline.starts(with: Data("sleep\0".utf8)) { break }
                usleep(10_000)
            }
            #expect(cmdline == Data("sleep\u{0}30\u{0}".utf8), "the program runs in keychainctl's process")
            #expect(cmdline.range(of: Data(secret.utf8)) == nil)
            let environ = try #require(FileManager.default.contents(atPath: "/proc/\(pid)/environ"))
            #expect(environ.split(separator: 0).contains(Data("DB_PASSWORD=\(secret)".utf8)))
            // No descriptor of the keychain file survives into the program (it could read the file).
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
            let targets = descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }  // a descriptor may close meanwhile
            #expect(!targets.contains { $0.contains("keychain") }, "\(targets)")
            // A signal to that process reaches the program itself: it dies of it.
            kill(pid, SIGTERM)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(process.terminationStatus == SIGTERM)
        }
    }

    @Test("a script that prints only a SHA-256 of its variable sees exactly the stored bytes")
    func hashOfVariable() throws {
        try withSandbox { (sandbox) throws in
            try addGeneric(sandbox, service: "signing", account: "ci", secret: secret)
            let script = sandbox.directory + "/hash.sh"
            try "#!/bin/sh\nprintf '%s' \"$SIGNING_KEY\" | sha256sum | cut -d' ' -f1\n".write(toFile: script, atomically: true, encoding: .utf8)
            chmod(script, 0o700)
            let run = try sandbox.keychainctl(["exec", "--env", "SIGNING_KEY=signing/ci", "--", script])
            #expect(run.status == 0, "\(run.stderr)")
            let expected = try sandbox.run("/usr/bin/sha256sum", [], stdin: secret)
            #expect(run.stdout == String(expected.stdout.prefix(64)) + "\n")
            #expect(!run.stdout.contains(secret))
        }
    }

    @Test("exit statuses pass through; a program killed by a signal shows as 128+n, as a shell reports it")
    func exitStatusAndSignals() throws {
        try withSandbox { (sandbox) throws in
            try addGeneric(sandbox, service: "s", account: "a", secret: "x")
            #expect(try sandbox.keychainctl(["exec", "--env", "X=s", "--", "sh", "-c", "exit 7"]).status == 7)
            #expect(try sandbox.keychainctl(["exec", "--env", "X=s", "--", "true"]).status == 0)
            #expect(try sandbox.keychainctl(["exec", "--env", "X=s", "--", "sh", "-c", "kill -TERM $$"]).status == 128 + SIGTERM)
            #expect(try sandbox.keychainctl(["exec", "--env", "X=s", "--", "sh", "-c", "kill -INT $$"]).status == 128 + SIGINT)
            let missingProgram = try sandbox.keychainctl(["exec", "--env", "X=s", "--", "no-such-program-here"])
            #expect(missingProgram.status == 127)
            #expect(missingProgram.stderr == "keychainctl: exec: no-such-program-here: command not found\n")
        }
    }

    @Test("internet passwords: internet:https://host finds the item at exactly that place; service/account falls back to a server")
    func internetItems() throws {
        try withSandbox { (sandbox) throws in
            #expect(try sandbox.keychainctl(["add-internet-password", "-s", "github.com", "-r", "htps", "-a", "octo", "-w"], stdin: "ghp_token\n").status == 0)
            #expect(try sandbox.keychainctl(["add-internet-password", "-s", "reg.example", "-P", "5000", "-r", "htps", "-a", "u", "-p", "v2", "-w"],
                                            stdin: "regpw\n").status == 0)
            let run = try sandbox.keychainctl(["exec", "--env", "GH_TOKEN=internet:https://github.com", "--env", "BY_USER=internet:https://octo@github.com",
                                               "--env", "REG=internet:https://reg.example:5000/v2", "--env", "SERVER=github.com/octo", "--", "env"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = Set(run.stdout.split(separator: "\n").map(String.init))
            #expect(lines.isSuperset(of: ["GH_TOKEN=ghp_token", "BY_USER=ghp_token", "REG=regpw", "SERVER=ghp_token"]))
            // Another port, another path or another user is another item.
            for other in ["internet:https://github.com:8443", "internet:https://reg.example:5000", "internet:https://someone@github.com",
                          "internet:http://github.com"] {
                let miss = try sandbox.keychainctl(["exec", "--env", "X=\(other)", "--", "true"])
                #expect(miss.status == 44, "\(other): \(miss.stderr)")
            }
        }
    }

    @Test("a missing item fails before the program starts (44); --allow-missing leaves the variable unset")
    func missingItems() throws {
        try withSandbox { (sandbox) throws in
            try addGeneric(sandbox, service: "present", account: "a", secret: "here")
            let marker = sandbox.directory + "/started"
            let failed = try sandbox.keychainctl(["exec", "--env", "A=present", "--env", "B=absent/acct", "--", "touch", marker])
            #expect(failed.status == 44)
            #expect(failed.stderr.contains("B=absent/acct"))
            #expect(!failed.stderr.contains("here"))
            #expect(!FileManager.default.fileExists(atPath: marker), "the program must not have run")

            let allowed = try sandbox.keychainctl(["exec", "--allow-missing", "--env", "A=present", "--env", "B=absent", "--",
                                                   "sh", "-c", "test -z \"${B+set}\" && test \"$A\" = here && touch \(marker)"])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(allowed.stderr.contains("warning: no item for B=absent"))
            #expect(FileManager.default.fileExists(atPath: marker))
        }
    }

    @Test("two items under one service: ambiguous (45) until the account is named")
    func ambiguousItems() throws {
        try withSandbox { (sandbox) throws in
            try addGeneric(sandbox, service: "shared", account: "one", secret: "1")
            try addGeneric(sandbox, service: "shared", account: "two", secret: "2")
            let ambiguous = try sandbox.keychainctl(["exec", "--env", "X=shared", "--", "true"])
            #expect(ambiguous.status == 45)
            #expect(ambiguous.stderr.contains("names 2 items"))
            #expect(try sandbox.keychainctl(["exec", "--env", "X=shared/two", "--", "sh", "-c", "test \"$X\" = 2"]).status == 0)
        }
    }

    @Test("--env-file: NAME=item lines with comments; a name given twice and a bad name are errors")
    func envFile() throws {
        try withSandbox { (sandbox) throws in
            try addGeneric(sandbox, service: "app", account: "key", secret: "k1")
            let file = sandbox.directory + "/secrets.map"
            try "# which secrets the app gets\nAPP_KEY=app/key\n\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try sandbox.keychainctl(["exec", "--env-file", file, "--", "sh", "-c", "test \"$APP_KEY\" = k1"]).status == 0)
            let twice = try sandbox.keychainctl(["exec", "--env-file", file, "--env", "APP_KEY=app", "--", "true"])
            #expect(twice.status == 1)
            #expect(twice.stderr.contains("APP_KEY is given twice"))
            let badName = try sandbox.keychainctl(["exec", "--env", "1X=app", "--", "true"])
            #expect(badName.status == 1)
        }
    }

    @Test("a locked keychain without a terminal fails at once (36) and the program never starts")
    func lockedKeychain() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("locked.keychain-db", password: "pw")
            try addGeneric(sandbox, service: "svc", account: "a", secret: "v", keychain: [path])
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            let marker = sandbox.directory + "/started"
            let run = try sandbox.run(sandbox.tool("keychainctl"), ["exec", "--keychain", path, "--env", "V=svc", "--", "touch", marker], timeout: 10)
            #expect(!run.timedOut)
            #expect(run.status == 36)
            #expect(!FileManager.default.fileExists(atPath: marker))
            // A password file (headless unlock) opens it.
            let passwordFile = sandbox.directory + "/pw"
            try "pw\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
            chmod(passwordFile, 0o600)
            let unlocked = try sandbox.keychainctl(["exec", "--keychain", path, "--env", "V=svc", "--", "sh", "-c", "test \"$V\" = v"],
                                                   environment: ["KEYCHAINKIT_PASSWORD_FILE": passwordFile])
            #expect(unlocked.status == 0, "\(unlocked.stderr)")
        }
    }
}

extension ExecCommandTests {
    @Test("a signal mask keychainctl inherits does not reach the program: SIGTERM still ends it")
    func blockedMaskIsCleared() throws {
        try withSandbox { (sandbox) throws in
            try addGeneric(sandbox, service: "s", account: "a", secret: "x")
            // keychainctl started with SIGTERM blocked (python3 blocks it, then execs keychainctl).
            let launcher = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM}); os.execv(sys.argv[1], sys.argv[1:])"
            let blocked = try sandbox.run("/usr/bin/python3", ["-c", launcher, "/bin/grep", "SigBlk", "/proc/self/status"])
            let blockedMask = UInt64(blocked.stdout.dropFirst("SigBlk:\t".count).prefix(16), radix: 16) ?? 0
            #expect(blockedMask & (1 << (UInt64(SIGTERM) - 1)) != 0, "the launcher blocks SIGTERM")
            let seen = try sandbox.run("/usr/bin/python3", ["-c", launcher, sandbox.tool("keychainctl"), "exec", "--env", "X=s", "--",
                                                            "grep", "SigBlk", "/proc/self/status"])
            #expect(seen.stdout == "SigBlk:\t0000000000000000\n")
            let killed = try sandbox.run("/usr/bin/python3", ["-c", launcher, sandbox.tool("keychainctl"), "exec", "--env", "X=s", "--",
                                                              "sh", "-c", "kill -TERM $$; sleep 5"])
            #expect(killed.status == 128 + SIGTERM)
        }
    }
}

extension ExecCommandTests {
    @Test("a locked keychain at a terminal: exec asks for the password once for all its items, then runs the program")
    func lockedKeychainPromptsOnce() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("tty.keychain-db", password: "pw")
            try addGeneric(sandbox, service: "first", account: "a", secret: "one", keychain: [path])
            try addGeneric(sandbox, service: "second", account: "a", secret: "two", keychain: [path])
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            let session = try sandbox.keychainctlOnTerminal(["exec", "--keychain", path, "--env", "A=first", "--env", "B=second", "--",
                                                             "sh", "-c", "echo \"got $A-$B\""])
            #expect(session.type("pw\n", after: "password to unlock \"\(path)\": "))
            #expect(session.waitForExit() == 0)
            #expect(session.text.contains("got one-two"))
            #expect(session.text.components(separatedBy: "password to unlock").count == 2, "asked exactly once: \(session.text)")
        }
    }
}

extension ExecCommandTests {
    @Test("a secret with a NUL byte cannot be an environment variable: refused before the program starts, not cut short")
    func nulByteRefused() throws {
        try withSandbox { (sandbox) throws in
            try addGeneric(sandbox, service: "binary", account: "a", secret: "before\u{0}after")
            #expect(try sandbox.keychainctl(["find-generic-password", "-s", "binary", "-w"]).stdout.hasPrefix("before"), "stored as typed")
            let marker = sandbox.directory + "/started"
            let run = try sandbox.keychainctl(["exec", "--env", "B=binary", "--", "touch", marker])
            #expect(run.status == 1)
            #expect(run.stderr.contains("contains a NUL byte"))
            #expect(!run.stderr.contains("before") && !run.stderr.contains("after"))
            #expect(!FileManager.default.fileExists(atPath: marker))
        }
    }
}
