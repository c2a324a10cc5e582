import EtcdClusterSupport
import Foundation
import KeychainLinux
import RequiredToolSupport
import SecretServiceHarness
import Testing

/// What a client may do to collections it cannot read: a locked collection is
/// neither deleted nor re-aliased; `default` (where every application's new secrets go) moves
/// only after a person confirms, on a prompt that shows the keychain file's path beside the label
/// any client may set.
@Suite("Secret Service provider: locked collections and the default alias", .integration, .tags(.external, .dbus), .timeLimit(.minutes(3)))
struct CollectionGuardTests {
    typealias P = ProtocolEdgeTests
    static let service = "org.freedesktop.Secret.Service"
    static let collectionInterface = "org.freedesktop.Secret.Collection"

    static func createCollection(_ client: DBusConnection, label: String) throws -> String {
        let reply = try P.call(client, P.root, service, "CreateCollection",
                               [.array(elementSignature: "{sv}", [.dictEntry(key: .string(collectionInterface + ".Label"), value: .variant(.string(label)))]),
                                .string("")])
        return try #require(reply.first?.text)
    }

    static func paths(_ paths: [String]) -> DBusValue { .array(elementSignature: "o", paths.map(DBusValue.objectPath)) }

    static func readDefault(_ client: DBusConnection) throws -> String? {
        try P.call(client, P.root, service, "ReadAlias", [.string("default")]).first?.text
    }

    @Test("a locked collection is not deleted (IsLocked) until unlocked; an alias is not moved to or from a locked collection")
    func lockedCollection() async throws {
        try await withProvider(.keychainKit) { harness in
            let client = try P.client(harness)
            let work = try Self.createCollection(client, label: "Work")
            _ = try P.call(client, P.root, Self.service, "Lock", [Self.paths([work])])
            #expect(P.errorName { try P.call(client, work, Self.collectionInterface, "Delete") } == "org.freedesktop.Secret.Error.IsLocked")
            #expect(P.errorName { try P.call(client, P.root, Self.service, "SetAlias", [.string("work"), .objectPath(work)]) }
                    == "org.freedesktop.Secret.Error.IsLocked")
            let collections = try P.call(client, P.root, "org.freedesktop.DBus.Properties", "Get", [.string(Self.service), .string("Collections")])
            #expect(collections.first == .variant(Self.paths([P.login, work, P.root + "/collection/session"])), "still there")

            _ = try P.call(client, P.root, Self.service, "Unlock", [Self.paths([work])])
            _ = try P.call(client, P.root, Self.service, "SetAlias", [.string("work"), .objectPath(work)])
            _ = try P.call(client, P.root, Self.service, "Lock", [Self.paths([work])])
            #expect(P.errorName { try P.call(client, P.root, Self.service, "SetAlias", [.string("work"), .objectPath("/")]) }
                    == "org.freedesktop.Secret.Error.IsLocked", "an alias is not taken from a locked collection either")
            _ = try P.call(client, P.root, Self.service, "Unlock", [Self.paths([work])])
            #expect(P.errorName { try P.call(client, work, Self.collectionInterface, "Delete") } == nil, "unlocked: deleted")
        }
    }

    @Test("without anyone to ask, default is not re-pointed (AccessDenied) and stays on login; other aliases still can be set")
    func defaultWithoutPrompt() async throws {
        try await withProvider(.keychainKit) { harness in
            let client = try P.client(harness)
            let other = try Self.createCollection(client, label: "Other")
            #expect(P.errorName { try P.call(client, P.root, Self.service, "SetAlias", [.string("default"), .objectPath(other)]) }
                    == "org.freedesktop.DBus.Error.AccessDenied")
            #expect(try Self.readDefault(client) == P.login)
            _ = try P.call(client, P.root, Self.service, "SetAlias", [.string("mine"), .objectPath(other)])
            #expect(try P.call(client, P.root, Self.service, "ReadAlias", [.string("mine")]).first?.text == other)
        }
    }

    @Test("default moves only on the person's yes; the confirmation and the unlock prompt show the keychain file's path beside the label")
    func defaultConfirmedThroughPinentry() async throws {
        let scripts = FileManager.default.temporaryDirectory.appendingPathComponent("kk-confirm-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scripts, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { do { try FileManager.default.removeItem(atPath: scripts) } catch {} }  // test cleanup only
        let log = scripts + "/pinentry.log"
        let answer = scripts + "/answer"
        // CONFIRM is answered with the content of `answer` (OK or a cancel), GETPIN with the password.
        try writeScript("""
            #!/bin/sh
            echo "OK Pleased to meet you"
            while IFS= read -r line; do
              printf '%s\\n' "$line" >> '\(log)'
              case "$line" in
                CONFIRM) cat '\(answer)';;
                GETPIN) echo "D correct horse"; echo OK;;
                BYE) echo "OK closing connection"; exit 0;;
                *) echo OK;;
              esac
            done
            """, to: scripts + "/pinentry")
        try await onDedicatedThread {
            let harness = try SecretServiceHarness(.keychainKit, providerEnvironment: ["KEYCHAINKIT_SESSION_KEYRING": "off",
                                                                                       "KEYCHAINKIT_PINENTRY": scripts + "/pinentry"])
            defer { harness.stop() }
            let client = try P.client(harness)
            let other = try Self.createCollection(client, label: "Totally the login keychain\nKeychain file: /nowhere")
            try "ERR 83886179 Operation cancelled\n".write(toFile: answer, atomically: true, encoding: .utf8)
            #expect(P.errorName { try P.call(client, P.root, Self.service, "SetAlias", [.string("default"), .objectPath(other)]) }
                    == "org.freedesktop.DBus.Error.AccessDenied", "the person said no")
            #expect(try Self.readDefault(client) == P.login)

            try "OK\n".write(toFile: answer, atomically: true, encoding: .utf8)
            #expect(P.errorName { try P.call(client, P.root, Self.service, "SetAlias", [.string("default"), .objectPath(other)]) } == nil)
            #expect(try Self.readDefault(client) == other)

            let descriptions = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("SETDESC ") }
            let otherFile = (harness.keychainPath as NSString).deletingLastPathComponent + "/Totally_the_login_keychain_Keychain_file___nowhere.keychain-db"
            #expect(descriptions.count == 2)
            for description in descriptions {
                // The label's line break is gone (it cannot fake a line of its own); the real path follows.
                #expect(description.contains("Totally the login keychainKeychain file: /nowhere"), "\(description)")
                #expect(description.contains("%0AKeychain file: \(otherFile)"), "\(description)")
            }
            #expect(harness.providerIsRunning, "\(harness.providerLog)")
        }
    }
}
