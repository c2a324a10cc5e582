import Foundation
import RequiredToolSupport
import Testing

/// `pam_keychainkit.so` against a real service, driven by the real `pamtester` with a PAM service
/// file of the test's own (in /etc/pam.d, removed afterwards): the login keychain is unlocked
/// after open_session with the login password and locked after close_session; a wrong password
/// unlocks nothing; a first login creates the keychain with the login password; a socket planted
/// by another user receives not one byte. The module is built from pam/ with
/// scripts/build-pam-module (gcc, libpam0g-dev). Needs root (CI runs as root).
@Suite("pam_keychainkit.so with pamtester (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users and a PAM service file: run as root"))
struct PAMModuleTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The module built into the fixture's directory, and a PAM service using it with `socket`.
    final class PAMService {
        let name: String
        let path: String

        init(fixture: ServiceFixture, socket: String) throws {
            let module = fixture.base + "/pam_keychainkit.so"
            if !FileManager.default.fileExists(atPath: module) {
                let build = try ServiceFixture.run([PAMModuleTests.packageRoot.path + "/scripts/build-pam-module", module])
                guard build.status == 0 else { throw FixtureFailure("scripts/build-pam-module failed: \(build.error)") }
            }
            name = "kktest-" + UUID().uuidString.prefix(8).lowercased()
            path = "/etc/pam.d/" + name
            let options = "socket=\(socket) service_user=\(fixture.serviceUser.name)"
            let text = """
                auth     optional  \(module) \(options)
                auth     required  pam_permit.so
                account  required  pam_permit.so
                session  optional  \(module) \(options)
                session  required  pam_permit.so

                """
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }

        /// `pamtester SERVICE USER operations…` with `password` typed at the prompt.
        func run(_ user: ServiceFixture.User, _ operations: [String], password: String = "") throws -> ServiceFixture.Run {
            try ServiceFixture.run(["/usr/bin/pamtester", "-v", name, user.name] + operations, stdin: password + "\n")
        }

        func remove() { unlink(path) }
    }

    static func find(_ fixture: ServiceFixture, _ user: ServiceFixture.User) throws -> ServiceFixture.Run {
        try ServiceIsolationTests.find(fixture, as: user)
    }

    @Test("login unlocks the login keychain with the login password, logout locks it; a wrong password unlocks nothing")
    func unlockAtLoginLockAtLogout() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let pam = try PAMService(fixture: fixture, socket: fixture.socket)
        defer { pam.remove() }
        let alice = fixture.alice
        #expect(try fixture.run(as: alice, [fixture.program, "create-keychain", "-p"], stdin: "correct horse\n").status == 0)
        #expect(try ServiceIsolationTests.add(fixture, as: alice, secret: "alice-secret").status == 0)
        #expect(try fixture.run(as: alice, [fixture.program, "lock-keychain"]).status == 0)
        #expect(try Self.find(fixture, alice).status == 36)

        let wrong = try pam.run(alice, ["authenticate", "open_session"], password: "battery staple")
        #expect(wrong.status == 0, "the module must not fail a login: \(wrong.error)")
        #expect(try Self.find(fixture, alice).status == 36, "a wrong login password unlocked the keychain")

        let login = try pam.run(alice, ["authenticate", "open_session"], password: "correct horse")
        #expect(login.status == 0, "\(login.error)")
        let read = try Self.find(fixture, alice)
        #expect(read.status == 0 && read.output == "alice-secret\n", "\(read.status) \(read.error) \(fixture.log)")

        let logout = try pam.run(alice, ["close_session"])
        #expect(logout.status == 0, "\(logout.error)")
        #expect(try Self.find(fixture, alice).status == 36, "close_session left the keychain unlocked")
        #expect(!fixture.log.contains("correct horse") && !fixture.log.contains("battery staple"))

        // A first login makes the login keychain, with the login password.
        let bob = fixture.bob
        #expect(try pam.run(bob, ["authenticate", "open_session"], password: "bob's login").status == 0)
        #expect(FileManager.default.fileExists(atPath: fixture.stateDirectory + "/\(try fixture.uid(bob))/login.keychain-db"))
        #expect(try fixture.run(as: bob, [fixture.program, "lock-keychain"]).status == 0)
        #expect(try fixture.run(as: bob, [fixture.program, "unlock-keychain", "-p"], stdin: "wrong\n").status
                == LoginKeychainTests.exitCode(-25293))
        #expect(try fixture.run(as: bob, [fixture.program, "unlock-keychain", "-p"], stdin: "bob's login\n").status == 0)
    }

    @Test("a socket another user planted receives no password: the module checks its owner before sending")
    func plantedSocketGetsNothing() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        let bob = fixture.bob
        // Bob listens on a socket of his own (in a directory anyone may pass through) and records
        // every byte a client sends him; no connection within 15 s is exit status 3.
        let directory = fixture.base + "/planted"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try ServiceFixture.must(["/bin/chown", "\(bob.name):\(bob.name)", directory])
        let planted = directory + "/fake.sock", received = directory + "/received"
        let listener = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666); s.listen(1); s.settimeout(15)
            try:
                c, _ = s.accept()
            except socket.timeout:
                sys.exit(3)
            c.settimeout(5)
            data = b""
            while True:
                try:
                    chunk = c.recv(4096)
                except socket.timeout:
                    break
                if not chunk: break
                data += chunk
            open(sys.argv[2], "wb").write(data)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(bob.name)", "--regid=\(bob.name)", "--init-groups", "--", "/usr/bin/python3", "-c", listener,
                             planted, received]
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: planted) { usleep(50_000) }
        let pam = try PAMService(fixture: fixture, socket: planted)
        defer { pam.remove() }
        let login = try pam.run(fixture.alice, ["authenticate", "open_session"], password: "correct horse")
        #expect(login.status == 0, "\(login.error)")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the module never connected to the planted socket")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: received))
        #expect(bytes.isEmpty, "the planted socket received \(bytes.count) bytes")
    }
}
