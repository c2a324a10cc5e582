import Foundation
import RequiredToolSupport
import Testing

/// The caller-identity rows of docs/SERVICE.md's threat table, tried as an attacker would with
/// real users: code slipped into a granted program (`LD_PRELOAD`), a script under a granted
/// interpreter, a user's copy of a granted script, and a flood of connections. Needs root.
@Suite("Keychain service caller identity (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct CallerIdentityAttackTests {
    static let python = RequiredTool.python3.path

    @Test("a library the user can write, LD_PRELOADed into a granted program, costs the program its grant and its items")
    func preloadedLibrary() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try "executable = \(fixture.program)\naccess-groups = com.example.shared\n"
            .write(toFile: fixture.grantsDirectory + "/shared.grant", atomically: true, encoding: .utf8)
        try fixture.start()
        let shared = ["KEYCHAINKIT_ACCESS_GROUPS": "com.example.shared"]
        #expect(try ServiceIsolationTests.add(fixture, as: fixture.alice, secret: "shared-secret", environment: shared).status == 0, "\(fixture.log)")
        #expect(try ServiceIsolationTests.add(fixture, as: fixture.alice, secret: "own-secret").status == 0)
        // Alice builds a library of her own (a real shared object, gcc) and preloads it.
        let source = fixture.alice.home + "/evil.c", library = fixture.alice.home + "/evil.so"
        try fixture.write("__attribute__((constructor)) static void evil(void) {}\n", to: source, owner: fixture.alice, mode: 0o644)
        let compiled = try fixture.run(as: fixture.alice, [try RequiredTool.cc.require(), "-shared", "-fPIC", "-o", library, source])
        #expect(compiled.status == 0, "\(compiled.error)")
        let preload = ["LD_PRELOAD": library]
        let claimed = try ServiceIsolationTests.find(fixture, as: fixture.alice, environment: shared.merging(preload) { $1 })
        #expect(claimed.status != 0 && claimed.isMissingEntitlement && !claimed.output.contains("shared-secret"),
                "\(claimed.status) \(claimed.output) \(claimed.error)")
        // Without a claim it is another, unverified application: the program's own item is not its
        // (reading it would need the user's consent, which cannot be asked without a terminal).
        let own = try ServiceIsolationTests.find(fixture, as: fixture.alice, environment: preload)
        #expect(own.status == 36 && !own.output.contains("own-secret"), "\(own.status) \(own.output) \(own.error)")
        // The service names the library (it is writable by Alice, or in her private home where it
        // cannot even look: unverifiable either way).
        #expect(fixture.log.contains("(unverifiable: mapped code") && fixture.log.contains(library), "\(fixture.log)")
        // The same program without the library keeps both.
        // (Without a claim its search spans its own and its granted group, which hold one item each
        // under the same account and service, so which one comes first is not asserted.)
        #expect(try ServiceIsolationTests.find(fixture, as: fixture.alice, environment: shared).output == "shared-secret\n")
    }

    @Test("a script is its own program: a user's script under a granted interpreter, a copy of a granted script, PYTHONPATH, python3 -c are refused")
    func interpreterScripts() throws {
        try RequiredTool.python3.require()
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        let interpreter = try #require(URL(fileURLWithPath: Self.python).resolvingSymlinksInPath().path as String?)
        let script = fixture.base + "/bin/client.py"
        try fixture.write(ServiceClientScripts.client, to: script, owner: nil, mode: 0o755)
        try "executable = \(interpreter)\naccess-groups = com.example.python\n"
            .write(toFile: fixture.grantsDirectory + "/python.grant", atomically: true, encoding: .utf8)
        try "executable = \(script)\naccess-groups = com.example.scripts\n"
            .write(toFile: fixture.grantsDirectory + "/script.grant", atomically: true, encoding: .utf8)
        try fixture.start()
        func call(_ arguments: [String], environment: [String: String] = [:]) throws -> ServiceFixture.Run {
            try fixture.run(as: fixture.alice, [Self.python] + arguments, environment: environment)
        }
        // The installed, granted script, run isolated, has its group.
        let stored = try call(["-I", script, "add", "com.example.scripts", "script-secret"])
        #expect(stored.output == "0\n", "\(stored.output) \(stored.error) \(fixture.log)")
        #expect(try call(["-I", script, "find", "com.example.scripts"]).output == "0\nscript-secret\n")
        // The service reads the caller's environment (its memory: /proc/<pid>/environ is the
        // caller's alone) and a variable that loads the user's code makes it unverifiable.
        let injected = try call(["-I", script, "find", "com.example.scripts"], environment: ["PYTHONPATH": fixture.alice.home])
        #expect(injected.output == "-34018\n", "\(injected.output) \(injected.error)")
        #expect(fixture.log.contains("runs with PYTHONPATH set"), "\(fixture.log)")
        #expect(!fixture.log.contains("cannot read the environment"), "\(fixture.log)")
        // Not isolated, Python imports the user's own modules first: unverifiable.
        #expect(try call([script, "find", "com.example.scripts"]).output == "-34018\n")
        // Alice's copy of it is another program, and her script does not inherit python3's grant.
        let copy = fixture.alice.home + "/client.py"
        try fixture.write(ServiceClientScripts.client, to: copy, owner: fixture.alice, mode: 0o755)
        #expect(try call(["-I", copy, "find", "com.example.scripts"]).output == "-34018\n")
        #expect(try call(["-I", copy, "add", "com.example.python", "x"]).output == "-34018\n")
        // Code on the command line is not a script either.
        let inline = try call(["-I", "-c", "import runpy, sys; sys.argv = ['c', 'find', 'com.example.python']; runpy.run_path('\(script)')"])
        #expect(inline.output == "-34018\n", "\(inline.output) \(inline.error)")
        // The service's log names the interpreter and, for the copy, the script it could not vouch for.
        #expect(fixture.log.contains("(script run by \(interpreter))") && fixture.log.contains(copy), "\(fixture.log)")
    }

    @Test("one user flooding the socket (many connections, half frames, malformed frames) does not stop another user's call")
    func floodFromOneUser() throws {
        try RequiredTool.python3.require()
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        let flood = fixture.base + "/bin/flood.py"
        try fixture.write(ServiceClientScripts.flood, to: flood, owner: nil, mode: 0o755)
        // The descriptor limit a systemd unit gives a service by default is of this order: a
        // service without a per-user bound runs out of descriptors before the flood ends.
        try fixture.start(openFileLimit: 256)
        #expect(try ServiceIsolationTests.add(fixture, as: fixture.bob, secret: "bob-secret").status == 0, "\(fixture.log)")
        let flooder = try fixture.launch(as: fixture.alice, [Self.python, "-I", flood, "400"])
        defer {
            try? flooder.input.fileHandleForWriting.close()
            flooder.process.waitUntilExit()
        }
        let report = String(decoding: flooder.output.fileHandleForReading.availableDataLine(), as: UTF8.self)
        let counts = report.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(counts.count == 2 && counts[0] - counts[1] <= 32, "alice holds more than her bound: \(report)")
        let read = try fixture.run(as: fixture.bob, ["/usr/bin/timeout", "15", fixture.program, "find-generic-password", "-a", "deploy", "-s", "api", "-w"])
        #expect(read.status == 0 && read.output == "bob-secret\n", "\(read.status) \(read.error) \(fixture.log.suffix(2000))")
        #expect(fixture.log.contains("already holds 32 connections"))
        #expect(fixture.service?.isRunning == true)
    }
}

extension FileHandle {
    /// Bytes up to the first newline (or the end of the stream).
    func availableDataLine() -> Data {
        var line = Data()
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty || byte == Data([10]) { return line }
            line.append(byte)
        }
    }
}
