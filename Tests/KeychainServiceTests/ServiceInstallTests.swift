import Foundation
import RequiredToolSupport
import Testing

/// `keychainctl service install|uninstall` into a staging root (no systemd needed), the unit files
/// checked by the real `systemd-analyze verify`, and socket activation: `service run` serving a
/// socket it inherits (`LISTEN_FDS`) to real users. Needs root (CI runs as root).
@Suite("Keychain service install, units and socket activation", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServiceInstallTests {
    @Test("install writes verifiable units into a staging root; uninstall removes them and keeps the keychains unless --purge")
    func installAndUninstall() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        let root = fixture.base + "/root"
        let install = try ServiceFixture.run([fixture.program, "service", "install", "--root", root, "--program", fixture.program])
        #expect(install.status == 0, "\(install.error)")
        let units = root + "/etc/systemd/system"
        let service = try String(contentsOfFile: units + "/keychainkit.service", encoding: .utf8)
        let socket = try String(contentsOfFile: units + "/keychainkit.socket", encoding: .utf8)
        #expect(socket.contains("ListenStream=/run/keychainkit/service.sock"))
        #expect(service.contains("ExecStart=\(fixture.program) service run --user keychainkit --socket /run/keychainkit/service.sock"))
        for option in ["NoNewPrivileges=yes", "ProtectSystem=strict", "ReadWritePaths=/var/lib/keychainkit", "PrivateTmp=yes",
                       "CapabilityBoundingSet=CAP_SETUID CAP_SETGID CAP_CHOWN CAP_SYS_PTRACE CAP_IPC_LOCK"] {
            #expect(service.contains(option), "\(option)")
        }
        // /proc must stay visible: the service identifies every caller there.
        #expect(!service.contains("ProtectProc=") && !service.contains("ProcSubset="))
        #expect(FileManager.default.fileExists(atPath: root + "/usr/lib/sysusers.d/keychainkit.conf"))
        // A staged install touches nothing outside its root: no state directory (systemd-sysusers and
        // the service make the user and the directory on the target system).
        #expect(!FileManager.default.fileExists(atPath: root + "/var/lib/keychainkit"))
        // systemd's own checker accepts both units.
        let verify = try ServiceFixture.run(["/usr/bin/systemd-analyze", "verify", units + "/keychainkit.socket", units + "/keychainkit.service"])
        #expect(verify.status == 0, "\(verify.output) \(verify.error)")
        #expect(!verify.error.contains("keychainkit"), "\(verify.error)")

        // A keychain in the staged state directory survives an uninstall, not a purge.
        try FileManager.default.createDirectory(atPath: root + "/var/lib/keychainkit/1000", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/var/lib/keychainkit/1000/login.keychain-db", contents: Data("k".utf8))
        let uninstall = try ServiceFixture.run([fixture.program, "service", "uninstall", "--root", root])
        #expect(uninstall.status == 0, "\(uninstall.error)")
        for path in [units + "/keychainkit.service", units + "/keychainkit.socket", root + "/usr/lib/sysusers.d/keychainkit.conf",
                     root + "/etc/keychainkit/installed"] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) left behind")
        }
        #expect(FileManager.default.fileExists(atPath: root + "/var/lib/keychainkit/1000/login.keychain-db"))
        // Nothing installed any more: a second uninstall says so.
        #expect(try ServiceFixture.run([fixture.program, "service", "uninstall", "--root", root]).status != 0)
        #expect(try ServiceFixture.run([fixture.program, "service", "install", "--root", root, "--program", fixture.program]).status == 0)
        #expect(try ServiceFixture.run([fixture.program, "service", "uninstall", "--root", root, "--purge"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: root + "/var/lib/keychainkit"))
    }

    @Test("service run serves the socket it inherits through LISTEN_FDS, as under systemd's socket activation")
    func socketActivation() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.startActivated()
        #expect(!FileManager.default.fileExists(atPath: fixture.base + "/run/unused.sock"), "it made a socket of its own")
        let stored = try ServiceIsolationTests.add(fixture, as: fixture.alice, secret: "activated")
        #expect(stored.status == 0, "\(stored.error) \(fixture.log)")
        #expect(try ServiceIsolationTests.find(fixture, as: fixture.alice).output == "activated\n")
        #expect(FileManager.default.fileExists(atPath: fixture.stateDirectory + "/\(try fixture.uid(fixture.alice))/login.keychain-db"))
    }
}
