import Foundation
import PrivateBusSupport
import Testing
@testable import KeychainLinux
import RequiredToolSupport

/// The service side of the D-Bus connection against a real `dbus-daemon` on a private bus: a
/// name is taken, a call from another connection arrives with its sender, and replies, errors and
/// signals reach that caller.
@Suite("D-Bus service connection on a real bus", .integration, .tags(.external, .dbus))
struct DBusServiceTests {
    @Test("a call reaches the name's owner with its sender; the reply, an error and a signal reach the caller")
    func callReplyErrorSignal() throws {
        let bus = try PrivateBus()
        let service = try DBusConnection(address: bus.address, timeout: 5)
        let client = try DBusConnection(address: bus.address, timeout: 5)
        #expect(try service.requestName("org.example.Echo", replaceExisting: false, deadline: Deadline(secondsFromNow: 5)) == 1)
        // A second owner is refused while the first holds the name (DO_NOT_QUEUE): answer 3.
        let rival = try DBusConnection(address: bus.address, timeout: 5)
        #expect(try rival.requestName("org.example.Echo", replaceExisting: false, deadline: Deadline(secondsFromNow: 5)) == 3)

        try client.addMatch("type='signal',interface='org.example.Echo'", deadline: Deadline(secondsFromNow: 5))
        let answered = Thread {
            do {
                var answeredCalls = 0
                while answeredCalls < 2 {
                    // The bus's own signals (NameAcquired) arrive too; only the client's calls count.
                    let (call, problem) = try service.nextMessage(deadline: Deadline(secondsFromNow: 10), isCancelled: { false })
                    guard problem == nil, call.kind == .methodCall, call.sender == client.uniqueName else { continue }
                    answeredCalls += 1
                    if call.member == "Echo" {
                        try service.emitSignal(path: "/org/example", interface: "org.example.Echo", member: "Echoed",
                                               body: call.body, deadline: Deadline(secondsFromNow: 5))
                        try service.reply(to: call, body: call.body, deadline: Deadline(secondsFromNow: 5))
                    } else {
                        try service.replyError(to: call, name: "org.example.Error.Refused", message: "no",
                                               deadline: Deadline(secondsFromNow: 5))
                    }
                }
            } catch {
                Issue.record("the service failed: \(error)")
            }
        }
        answered.start()

        let body: [DBusValue] = [.string("hello"), .array(elementSignature: "{ss}", [.dictEntry(key: .string("k"), value: .string("v"))])]
        let reply = try client.call(.call(destination: "org.example.Echo", path: "/org/example", interface: "org.example.Echo",
                                          member: "Echo", body: body), deadline: Deadline(secondsFromNow: 10))
        #expect(reply == body)
        let signal = try client.nextSignal(deadline: Deadline(secondsFromNow: 10), isCancelled: { false }) { $0.member == "Echoed" }
        #expect(signal.body == body && signal.path == "/org/example")
        #expect(throws: DBusFailure.remote(name: "org.example.Error.Refused", message: "no")) {
            try client.call(.call(destination: "org.example.Echo", path: "/org/example", interface: "org.example.Echo",
                                  member: "Refuse"), deadline: Deadline(secondsFromNow: 10))
        }
    }
}
