import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing

/// Clients keep their connection to the service across calls, and the service identifies a caller
/// once per connection; these are the attacks on what can change while a connection stays open,
/// tried with real users against the real service: an exec over a kept connection, a tracer
/// attached between two calls, a grant revoked between two calls, a program rewritten between two
/// runs — and the client library's own reuse (threads, a fork, a restarted service). Needs root.
@Suite("Keychain service kept connections (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct KeptConnectionAttackTests {
    static let python = RequiredTool.python3.path
    static let group = "com.example.kept"

    /// A started service where the installed (root-owned) `kept.py` is granted ``group``.
    static func prepared(granting: Bool = true) throws -> (ServiceFixture, script: String) {
        try RequiredTool.python3.require()
        let fixture = try ServiceFixture()
        let script = fixture.base + "/bin/kept.py"
        try fixture.write(ServiceClientScripts.kept, to: script, owner: nil, mode: 0o755)
        if granting {
            try "executable = \(script)\naccess-groups = \(group)\n"
                .write(toFile: fixture.grantsDirectory + "/kept.grant", atomically: true, encoding: .utf8)
        }
        try fixture.start()
        return (fixture, script)
    }

    /// `kept.py` running as Alice: its pid, and a function that sends one command line and returns
    /// the reply's lines (`lines` of them).
    final class KeptClient {
        let process: Process
        let input: Pipe
        let output: Pipe
        let pid: Int32

        init(_ fixture: ServiceFixture, script: String) throws {
            (process, input, output) = try fixture.launch(as: fixture.alice, [KeptConnectionAttackTests.python, "-I", script])
            let first = String(decoding: output.fileHandleForReading.availableDataLine(), as: UTF8.self)
            guard let pid = Int32(first) else { throw FixtureFailure("kept.py did not start: \(first)") }
            self.pid = pid
        }

        func send(_ command: String, lines: Int = 1) -> [String] {
            input.fileHandleForWriting.write(Data((command + "\n").utf8))
            return (0..<lines).map { _ in String(decoding: output.fileHandleForReading.availableDataLine(), as: UTF8.self) }
        }

        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    @Test("a granted program that execs another over its kept connection: the program exec'd is refused and disconnected")
    func execOverKeptConnection() throws {
        let (fixture, script) = try Self.prepared()
        defer { fixture.stop() }
        let client = try KeptClient(fixture, script: script)
        defer { client.stop() }
        #expect(client.send("add \(Self.group) kept-secret") == ["0"], "\(fixture.log)")
        #expect(client.send("find \(Self.group)", lines: 2) == ["0", "kept-secret"])
        // The same interpreter, now running code from its command line: another program, which
        // the service would refuse a connection of its own (unverifiable, no grant).
        let exec = client.send("exec \(Self.group)")
        #expect(exec == ["-34018"] || exec == ["closed"], "\(exec)")
        #expect(fixture.log.contains("runs another program (exec) since it connected"), "\(fixture.log)")
    }

    @Test("a tracer attached between two calls: the next call is refused, and stays refused after the tracer leaves")
    func tracerBetweenCalls() throws {
        let (fixture, script) = try Self.prepared()
        defer { fixture.stop() }
        let client = try KeptClient(fixture, script: script)
        defer { client.stop() }
        #expect(client.send("add \(Self.group) kept-secret") == ["0"], "\(fixture.log)")
        #expect(client.send("find \(Self.group)", lines: 2) == ["0", "kept-secret"])
        // Alice attaches to her own process (allowed where kernel.yama.ptrace_scope is 0 or absent);
        // the tracer detaches when it exits.
        let tracer = try fixture.launch(as: fixture.alice, [Self.python, "-I", "-c", Self.tracer, String(client.pid)])
        let attached = String(decoding: tracer.output.fileHandleForReading.availableDataLine(), as: UTF8.self)
        #expect(attached == "attached" && waitForTracer(of: client.pid, attached: true), "\(attached)")
        #expect(client.send("find \(Self.group)") == ["-34018"])
        try tracer.input.fileHandleForWriting.close()
        tracer.process.waitUntilExit()
        #expect(waitForTracer(of: client.pid, attached: false), "the tracer did not detach")
        // It may have changed the program's code while attached: the connection stays unverified.
        #expect(client.send("find \(Self.group)") == ["-34018"])
        #expect(fixture.log.contains("traced"), "\(fixture.log)")
    }

    @Test("a root process that becomes another user keeps no connection: the next call is refused and disconnected")
    func setuidOverKeptConnection() throws {
        let (fixture, script) = try Self.prepared(granting: false)
        defer { fixture.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = ["-I", script]
        process.environment = ["PATH": "/usr/bin:/bin", "KEYCHAINKIT_SERVICE_SOCKET": fixture.socket]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        func send(_ command: String) -> String {
            input.fileHandleForWriting.write(Data((command + "\n").utf8))
            return String(decoding: output.fileHandleForReading.availableDataLine(), as: UTF8.self)
        }
        _ = output.fileHandleForReading.availableDataLine()  // its pid
        #expect(send("add  root-secret") == "0", "\(fixture.log)")
        #expect(send("setuid \(try fixture.uid(fixture.alice))") == "0")
        let after = send("find ")
        #expect(after == "-34018" || after == "closed", "\(after)")
        #expect(fixture.log.contains("changed its user or groups since it connected"), "\(fixture.log)")
    }

    @Test("a grant revoked between two calls on one kept connection applies to the second call")
    func revokedGrantOnKeptConnection() throws {
        let (fixture, script) = try Self.prepared(granting: false)
        defer { fixture.stop() }
        let password = "alice keychain password"
        let created = try fixture.run(as: fixture.alice, [fixture.program, "create-keychain", "-p"], stdin: password + "\n")
        #expect(created.status == 0, "\(created.error) \(fixture.log)")
        let granted = try fixture.run(as: fixture.alice, [fixture.program, "app", "grant", script, "--access-group", Self.group, "-p"],
                                      stdin: password + "\n")
        #expect(granted.status == 0, "\(granted.error) \(fixture.log)")
        let client = try KeptClient(fixture, script: script)
        defer { client.stop() }
        #expect(client.send("add \(Self.group) kept-secret") == ["0"], "\(fixture.log)")
        #expect(client.send("find \(Self.group)", lines: 2) == ["0", "kept-secret"])
        let revoked = try fixture.run(as: fixture.alice, [fixture.program, "app", "revoke", script, "-p"], stdin: password + "\n")
        #expect(revoked.status == 0, "\(revoked.error)")
        #expect(client.send("find \(Self.group)") == ["-34018"])
    }

    @Test("a user's program rewritten in place (same inode, size and mtime) or replaced is another application: the digest is never stale")
    func rewrittenProgram() throws {
        let (fixture, _) = try Self.prepared(granting: false)
        defer { fixture.stop() }
        // Alice's own copy of the one-shot client: unverifiable, so its identifier is its path
        // and the SHA-256 of its content. (In a directory the service can read: a script it
        // cannot open is identified by its interpreter alone.)
        let directory = fixture.base + "/alice-bin"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try ServiceFixture.must(["/bin/chown", "\(fixture.alice.name):\(fixture.alice.name)", directory])
        let mine = directory + "/client.py"
        let original = ServiceClientScripts.client + "# version a\n"
        try fixture.write(original, to: mine, owner: fixture.alice, mode: 0o755)
        func call(_ arguments: [String]) throws -> String {
            try fixture.run(as: fixture.alice, [Self.python, "-I", mine] + arguments).output
        }
        #expect(try call(["add", "", "version-a-secret"]) == "0\n", "\(fixture.log)")
        #expect(try call(["find", ""]) == "0\nversion-a-secret\n")
        // Rewritten in place: the same inode and size, the modification time set back (only the
        // change time, which no user can set, tells the versions apart).
        var before = stat()
        #expect(stat(mine, &before) == 0)
        let descriptor = open(mine, O_WRONLY)
        #expect(descriptor >= 0 && pwrite(descriptor, "b\n", 2, off_t(original.utf8.count - 2)) == 2)
        close(descriptor)
        #expect(try String(contentsOfFile: mine, encoding: .utf8).hasSuffix("# version b\n"))
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, mine, &times, 0) == 0)
        var after = stat()
        #expect(stat(mine, &after) == 0 && after.st_ino == before.st_ino && after.st_size == before.st_size
                && after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        // Another application: nothing of version a's in its own group, and the match in version
        // a's needs consent, which cannot be asked here.
        let rewritten = try call(["find", ""])
        #expect(rewritten == "-25308\n", "\(rewritten) \(fixture.log)")
        // Replaced by a new file (a new inode) with version a's content: version a again.
        let replacement = mine + ".new"
        try fixture.write(original, to: replacement, owner: fixture.alice, mode: 0o755)
        #expect(rename(replacement, mine) == 0)
        #expect(try call(["find", ""]) == "0\nversion-a-secret\n")
    }

    @Test("the client library keeps its connections: 8 threads at once, a forked child on its own connection, a restarted service")
    func clientLibraryReuse() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        let probe = fixture.base + "/bin/keychainkit-service-probe"
        try FileManager.default.copyItem(atPath: BuiltProducts.path("keychainkit-service-probe"), toPath: probe)
        try fixture.start()
        let (process, input, output) = try fixture.launch(as: fixture.alice, [probe, "connections"])
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        func line() -> String { String(decoding: output.fileHandleForReading.availableDataLine(), as: UTF8.self) }
        #expect(line() == "add status=0", "\(fixture.log)")
        #expect(line() == "threads failed=0")
        #expect(line() == "child exit=0 parent=true")
        #expect(line() == "waiting")
        // The service goes away (its connections with it) and comes back on the same socket path.
        if let service = fixture.service {
            kill(service.processIdentifier, SIGKILL)
            service.waitUntilExit()
        }
        unlink(fixture.socket)
        try fixture.start()
        input.fileHandleForWriting.write(Data("\n".utf8))
        #expect(line() == "after-restart true", "\(fixture.log)")
    }

    /// `python3 -c TRACER PID`: attaches to PID with `PTRACE_SEIZE` (it keeps running, traced),
    /// prints `attached`, and stays attached until its standard input closes.
    static let tracer = """
        import ctypes, sys
        libc = ctypes.CDLL(None, use_errno=True)
        libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
        if libc.ptrace(0x4206, int(sys.argv[1]), None, None) != 0:
            print('ptrace failed', ctypes.get_errno(), flush=True); sys.exit(1)
        print('attached', flush=True)
        sys.stdin.read()
        """

    /// Waits (up to 10 s) until `TracerPid` of `pid` is nonzero (`attached`) or zero.
    private func waitForTracer(of pid: Int32, attached: Bool) -> Bool {
        for _ in 0..<200 {
            if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = status.split(separator: "\n").first(where: { $0.hasPrefix("TracerPid:") }),
               (line.split(separator: "\t").last.map { $0 != "0" } ?? false) == attached {
                return true
            }
            usleep(50_000)
        }
        return false
    }
}
