import Foundation
import KeychainEngine
import KeychainServiceCore
import KeychainVocabulary
import RequiredToolSupport
import Testing

/// `keychainctl service migrate-in` and `migrate-out` against the real service, run under a user
/// made with `useradd`: an embedded keychain goes into the service and back with every item,
/// attribute and group; a wrong password moves nothing; a migration whose service is killed
/// midway completes on a re-run without storing anything twice. Needs root (CI runs as root).
@Suite("Keychain service: migration between the embedded mode and the service (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServiceMigrationTests {
    static let password = "correct horse"

    /// Alice's embedded keychain and device key, named explicitly (her account's home in the
    /// user database does not exist).
    static func embeddedEnvironment(_ fixture: ServiceFixture, keychain: String = "/embedded.keychain-db") -> [String: String] {
        ["KEYCHAINKIT_KEYCHAIN": fixture.alice.home + keychain, "KEYCHAINKIT_DEVICE_KEY_FILE": fixture.alice.home + "/device.key",
         "KEYCHAINKIT_TESTING_KDF": "1"]
    }

    /// Makes Alice's embedded keychain (with the test KDF and `password`) holding `items`, as this
    /// (root) process in a directory of its own (a keychain refuses a directory of another user),
    /// then moves every file into her home and hands it to her.
    static func makeEmbeddedKeychain(_ fixture: ServiceFixture, items: [[String: Any]]) throws {
        let directory = fixture.base + "/make-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let path = directory + "/embedded.keychain-db"
        let keychain = ServedKeychain(keychainPath: path, deviceKeyPath: directory + "/device.key", authenticator: OwnerAuthenticator(pinentry: nil))
        keychain.registry.useTestingKDF(true)
        try KeychainLifecycle(registry: keychain.registry).create(at: path, password: Data(password.utf8))
        let engine = try keychain.engine(accessGroups: AccessGroups(["*"]), creatingKeychain: false)
        for item in items {
            let outcome = engine.add(item)
            guard outcome.status == 0 else { throw FixtureFailure("add: \(outcome.status) \(String(describing: outcome.failure))") }
        }
        _ = keychain.registry.checkpointOpenKeychains()
        keychain.registry.forget(path: path)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            try FileManager.default.moveItem(atPath: directory + "/" + name, toPath: fixture.alice.home + "/" + name)
        }
        try ServiceFixture.must(["/bin/chown", "-R", "\(fixture.alice.name):\(fixture.alice.name)", fixture.alice.home])
    }

    /// Every item of Alice's embedded keychain `name` (a copy, read as root with the test KDF in a
    /// directory of its own), without the dates an add sets anew, as comparable text.
    static func contents(_ fixture: ServiceFixture, _ name: String) throws -> [String] {
        let directory = fixture.base + "/read-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        for file in [name, name + "-wal", "device.key"] where FileManager.default.fileExists(atPath: fixture.alice.home + "/" + file) {
            try FileManager.default.copyItem(atPath: fixture.alice.home + "/" + file, toPath: directory + "/" + file)
        }
        let path = directory + "/" + name
        let keychain = ServedKeychain(keychainPath: path, deviceKeyPath: directory + "/device.key", authenticator: OwnerAuthenticator(pinentry: nil))
        keychain.registry.useTestingKDF(true)
        try KeychainLifecycle(registry: keychain.registry).unlock(path, password: Data(password.utf8))
        let items = try MigratedItems.read(from: try keychain.engine(accessGroups: AccessGroups(["*"]), creatingKeychain: false))
        keychain.registry.forget(path: path)
        return items.map { item in
            item.filter { $0.key != "cdat" && $0.key != "mdat" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }.sorted()
    }

    static func migrate(_ fixture: ServiceFixture, _ direction: String, password: String = password, _ extra: [String] = [],
                        keychain: String = "/embedded.keychain-db") throws -> ServiceFixture.Run {
        try fixture.run(as: fixture.alice, [fixture.program, "service", direction, "--group", "com.example.app=/usr/bin/true"] + extra,
                        stdin: password + "\n", environment: embeddedEnvironment(fixture, keychain: keychain))
    }

    @Test("an embedded keychain goes into the service and back equal: items, classes, attributes, groups, sync flags, password")
    func roundTrip() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        try Self.makeEmbeddedKeychain(fixture, items: [
            ["class": "genp", "svce": "api", "acct": "deploy", "labl": "API token", "agrp": "keychainctl", "v_Data": Data("tool-secret".utf8)],
            ["class": "genp", "svce": "app", "acct": "me", "agrp": "com.example.app", "pdmn": "cku", "gena": Data([1, 2, 3]),
             "v_Data": Data("app-secret".utf8)],
            ["class": "inet", "srvr": "example.com", "acct": "web", "ptcl": "htps", "port": 443, "agrp": "keychainctl", "sync": true,
             "v_Data": Data("web-secret".utf8)],
            ["class": "genp", "svce": "here-only", "acct": "x", "agrp": "keychainctl", "pdmn": "aku", "v_Data": Data([0, 255, 7])],
        ])
        try fixture.write(Self.password, to: fixture.alice.home + "/password", owner: fixture.alice, mode: 0o600)
        // One item stored by the embedded keychainctl itself, which also gives the keychain an
        // access log (whose key item stays behind: each keychain keeps its own log).
        let cli = try fixture.run(as: fixture.alice, [fixture.program, "add-generic-password", "-a", "cli", "-s", "made-by-cli", "-w"],
                                  stdin: "cli-secret\n", environment: Self.embeddedEnvironment(fixture).merging(["KEYCHAINKIT_SERVICE_SOCKET": "off",
                                                                                                                 "KEYCHAINKIT_PASSWORD_FILE": fixture.alice.home + "/password"]) { _, new in new })
        #expect(cli.status == 0, "\(cli.error)")
        let before = try Self.contents(fixture, "embedded.keychain-db")
        #expect(before.count == 5 && FileManager.default.fileExists(atPath: fixture.alice.home + "/embedded.keychain-db.access-log"))

        // A group nobody named is listed and nothing moves.
        let unnamed = try fixture.run(as: fixture.alice, [fixture.program, "service", "migrate-in"], stdin: Self.password + "\n",
                                      environment: Self.embeddedEnvironment(fixture))
        #expect(unnamed.status != 0 && unnamed.error.contains("com.example.app") && unnamed.error.contains("--group"), "\(unnamed.error)")
        let serviceKeychain = fixture.stateDirectory + "/\(try fixture.uid(fixture.alice))/login.keychain-db"
        #expect(!FileManager.default.fileExists(atPath: serviceKeychain))

        let moved = try Self.migrate(fixture, "migrate-in")
        #expect(moved.status == 0 && moved.output.contains("5 item(s) copied"), "\(moved.output) \(moved.error) \(fixture.log)")
        // keychainctl's own items are now this keychainctl's in the service; the app's item is not.
        let found = try fixture.run(as: fixture.alice, [fixture.program, "find-generic-password", "-s", "api", "-a", "deploy", "-w"])
        #expect(found.output == "tool-secret\n", "\(found.error)")
        let appItem = try fixture.run(as: fixture.alice, [fixture.program, "find-generic-password", "-s", "app", "-w"])
        #expect(appItem.status != 0 && !appItem.output.contains("app-secret"), "another program's item was readable: \(appItem.output)")
        // The password was kept: the service keychain opens with it and with nothing else.
        let wrongUnlock = try fixture.run(as: fixture.alice, [fixture.program, "unlock-keychain", "-p"], stdin: "battery staple\n")
        #expect(wrongUnlock.status == LoginKeychainTests.exitCode(-25293), "\(wrongUnlock.error)")
        #expect(try fixture.run(as: fixture.alice, [fixture.program, "unlock-keychain", "-p"], stdin: Self.password + "\n").status == 0)
        // The embedded file stays, unchanged, as the backup.
        #expect(try Self.contents(fixture, "embedded.keychain-db") == before)

        // A re-run stores nothing twice.
        let again = try Self.migrate(fixture, "migrate-in")
        #expect(again.status == 0 && again.output.contains("0 item(s) copied into the service, 5 already there"), "\(again.output) \(again.error)")

        let out = try Self.migrate(fixture, "migrate-out", keychain: "/back.keychain-db")
        #expect(out.status == 0 && out.output.contains("5 item(s) copied"), "\(out.output) \(out.error) \(fixture.log)")
        let after = try Self.contents(fixture, "back.keychain-db")
        #expect(after == before, "round trip changed the items:\n\(before.joined(separator: "\n"))\n---\n\(after.joined(separator: "\n"))")
        #expect(!fixture.log.contains(Self.password) && !moved.error.contains(Self.password))
    }

    @Test("a wrong password moves nothing, in either direction")
    func wrongPassword() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        try Self.makeEmbeddedKeychain(fixture, items: [
            ["class": "genp", "svce": "api", "acct": "deploy", "agrp": "keychainctl", "v_Data": Data("tool-secret".utf8)],
        ])
        let refused = try Self.migrate(fixture, "migrate-in", password: "battery staple")
        #expect(refused.status == LoginKeychainTests.exitCode(-25293) && refused.error.contains("wrong password"), "\(refused.status) \(refused.error)")
        let serviceKeychain = fixture.stateDirectory + "/\(try fixture.uid(fixture.alice))/login.keychain-db"
        #expect(!FileManager.default.fileExists(atPath: serviceKeychain), "a refused migration created the service keychain")

        #expect(try Self.migrate(fixture, "migrate-in").status == 0)
        let refusedOut = try Self.migrate(fixture, "migrate-out", password: "battery staple", keychain: "/back.keychain-db")
        #expect(refusedOut.status == LoginKeychainTests.exitCode(-25293), "\(refusedOut.status) \(refusedOut.error)")
        #expect(!FileManager.default.fileExists(atPath: fixture.alice.home + "/back.keychain-db"), "a refused migration wrote a keychain")
        // Bob, with Alice's password, reaches only his own (missing) keychain.
        let bob = try fixture.run(as: fixture.bob, [fixture.program, "service", "migrate-out", "-k", fixture.bob.home + "/x.keychain-db"],
                                  stdin: Self.password + "\n", environment: ["KEYCHAINKIT_TESTING_KDF": "1",
                                                                             "KEYCHAINKIT_DEVICE_KEY_FILE": fixture.bob.home + "/device.key"])
        #expect(bob.status == LoginKeychainTests.exitCode(-25294), "\(bob.status) \(bob.error)")
    }

    @Test("a migration whose service is killed midway completes on a re-run, nothing twice, nothing lost")
    func killedMidway() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let count = 700
        try Self.makeEmbeddedKeychain(fixture, items: (0..<count).map { index in
            ["class": "genp", "svce": "bulk", "acct": "item-\(index)", "agrp": "keychainctl", "v_Data": Data("secret-\(index)".utf8)]
        })
        let migration = Process()
        migration.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        migration.arguments = ["--reuid=\(fixture.alice.name)", "--regid=\(fixture.alice.name)", "--init-groups", "--",
                               fixture.program, "service", "migrate-in"]
        migration.environment = ["HOME": fixture.alice.home, "PATH": "/usr/bin:/bin", "KEYCHAINKIT_SERVICE_SOCKET": fixture.socket]
            .merging(Self.embeddedEnvironment(fixture)) { _, new in new }
        let input = Pipe()
        migration.standardInput = input
        migration.standardOutput = FileHandle.nullDevice
        migration.standardError = FileHandle.nullDevice
        try migration.run()
        input.fileHandleForWriting.write(Data((Self.password + "\n").utf8))
        try input.fileHandleForWriting.close()
        // Kill the service once it has stored some items (its write-ahead log grows), before it is done.
        let wal = fixture.stateDirectory + "/\(try fixture.uid(fixture.alice))/login.keychain-db-wal"
        var walBytes = 0
        for _ in 0..<20_000 {
            walBytes = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
            if walBytes >= 96 * 1024 || !migration.isRunning { break }
            usleep(500)
        }
        let service = try #require(fixture.service)
        kill(service.processIdentifier, SIGKILL)
        service.waitUntilExit()
        migration.waitUntilExit()
        #expect(migration.terminationStatus != 0, "the migration finished before the kill (wal \(walBytes) bytes): nothing was interrupted")

        unlink(fixture.socket)
        try fixture.start()
        let resumed = try Self.migrate(fixture, "migrate-in")
        #expect(resumed.status == 0, "\(resumed.error) \(fixture.log)")
        let numbers = resumed.output.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(numbers.count >= 2 && numbers[0] + numbers[1] == count && numbers[1] > 0 && numbers[0] > 0, "\(resumed.output)")
        let third = try Self.migrate(fixture, "migrate-in")
        #expect(third.output.contains("0 item(s) copied into the service, \(count) already there"), "\(third.output) \(third.error)")
        // Out again: exactly the embedded items, once each.
        #expect(try Self.migrate(fixture, "migrate-out", keychain: "/back.keychain-db").status == 0)
        let back = try Self.contents(fixture, "back.keychain-db")
        #expect(back.count == count && Set(back).count == count)
    }
}
