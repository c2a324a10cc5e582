import Foundation
import KeychainServiceWire
import RequiredToolSupport
import Testing

/// The keychain service against real users, as an attacker would try it: the service runs as
/// root dropping to a system user, clients run the real keychainctl under their own uids
/// (`setpriv`), and every row of docs/SERVICE.md's threat table is tried here. Needs root (CI
/// runs as root) and useradd/setpriv.
@Suite("Keychain service isolation (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServiceIsolationTests {
    static func add(_ fixture: ServiceFixture, as user: ServiceFixture.User, program: String? = nil, secret: String,
                    environment: [String: String] = [:]) throws -> ServiceFixture.Run {
        try fixture.run(as: user, [program ?? fixture.program, "add-generic-password", "-a", "deploy", "-s", "api", "-w"],
                        stdin: secret + "\n", environment: environment)
    }

    static func find(_ fixture: ServiceFixture, as user: ServiceFixture.User, program: String? = nil,
                     environment: [String: String] = [:]) throws -> ServiceFixture.Run {
        try fixture.run(as: user, [program ?? fixture.program, "find-generic-password", "-a", "deploy", "-s", "api", "-w"],
                        environment: environment)
    }

    @Test("each user stores and reads their own items, and cannot see another user's")
    func usersAreApart() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let stored = try Self.add(fixture, as: fixture.alice, secret: "alice-secret")
        #expect(stored.status == 0, "\(stored.error) \(fixture.log)")
        let read = try Self.find(fixture, as: fixture.alice)
        #expect(read.status == 0 && read.output == "alice-secret\n", "\(read.error)")
        // Bob asks for the same item: his keychain has none.
        let bobRead = try Self.find(fixture, as: fixture.bob)
        #expect(bobRead.status == 44 && !bobRead.output.contains("alice-secret"), "\(bobRead.status) \(bobRead.output)")
        #expect(try Self.add(fixture, as: fixture.bob, secret: "bob-secret").status == 0)
        #expect(try Self.find(fixture, as: fixture.bob).output == "bob-secret\n")
        #expect(try Self.find(fixture, as: fixture.alice).output == "alice-secret\n")
        // The keychains live under the service's user, one directory per uid, mode 0700.
        let aliceDirectory = fixture.stateDirectory + "/\(try fixture.uid(fixture.alice))"
        let attributes = try FileManager.default.attributesOfItem(atPath: aliceDirectory)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        #expect((attributes[.ownerAccountID] as? UInt) == UInt(try fixture.uid(fixture.serviceUser)))
        #expect(FileManager.default.fileExists(atPath: aliceDirectory + "/login.keychain-db"))
        // Nothing was written in the client's home: no embedded keychain was made.
        #expect(!FileManager.default.fileExists(atPath: fixture.alice.home + "/.local/share/keychainkit/login.keychain-db"))
        // SIGTERM stops it, even though the test runner started it with signals blocked.
        let service = try #require(fixture.service)
        kill(service.processIdentifier, SIGTERM)
        for _ in 0..<100 where service.isRunning { usleep(100_000) }
        #expect(!service.isRunning, "the service ignored SIGTERM")
    }

    @Test("a program of the same uid can neither read the service's files nor ptrace it")
    func filesAndProcessAreOutOfReach() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        #expect(try Self.add(fixture, as: fixture.alice, secret: "alice-secret").status == 0)
        let keychain = fixture.stateDirectory + "/\(try fixture.uid(fixture.alice))/login.keychain-db"
        let cat = try fixture.run(as: fixture.alice, ["/bin/cat", keychain])
        #expect(cat.status != 0 && cat.error.contains("Permission denied"), "\(cat.error)")
        let list = try fixture.run(as: fixture.alice, ["/bin/ls", fixture.stateDirectory])
        #expect(list.status != 0 && list.error.contains("Permission denied"), "\(list.error)")
        let servicePID = try #require(fixture.service?.processIdentifier)
        // The probe works: Alice may ptrace a process of her own (so a refusal below is the service's doing).
        let own = try fixture.run(as: fixture.alice, ["/usr/bin/strace", "-e", "trace=none", "-o", "/dev/null", "/bin/true"])
        #expect(own.status == 0, "strace of her own process failed: \(own.error)")
        let attach = try fixture.run(as: fixture.alice, ["/usr/bin/strace", "-p", "\(servicePID)", "-o", "/dev/null"])
        #expect(attach.status != 0 && attach.error.contains("Operation not permitted"), "\(attach.error)")
        let memory = try fixture.run(as: fixture.alice, ["/bin/cat", "/proc/\(servicePID)/environ"])
        #expect(memory.status != 0 && memory.error.contains("Permission denied"), "\(memory.error)")
        // The service itself is not dumpable: not even its own user could attach.
        let status = try String(contentsOfFile: "/proc/\(servicePID)/status", encoding: .utf8)
        #expect(status.contains("Uid:\t\(try fixture.uid(fixture.serviceUser))"))
        // Its memory is locked (mlockall, faulted pages): what it has touched, class keys included,
        // stays out of swap — wherever root may lock memory (CAP_IPC_LOCK, which this test holds
        // as root, also where the limit cannot be raised); else the service says it is not.
        let lockedLine = status.split(separator: "\n").first { $0.hasPrefix("VmLck:") }.map { $0.split(whereSeparator: \.isWhitespace) }
        let lockedKilobytes = lockedLine.flatMap { $0.count == 3 ? Int($0[1]) : nil }
        let ownCapabilities = try String(contentsOfFile: "/proc/self/status", encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("CapEff:") }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        if let ownCapabilities, ownCapabilities & (1 << 14) != 0 {
            #expect((lockedKilobytes ?? 0) > 0, "\(String(describing: lockedLine)) \(fixture.log)")
        } else {
            #expect(fixture.log.contains("memory is not locked"), "\(String(describing: lockedLine)) \(fixture.log)")
        }
    }

    @Test("another program of the same user is another application: a copy of keychainctl cannot read the first one's item")
    func copiedProgramIsAnotherApplication() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        #expect(try Self.add(fixture, as: fixture.alice, secret: "installed-secret").status == 0)
        let copy = fixture.alice.home + "/keychainctl"
        #expect(try fixture.run(as: fixture.alice, ["/bin/cp", fixture.program, copy]).status == 0)
        let stolen = try Self.find(fixture, as: fixture.alice, program: copy)
        // The item is another application's: reading it needs the user's consent, and without a
        // terminal to ask on that is errSecInteractionNotAllowed (exit 36).
        #expect(stolen.status == 36 && !stolen.output.contains("installed-secret"), "\(stolen.status) \(stolen.output) \(stolen.error)")
        // Its own item goes to its own group, beside the first one's.
        #expect(try Self.add(fixture, as: fixture.alice, program: copy, secret: "copy-secret").status == 0)
        #expect(try Self.find(fixture, as: fixture.alice, program: copy).output == "copy-secret\n")
        #expect(try Self.find(fixture, as: fixture.alice).output == "installed-secret\n")
        // Claiming the installed program's application identifier is refused.
        let claimed = try Self.find(fixture, as: fixture.alice, program: copy, environment: ["KEYCHAINKIT_APP_ID": fixture.program])
        #expect(claimed.status != 0 && claimed.isMissingEntitlement, "\(claimed.status) \(claimed.error)")
    }

    @Test("a claimed access group is refused (-34018) unless a root-owned grant names the program")
    func accessGroupsNeedAGrant() throws {
        let fixture = try ServiceFixture(grants: ["shared.grant": "executable = /tmp/placeholder\n"])
        defer { fixture.stop() }
        // The grant names the installed program (its path is known only now).
        try "executable = \(fixture.program)\naccess-groups = com.example.shared\n"
            .write(toFile: fixture.grantsDirectory + "/shared.grant", atomically: true, encoding: .utf8)
        // A grant file someone else could write is not used.
        try "executable = \(fixture.program)\naccess-groups = com.example.sneaky\n"
            .write(toFile: fixture.grantsDirectory + "/sneaky.grant", atomically: true, encoding: .utf8)
        #expect(chmod(fixture.grantsDirectory + "/sneaky.grant", 0o666) == 0)
        try fixture.start()
        let ungranted = try Self.add(fixture, as: fixture.alice, secret: "x", environment: ["KEYCHAINKIT_ACCESS_GROUPS": "com.example.other"])
        #expect(ungranted.status != 0 && ungranted.isMissingEntitlement, "\(ungranted.status) \(ungranted.error)")
        let sneaky = try Self.add(fixture, as: fixture.alice, secret: "x", environment: ["KEYCHAINKIT_ACCESS_GROUPS": "com.example.sneaky"])
        #expect(sneaky.status != 0 && sneaky.isMissingEntitlement, "\(sneaky.status) \(sneaky.error)")
        #expect(fixture.log.contains("sneaky.grant: writable by its group or others"))
        let granted = try Self.add(fixture, as: fixture.alice, secret: "shared-secret", environment: ["KEYCHAINKIT_ACCESS_GROUPS": "com.example.shared"])
        #expect(granted.status == 0, "\(granted.error) \(fixture.log)")
        #expect(try Self.find(fixture, as: fixture.alice, environment: ["KEYCHAINKIT_ACCESS_GROUPS": "com.example.shared"]).output == "shared-secret\n")
        // The grant is for the installed program only: Alice's copy claiming the group is refused.
        let copy = fixture.alice.home + "/keychainctl"
        #expect(try fixture.run(as: fixture.alice, ["/bin/cp", fixture.program, copy]).status == 0)
        let copied = try Self.find(fixture, as: fixture.alice, program: copy, environment: ["KEYCHAINKIT_ACCESS_GROUPS": "com.example.shared"])
        #expect(copied.status != 0 && copied.isMissingEntitlement, "\(copied.status) \(copied.error)")
    }

    @Test("oversized and malformed frames drop that connection; the service serves the others")
    func hostileFrames() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        #expect(try Self.add(fixture, as: fixture.alice, secret: "alice-secret").status == 0)
        let hostile: [[UInt8]] = [
            [0xFF, 0xFF, 0xFF, 0xFF],  // announces 4 GiB
            [0x00, 0x10, 0x00, 0x01],  // announces one byte over the cap
            [0, 0, 0, 5, 1, 99, 0, 0, 0],  // an unknown operation
            [0, 0, 0, 3, 1, 1, 7],  // a request cut short inside its frame
        ]
        for bytes in hostile {
            let descriptor = try ServiceClient.connect(to: fixture.socket)
            defer { close(descriptor) }
            #expect(bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count)
            var buffer = [UInt8](repeating: 0, count: 16)
            // The service closes the connection without a reply (end of stream).
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            #expect(received == 0, "the service answered a hostile frame \(bytes)")
        }
        // A connection left half-way through a frame does not stop others either.
        let stalled = try ServiceClient.connect(to: fixture.socket)
        defer { close(stalled) }
        let partial: [UInt8] = [0, 0, 1, 0, 1]
        #expect(partial.withUnsafeBytes { send(stalled, $0.baseAddress, $0.count, 0) } == partial.count)
        let read = try Self.find(fixture, as: fixture.alice)
        #expect(read.status == 0 && read.output == "alice-secret\n", "\(read.error)")
        #expect(fixture.service?.isRunning == true)
        #expect(fixture.log.contains("exceeds the limit"))
    }
}

extension ServiceFixture.Run {
    /// `errSecMissingEntitlement` as keychainctl reports it: exit status 30 (-34018's low byte) and Apple's message.
    var isMissingEntitlement: Bool { status == 30 && error.contains("A required entitlement isn't present") }
}

/// Without a reachable service, a client that requires it gets a clear error, never the embedded mode.
@Suite("Keychain service absent")
struct ServiceAbsentTests {
    static func keychainctl(_ arguments: [String], environment: [String: String]) throws -> ServiceFixture.Run {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("absent-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProductsPath.keychainctl)
        process.arguments = arguments
        process.environment = ["HOME": home, "PATH": "/usr/bin:/bin"].merging(environment) { _, new in new }
        let result = try ServiceFixture.run(process, stdin: "secret\n")
        #expect(!FileManager.default.fileExists(atPath: home + "/.local/share/keychainkit/login.keychain-db"), "an embedded keychain was made")
        return result
    }

    @Test("KEYCHAINKIT_REQUIRE=service without a service socket refuses the embedded mode and says how to fix it")
    func requireServiceWithoutSocket() throws {
        let result = try Self.keychainctl(["add-generic-password", "-a", "a", "-s", "s", "-w"], environment: ["KEYCHAINKIT_REQUIRE": "service"])
        #expect(result.status != 0)
        #expect(result.error.contains("KEYCHAINKIT_REQUIRE=service") && result.error.contains("KEYCHAINKIT_SERVICE_SOCKET"), "\(result.error)")
    }

    @Test("a service socket nobody listens on is an error naming it, not a fallback to the embedded mode")
    func unreachableSocket() throws {
        let socket = "/tmp/kk-absent-\(UUID().uuidString.prefix(8)).sock"
        for arguments in [["add-generic-password", "-a", "a", "-s", "s", "-w"], ["find-generic-password", "-a", "a", "-s", "s"]] {
            let result = try Self.keychainctl(arguments, environment: ["KEYCHAINKIT_SERVICE_SOCKET": socket, "KEYCHAINKIT_REQUIRE": "service"])
            #expect(result.status != 0)
            #expect(result.error.contains(socket) && result.error.contains("did not answer"), "\(result.error)")
        }
    }
}

import KeychainTestSupport

/// The built keychainctl.
enum BuiltProductsPath {
    static var keychainctl: String { BuiltProducts.path("keychainctl") }
}
