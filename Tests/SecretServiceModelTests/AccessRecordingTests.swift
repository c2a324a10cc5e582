import Foundation
import KeychainAudit
import KeychainLinux
import PrivateBusSupport
import RequiredToolSupport
@testable import SecretService
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The daemon in this process on a private bus, with a recorder the test holds: every access is
/// recorded with the caller the bus reports (this process), and when recording fails the access
/// fails — no secret handed out, no item kept.
@Suite("Secret Service provider: every access recorded, or not done", .integration, .tags(.external, .dbus), .timeLimit(.minutes(2)))
struct AccessRecordingTests {
    /// Keeps events; throws for the operations in `failing`.
    final class Recorder: AccessEventRecorder, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [AccessEvent] = []
        private var failing: Set<AccessEvent.Operation> = []

        struct Refused: Error, CustomStringConvertible { var description: String { "the test's log is full" } }

        var events: [AccessEvent] { lock.withLock { kept } }
        func fail(_ operations: Set<AccessEvent.Operation>) { lock.withLock { failing = operations } }

        func record(_ event: AccessEvent) throws {
            try lock.withLock {
                guard !failing.contains(event.operation) else { throw Refused() }
                kept.append(event)
            }
        }
    }

    static let root = "/org/freedesktop/secrets"
    static let login = "/org/freedesktop/secrets/collection/login"

    static func call(_ client: DBusConnection, _ path: String, _ interface: String, _ member: String, _ body: [DBusValue] = []) throws -> [DBusValue] {
        try client.call(.call(destination: SecretServiceDaemon.busName, path: path, interface: interface, member: member, body: body),
                        deadline: Deadline(secondsFromNow: 10))
    }

    static func createItem(_ client: DBusConnection, session: String, secret: String) throws -> [DBusValue] {
        let properties: DBusValue = .array(elementSignature: "{sv}", [
            .dictEntry(key: .string("org.freedesktop.Secret.Item.Label"), value: .variant(.string("Recorded"))),
            .dictEntry(key: .string("org.freedesktop.Secret.Item.Attributes"),
                       value: .variant(.array(elementSignature: "{ss}", [.dictEntry(key: .string("service"), value: .string("kk-rec")),
                                                                          .dictEntry(key: .string("username"), value: .string("ann"))]))),
        ])
        let structure: DBusValue = .structure([.objectPath(session), .bytes([]), .bytes(Array(secret.utf8)), .string("text/plain")])
        return try call(client, login, "org.freedesktop.Secret.Collection", "CreateItem", [properties, structure, .boolean(false)])
    }

    static func errorName(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch DBusFailure.remote(let name, _) {
            return name
        } catch {
            return "\(error)"
        }
    }

    @Test("create and read are recorded with this process as the caller; a failed record fails the read and undoes the create")
    func recordedOrRefused() throws {
        try RequiredTool.require([.dbusDaemon])
        let bus = try PrivateBus()
        defer { bus.stop() }
        try IsolatedKeychains.withStore { store, _ in
            let recorder = Recorder()
            let connection = try DBusConnection(address: bus.address, timeout: 5)
            let daemon = SecretServiceDaemon(connection: connection, backend: KeychainSecretBackend(store: store), askPassword: nil,
                                             recorder: recorder)
            try daemon.claimName(replace: false)
            let stop = StopFlag()
            let serving = Thread { do { try daemon.run(isStopped: stop.isRaised) } catch {} }  // test code only: the bus goes at the end
            serving.start()
            defer { stop.raise() }

            let client = try DBusConnection(address: bus.address, timeout: 5)
            let opened = try Self.call(client, Self.root, "org.freedesktop.Secret.Service", "OpenSession", [.string("plain"), .variant(.string(""))])
            let session = try #require(opened.last?.text)
            let item = try #require(try Self.createItem(client, session: session, secret: "recorded secret").first?.text)
            let read = try Self.call(client, item, "org.freedesktop.Secret.Item", "GetSecret", [.objectPath(session)])
            #expect(read.first == .structure([.objectPath(session), .bytes([]), .bytes(Array("recorded secret".utf8)), .string("text/plain")]))

            let me = try ProcessLineage.current()
            let events = recorder.events
            #expect(events.map(\.operation) == [.create, .read])
            #expect(events.map(\.decision) == [.trusted, .trusted], "the creator reads its own item")
            for event in events {
                #expect(event.caller.process.pid == me.process.pid && event.caller.process.executable == me.process.executable)
                #expect(event.callerUID == getuid() && event.channel == .secretService)
                #expect(event.item == AccessEvent.Item(label: "Recorded", service: "kk-rec", account: "ann"))
            }

            recorder.fail([.read])
            #expect(Self.errorName { try Self.call(client, item, "org.freedesktop.Secret.Item", "GetSecret", [.objectPath(session)]) }
                    == DBusError.failedName, "no record, no secret")
            let many = DBusValue.array(elementSignature: "o", [.objectPath(item)])
            #expect(Self.errorName { try Self.call(client, Self.root, "org.freedesktop.Secret.Service", "GetSecrets", [many, .objectPath(session)]) }
                    == DBusError.failedName)

            recorder.fail([.create])
            let searchBefore = try Self.call(client, Self.root, "org.freedesktop.Secret.Service", "SearchItems",
                                             [.array(elementSignature: "{ss}", [])])
            #expect(Self.errorName { try Self.createItem(client, session: session, secret: "never kept") } == DBusError.failedName)
            let searchAfter = try Self.call(client, Self.root, "org.freedesktop.Secret.Service", "SearchItems",
                                            [.array(elementSignature: "{ss}", [])])
            #expect(searchAfter == searchBefore, "the unrecorded item was removed")
            #expect(recorder.events.count == 2, "nothing more was recorded")
        }
    }
}

/// Tells the daemon's loop to stop.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    func raise() { lock.withLock { raised = true } }
    @Sendable func isRaised() -> Bool { lock.withLock { raised } }
}
