import Foundation
import KeychainLinux
import SecretServiceHarness
import Testing
#if canImport(Glibc)
import Glibc
import RequiredToolSupport
#endif

/// `keychainctl secret-service` spoken to over a real private bus with the project's own D-Bus
/// client, for what the stock clients cannot show: session ownership, the error for each kind of
/// bad call, prompts with and without someone to ask, and signals.
@Suite("Secret Service provider: protocol edges", .timeLimit(.minutes(2)), .integration, .tags(.external, .dbus, .gnomeKeyring))
struct ProtocolEdgeTests {
    static let service = "org.freedesktop.secrets"

    /// A client connection to the harness's bus.
    static func client(_ harness: SecretServiceHarness) throws -> DBusConnection {
        try DBusConnection(address: harness.busAddress, timeout: 5)
    }

    /// Creates the sandbox's login keychain with `password` (kernel-keyring sharing off, so the
    /// provider starts with it locked).
    static func createPasswordKeychain(_ harness: SecretServiceHarness, password: String) throws {
        let created = try harness.run([SecretServiceHarness.keychainctlPath, "create-keychain", harness.keychainPath, "-p"],
                                      stdin: Array((password + "\n").utf8),
                                      environment: harness.keychainEnvironment.merging(["KEYCHAINKIT_SESSION_KEYRING": "off"]) { _, new in new })
        #expect(created.status == 0, "create-keychain: \(created.stderr)")
    }
    static let root = "/org/freedesktop/secrets"
    static let login = "/org/freedesktop/secrets/collection/login"

    /// Calls `interface.member` on `path` of the provider.
    static func call(_ connection: DBusConnection, _ path: String, _ interface: String, _ member: String,
                     _ body: [DBusValue] = []) throws -> [DBusValue] {
        try connection.call(.call(destination: service, path: path, interface: interface, member: member, body: body),
                            deadline: Deadline(secondsFromNow: 10))
    }

    /// The D-Bus error name a call fails with (nil if it succeeds).
    static func errorName(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch DBusFailure.remote(let name, _) {
            return name
        } catch {
            return "unexpected: \(error)"
        }
    }

    static func openPlainSession(_ connection: DBusConnection) throws -> String {
        let reply = try call(connection, root, "org.freedesktop.Secret.Service", "OpenSession", [.string("plain"), .variant(.string(""))])
        return try #require(reply.last?.text)
    }

    static func secret(_ session: String, _ text: String) -> DBusValue {
        .structure([.objectPath(session), .byteArray(Data()),
                    .byteArray(Data(text.utf8)), .string("text/plain")])
    }

    static func createItem(_ connection: DBusConnection, session: String, label: String, attributes: [String: String],
                           secret text: String) throws -> String {
        let properties: DBusValue = .array(elementSignature: "{sv}", [
            .dictEntry(key: .string("org.freedesktop.Secret.Item.Label"), value: .variant(.string(label))),
            .dictEntry(key: .string("org.freedesktop.Secret.Item.Attributes"), value: .variant(
                .array(elementSignature: "{ss}", attributes.map { .dictEntry(key: .string($0.key), value: .string($0.value)) }))),
        ])
        let reply = try call(connection, login, "org.freedesktop.Secret.Collection", "CreateItem",
                             [properties, secret(session, text), .boolean(true)])
        return try #require(reply.first?.text)
    }

    static func secretText(_ reply: [DBusValue]) -> String? {
        guard case .structure(let fields)? = reply.first, fields.count == 4, case .byteArray(let bytes) = fields[2] else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("a session belongs to the client that opened it; a closed session is gone; ItemCreated reaches listeners")
    func sessionOwnershipAndSignals() throws {
        let harness = try SecretServiceHarness(.keychainKit)
        let alice = try Self.client(harness), mallory = try Self.client(harness), listener = try Self.client(harness)
        try listener.addMatch("type='signal',interface='org.freedesktop.Secret.Collection'", deadline: Deadline(secondsFromNow: 5))

        let session = try Self.openPlainSession(alice)
        let item = try Self.createItem(alice, session: session, label: "api", attributes: ["service": "api", "username": "alice"],
                                       secret: "tok-1")
        let created = try listener.nextSignal(deadline: Deadline(secondsFromNow: 10), isCancelled: { false }) { $0.member == "ItemCreated" }
        #expect(created.path == Self.login && created.body.first?.text == item)

        #expect(Self.secretText(try Self.call(alice, item, "org.freedesktop.Secret.Item", "GetSecret", [.objectPath(session)])) == "tok-1")
        #expect(Self.errorName { try Self.call(mallory, item, "org.freedesktop.Secret.Item", "GetSecret", [.objectPath(session)]) }
                == "org.freedesktop.Secret.Error.NoSession", "another client cannot use alice's session")
        #expect(Self.errorName { try Self.call(mallory, session, "org.freedesktop.Secret.Session", "Close") }
                == "org.freedesktop.Secret.Error.NoSession", "nor close it")
        _ = try Self.call(alice, session, "org.freedesktop.Secret.Session", "Close")
        #expect(Self.errorName { try Self.call(alice, item, "org.freedesktop.Secret.Item", "GetSecret", [.objectPath(session)]) }
                == "org.freedesktop.Secret.Error.NoSession")
    }

    @Test("bad calls get D-Bus errors — wrong types, unknown objects, methods and algorithms, a bad DH key — and the provider keeps serving")
    func badCallsGetErrors() throws {
        let harness = try SecretServiceHarness(.keychainKit)
        let client = try Self.client(harness)
        let service = "org.freedesktop.Secret.Service"
        #expect(Self.errorName { try Self.call(client, Self.root, service, "SearchItems", [.string("not a dictionary")]) }
                == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(Self.errorName { try Self.call(client, Self.root, service, "Frobnicate") } == "org.freedesktop.DBus.Error.UnknownMethod")
        // As gnome-keyring answers (docs/SECRET-SERVICE.md, "Error names"): no object → UnknownMethod.
        #expect(Self.errorName { try Self.call(client, "/org/example/nothing", service, "SearchItems") }
                == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(Self.errorName { try Self.call(client, Self.login + "/0000000000000000000000000000000000000000",
                                               "org.freedesktop.DBus.Properties", "Get",
                                               [.string("org.freedesktop.Secret.Item"), .string("Label")]) }
                == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(Self.errorName { try Self.call(client, Self.root + "/collection/nosuch", "org.freedesktop.DBus.Properties", "GetAll",
                                               [.string("")]) } == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(Self.errorName { try Self.call(client, Self.root, service, "OpenSession", [.string("rot13"), .variant(.string(""))]) }
                == "org.freedesktop.DBus.Error.NotSupported", "secretstorage falls back to plain on exactly this error")
        #expect(Self.errorName { try Self.call(client, Self.root, service, "OpenSession",
                                               [.string("dh-ietf1024-sha256-aes128-cbc-pkcs7"), .variant(.byteArray(Data([1])))]) }
                == "org.freedesktop.DBus.Error.InvalidArgs", "a DH public key of 1 is refused")
        #expect(Self.errorName { try Self.call(client, Self.root, "org.freedesktop.DBus.Properties", "Set",
                                               [.string(service), .string("Collections"), .variant(.string("x"))]) }
                == "org.freedesktop.DBus.Error.PropertyReadOnly")
        // Still serving, and `default` names login.
        _ = try Self.call(client, Self.root, "org.freedesktop.DBus.Peer", "Ping")
        #expect(try Self.call(client, Self.root, service, "ReadAlias", [.string("default")]).first?.text == Self.login)
        let collections = try Self.call(client, Self.root, "org.freedesktop.DBus.Properties", "Get", [.string(service), .string("Collections")])
        #expect(collections.first == .variant(.array(elementSignature: "o", [.objectPath(Self.login), .objectPath(Self.root + "/collection/session")])))
    }

    @Test("a locked collection: secrets refused with IsLocked; without anyone to ask the unlock prompt completes at once, dismissed")
    func lockedWithoutTerminal() throws {
        let harness = try SecretServiceHarness(.keychainKit, providerEnvironment: ["KEYCHAINKIT_SESSION_KEYRING": "off"]) {
            try Self.createPasswordKeychain($0, password: "correct horse")
        }
        let client = try Self.client(harness)
        let service = "org.freedesktop.Secret.Service"
        let locked = try Self.call(client, Self.login, "org.freedesktop.DBus.Properties", "Get",
                                   [.string("org.freedesktop.Secret.Collection"), .string("Locked")])
        #expect(locked.first == .variant(.boolean(true)))
        let session = try Self.openPlainSession(client)
        #expect(Self.errorName { try Self.createItem(client, session: session, label: "x", attributes: ["a": "b"], secret: "s") }
                == "org.freedesktop.Secret.Error.IsLocked")

        let unlock = try Self.call(client, Self.root, service, "Unlock", [.array(elementSignature: "o", [.objectPath(Self.login)])])
        #expect(unlock.first == .array(elementSignature: "o", []))
        let prompt = try #require(unlock.last?.text)
        #expect(prompt.hasPrefix(Self.root + "/prompt/"))
        try client.addMatch("type='signal',interface='org.freedesktop.Secret.Prompt'", deadline: Deadline(secondsFromNow: 5))
        _ = try Self.call(client, prompt, "org.freedesktop.Secret.Prompt", "Prompt", [.string("")])
        let completed = try client.nextSignal(deadline: Deadline(secondsFromNow: 10), isCancelled: { false }) { $0.member == "Completed" }
        #expect(completed.path == prompt)
        #expect(completed.body.first == .boolean(true), "dismissed: nobody could be asked")
        #expect(Self.errorName { try Self.call(client, prompt, "org.freedesktop.Secret.Prompt", "Prompt", [.string("")]) }
                == "org.freedesktop.Secret.Error.NoSuchObject", "a prompt runs once")
    }

    @Test("the unlock prompt asks through pinentry: a wrong password is retried, the right one unlocks; Lock locks again")
    func unlockThroughPinentry() throws {
        // The pinentry peer (started once per attempt): answers "wrong" the first time, the
        // password after that, and logs the commands it got (the retry must carry a SETERROR).
        let scripts = FileManager.default.temporaryDirectory.appendingPathComponent("kk-pinentry-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scripts, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { do { try FileManager.default.removeItem(atPath: scripts) } catch {} }  // test cleanup only
        let log = scripts + "/pinentry.log"
        let script = scripts + "/pinentry"
        try """
            #!/bin/sh
            echo "OK Pleased to meet you"
            while IFS= read -r line; do
              printf '%s\\n' "$line" >> '\(log)'
              case "$line" in
                GETPIN) if grep -q '^GETPIN' '\(log).answered' 2>/dev/null; then echo "D correct horse"; else echo "D wrong"; fi
                        echo GETPIN >> '\(log).answered'; echo "OK";;
                BYE) echo "OK closing connection"; exit 0;;
                *) echo "OK";;
              esac
            done
            """.writeExecutable(to: script)
        let harness = try SecretServiceHarness(.keychainKit, providerEnvironment: ["KEYCHAINKIT_SESSION_KEYRING": "off",
                                                                                   "KEYCHAINKIT_PINENTRY": script]) {
            try Self.createPasswordKeychain($0, password: "correct horse")
        }
        let client = try Self.client(harness)
        let service = "org.freedesktop.Secret.Service"
        try client.addMatch("type='signal',interface='org.freedesktop.Secret.Prompt'", deadline: Deadline(secondsFromNow: 5))
        let unlock = try Self.call(client, Self.root, service, "Unlock", [.array(elementSignature: "o", [.objectPath(Self.login)])])
        let prompt = try #require(unlock.last?.text)
        _ = try Self.call(client, prompt, "org.freedesktop.Secret.Prompt", "Prompt", [.string("")])
        let completed = try client.nextSignal(deadline: Deadline(secondsFromNow: 30), isCancelled: { false }) { $0.member == "Completed" }
        #expect(completed.body == [.boolean(false), .variant(.array(elementSignature: "o", [.objectPath(Self.login)]))])
        let commands = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(commands.filter { $0 == "GETPIN" }.count == 2)
        #expect(commands.contains { $0.hasPrefix("SETERROR ") }, "the retry says why")

        let session = try Self.openPlainSession(client)
        let item = try Self.createItem(client, session: session, label: "db", attributes: ["service": "db", "username": "root"], secret: "pw")
        #expect(Self.secretText(try Self.call(client, item, "org.freedesktop.Secret.Item", "GetSecret", [.objectPath(session)])) == "pw")

        let lock = try Self.call(client, Self.root, service, "Lock", [.array(elementSignature: "o", [.objectPath(Self.login)])])
        #expect(lock.first == .array(elementSignature: "o", [.objectPath(Self.login)]))
        #expect(Self.errorName { try Self.call(client, item, "org.freedesktop.Secret.Item", "GetSecret", [.objectPath(session)]) }
                == "org.freedesktop.Secret.Error.IsLocked")
        let search = try Self.call(client, Self.root, service, "SearchItems",
                                   [.array(elementSignature: "{ss}", [.dictEntry(key: .string("service"), value: .string("db"))])])
        // A locked keychain's attributes are encrypted: nothing can be matched (docs/SECRET-SERVICE.md).
        #expect(search == [.array(elementSignature: "o", []), .array(elementSignature: "o", [])])
    }
}

private extension String {
    /// Writes this text as an executable script through a close-on-exec descriptor: a process
    /// another test spawns meanwhile must not inherit it open for writing, or executing the script
    /// fails with "text file busy".
    func writeExecutable(to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o700)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        let bytes = Array(utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw CocoaError(.fileWriteUnknown)
        }
    }
}
